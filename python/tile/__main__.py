"""Command-line entry points of the package.

    python3 -m tile gemm-decode [--layout nt|nn] [--rows 8|16|32|64|128] [--stages S]
                                [--element f16|bf16] [--spans 1|2] [--split-k]
                                [--columns 64|128]

prints a decode GEMM kernel of tile.gemm_decode (its tile IR).
"""
import argparse
import sys

from .gemm_decode import DecodeConfig, decode_source


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python3 -m tile")
    commands = parser.add_subparsers(dest="command", required=True)
    decode = commands.add_parser("gemm-decode", help="print a decode GEMM kernel's tile IR")
    decode.add_argument("--layout", choices=("nt", "nn"), default="nt")
    decode.add_argument("--rows", type=int, default=16)
    decode.add_argument("--stages", type=int, default=12)
    decode.add_argument("--element", choices=("f16", "bf16"), default="f16")
    decode.add_argument("--spans", type=int, default=1)
    decode.add_argument("--split-k", action="store_true")
    decode.add_argument("--columns", type=int, default=64)
    args = parser.parse_args(argv)
    config = DecodeConfig(args.layout, args.rows, args.stages, args.element, args.spans,
                          args.split_k, args.columns)
    try:
        sys.stdout.write(decode_source(config))
    except ValueError as error:
        parser.error(str(error))


if __name__ == "__main__":
    main()
