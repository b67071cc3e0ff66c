"""Command-line entry points of the package.

    python3 -m tile [info]      where the package, its kernels, the tools and
                                the runtime library were found; the GPUs
    python3 -m tile gemm-decode [--layout nt|nn] [--rows 8|16|32|64|96|128]
                                [--bias column|row] [--residual] [--activation A]
                                [--gated] [--stages S]
                                [--element f16|bf16|f8E4M3FN|f8E5M2]
                                [--b-element f8E4M3FN|f8E5M2] [--out bf16|f16]
                                [--spans 1|2] [--split-k] [--columns 64|128]
                                [--fp8-out f8E4M3FN|f8E5M2 [--no-saturate]]
                                prints a decode GEMM kernel (tile.ops.decode;
                                FP8: nt, A and B 8-bit, C = out, scaled;
                                --fp8-out: a 16-bit kernel's C in FP8,
                                scaled, with its amax)
    python3 -m tile gemm [--element f16|bf16] [--tile-n 256|224|192|160|128|96|64]
                                [--bias column|row] [--residual]
                                [--activation relu|silu|gelu|gelu_tanh]
                                [--gated]
                                [--fp8-out f8E4M3FN|f8E5M2 [--no-saturate]]
                                [--a-mn-major | --pingpong]
                                prints the persistent GEMM kernels
                                (kernels/gemm_sm90.mlir) with tiles of
                                that many columns and that fused epilogue
                                (tile.ops.epilogue), A M-major or
                                ping-pong consumers (128- and 64-wide
                                tiles), as tile.matmul compiles them
    python3 -m tile gemm-fp8 [--tile-n 256|224|192|160|128|96] [--out bf16|f16]
                                [--pingpong]
                                prints the FP8 GEMM kernels
                                (kernels/gemm_sm90_fp8.mlir, e4m3) with
                                @gemm_fp8_nt's tiles that many columns
                                wide (ping-pong consumers: 128), as
                                tile.matmul compiles them
    python3 -m tile attention-decode [--element f16|bf16] [--head-dim 64|128]
                                [--page 16|32|64|128]
                                prints a KV-cache attention kernel
                                (tile.ops.decode_attention)
    python3 -m tile attention-prefill [--element f16|bf16|f8E4M3FN] [--head-dim 64|128]
                                [--softcap] [--cache-rows 0|16|32|64] [--lse]
                                [--packed] [--left-edge]
                                prints a variant of the prefill attention
                                kernel (kernels/attention_sm90.mlir, as
                                tile.attention compiles it; with a KV
                                cache's boxes, attention_with_kvcache;
                                f8E4M3FN: the FP8 variant, D = 128)
    python3 -m tile attention-backward [--element f16|bf16] [--head-dim 64|128] [--rows|--deterministic] [--packed]
                                prints the attention backward's fused kernel
                                (kernels/attention_bwd_fused_sm90.mlir, as
                                autograd runs it: tile.ops.attention_backward),
                                with --deterministic the two kernels of the
                                deterministic mode (attention_bwd_sm90.mlir),
                                or with --rows the kernel of their per-row
                                inputs (tile.ops.attention_backward_rows)
    python3 -m tile cache-append [--element f16|bf16] [--head-dim 64|128]
                                prints the KV-cache append kernel
                                (tile.ops.cache_append)
    python3 -m tile rms-norm [--element f16|bf16] [--hidden H] [--residual]
                                [--fp8-out f8E4M3FN|f8E5M2] [--backward]
                                prints the RMSNorm kernel tile.rms_norm
                                runs for rows of H elements (with the
                                fused residual add; y quantized per row;
                                tile.ops.rms_norm), or its derivative's
                                (adding h's own gradient with --residual;
                                tile.ops.rms_norm_backward)
    python3 -m tile rope [--element f16|bf16] [--head-dim 64|128] [--no-k]
                                prints the in-place rotary embedding kernel
                                of q and k (of q only: --no-k;
                                tile.ops.rope)
    python3 -m tile gated-activation [--element f16|bf16]
                                [--activation silu|gelu|gelu_tanh|relu] [--backward]
                                prints the kernel of act(gate) * up on an
                                interleaved gate/up product, or of its
                                derivative (tile.ops.gated_activation)
    python3 -m tile stage-rows [--element f16|bf16] [--count 1|2]
                                prints the kernel that copies a staged
                                call's A and B into aligned rows
                                (tile.ops.staging)
    python3 -m tile lit [LIT-OPTION...] PATH...
                                runs LLVM's lit on your own tests with the
                                project's substitutions (tile.lit_runner)
"""
import argparse
import sys

from pathlib import Path

from . import lit_runner
from .ops.decode import COLUMNS, FP8_TYPES, ROWS, DecodeConfig, decode_source
from .ops import (attention as prefill_attention, cache_append, decode_attention,
                  gated_activation, rms_norm, rms_norm_backward, rope, staging)
from .ops import attention_backward, attention_backward_rows
from .ops.epilogue import ACTIVATIONS, Epilogue
from .ops.matmul import gemm_source, gemm_variant
from .ops.persistent import FP8_TILE_WIDTHS, PINGPONG, TILE, TILE_WIDTHS
from .ops.scaled_matmul import fp8_source
from .runtime import Runtime
from .toolchain import cache_root, find_toolchain, kernel_files, kernels_directory, tool_banner


def describe() -> str:
    """Where the package, its kernels, the tools and the runtime library
    were found, and whether a GPU is usable."""
    lines = [f"package:  {Path(__file__).resolve().parent}",
             f"kernels:  {kernels_directory()} ({', '.join(kernel_files())})",
             f"cache:    {cache_root()}"]
    try:
        tools = find_toolchain()
    except FileNotFoundError as error:
        return "\n".join(lines + [f"tools:    not found ({error})"])
    banner = tool_banner(str(tools.tile_opt)).strip().splitlines()
    version = next((line.strip() for line in banner if "version" in line), "?")
    lines += [f"tile-opt: {tools.tile_opt.absolute()} ({version})",
              f"tile-translate: {tools.tile_translate.absolute()}"]
    if tools.runtime is None:
        lines.append("runtime:  not found (set TILE_RUNTIME_LIB)")
        return "\n".join(lines)
    lines.append(f"runtime:  {tools.runtime.absolute()}")
    runtime = Runtime.get(tools)
    why = runtime.probe()
    lines.append(f"gpu:      {why}" if why else
                 f"gpu:      {runtime.device_count()} device(s); "
                 + "; ".join(f"cuda:{i} {runtime.describe_device(i)}"
                             for i in range(runtime.device_count())))
    return "\n".join(lines)


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["lit"]:  # lit's own options pass through unparsed
        sys.exit(lit_runner.main(argv[1:]))
    parser = argparse.ArgumentParser(prog="python3 -m tile")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("info", help="where the tools, the runtime library and the kernels "
                                     "were found, and the GPUs")
    commands.add_parser("lit", help="run LLVM's lit on your own tests with the project's "
                                    "substitutions and features (lit --help: its options)",
                        add_help=False)
    decode = commands.add_parser("gemm-decode", help="print a decode GEMM kernel's tile IR")
    decode.add_argument("--layout", choices=("nt", "nn"), default="nt")
    decode.add_argument("--rows", type=int, choices=ROWS, default=16)
    decode.add_argument("--stages", type=int, default=12)
    decode.add_argument("--element", choices=("f16", "bf16") + FP8_TYPES, default="f16")
    decode.add_argument("--b-element", choices=FP8_TYPES, default="",
                        help="FP8: B's type where it is not A's")
    decode.add_argument("--out", choices=("bf16", "f16"), default="",
                        help="FP8: C's type (default bf16)")
    decode.add_argument("--spans", type=int, default=1)
    decode.add_argument("--split-k", action="store_true")
    decode.add_argument("--columns", type=int, choices=COLUMNS, default=64)
    decode.add_argument("--bias", choices=("column", "row"))
    decode.add_argument("--residual", action="store_true")
    decode.add_argument("--gated", action="store_true",
                        help="gate and up rows of B in an m64 block each (--columns 128)")
    decode.add_argument("--activation", choices=ACTIVATIONS[1:])
    decode.add_argument("--fp8-out", choices=FP8_TYPES, default="",
                        help="16-bit A and B: C's 8-bit type (scaled, with its amax)")
    decode.add_argument("--no-saturate", action="store_true",
                        help="--fp8-out: NaN / inf beyond the format, not its largest value")
    gemm = commands.add_parser("gemm", help="print the persistent GEMM kernels' tile IR")
    gemm.add_argument("--element", choices=("f16", "bf16"), default="f16")
    gemm.add_argument("--tile-n", type=int, choices=TILE_WIDTHS, default=TILE[1])
    gemm.add_argument("--bias", choices=("column", "row"))
    gemm.add_argument("--residual", action="store_true")
    gemm.add_argument("--activation", choices=ACTIVATIONS[1:])
    gemm.add_argument("--gated", action="store_true")
    gemm.add_argument("--fp8-out", choices=FP8_TYPES, default="",
                      help="C's 8-bit type (scaled, with its amax)")
    gemm.add_argument("--no-saturate", action="store_true",
                      help="--fp8-out: NaN / inf beyond the format, not its largest value")
    gemm.add_argument("--a-mn-major", action="store_true",
                      help="A as its transpose, a row-major K x M matrix (wgmma's imm-trans-a)")
    gemm.add_argument("--pingpong", action="store_true",
                      help="ping-pong consumers: each warpgroup every other tile, all 128 rows "
                           "(--tile-n 128 or 64)")
    gemm.add_argument("--no-tma-c", action="store_true",
                      help="C stored by the warpgroups' own row stores (any row stride: "
                           "tile.warpgroup_coalesced_store), not TMA")
    fp8 = commands.add_parser("gemm-fp8", help="print the FP8 GEMM kernels' tile IR")
    fp8.add_argument("--tile-n", type=int, choices=FP8_TILE_WIDTHS, default=TILE[1])
    fp8.add_argument("--out", choices=("bf16", "f16"), default="bf16")
    fp8.add_argument("--pingpong", action="store_true",
                     help="@gemm_fp8_nt's ping-pong consumers (--tile-n 128)")
    attention = commands.add_parser("attention-decode",
                                    help="print a KV-cache attention kernel's tile IR")
    attention.add_argument("--element", choices=("f16", "bf16"), default="bf16")
    attention.add_argument("--head-dim", type=int, choices=decode_attention.HEAD_DIMS,
                           default=128)
    attention.add_argument("--page", type=int, choices=decode_attention.PAGE_ROWS, default=128,
                           help="rows of a K/V TMA box (the page size if below 128)")
    attention.add_argument("--boxes", action="store_true",
                           help="pages below 64 tokens by TMA boxes, not cp.async gathers")
    backward = commands.add_parser("attention-backward",
                                   help="print the attention backward's kernels' tile IR")
    backward.add_argument("--element", choices=("f16", "bf16"), default="bf16")
    backward.add_argument("--head-dim", type=int, choices=prefill_attention.HEAD_DIMS,
                          default=128)
    backward_kernels = backward.add_mutually_exclusive_group()
    backward_kernels.add_argument("--rows", action="store_true",
                                  help="the kernel of nlse and -rowsum(dO * O) in whole-tile rows")
    backward_kernels.add_argument("--deterministic", action="store_true",
                                  help="the deterministic mode's dQ and dK/dV kernels")
    backward.add_argument("--packed", action="store_true",
                          help="the packed-sequence variant (tile.attention_varlen's)")
    prefill = commands.add_parser("attention-prefill",
                                  help="print a variant of the prefill attention kernel's tile IR")
    prefill.add_argument("--element", choices=("f16", "bf16", prefill_attention.FP8_ELEMENT),
                         default="bf16")
    prefill.add_argument("--head-dim", type=int, choices=prefill_attention.HEAD_DIMS,
                         default=128)
    prefill.add_argument("--softcap", action="store_true",
                         help="keep the logit softcap branch (folded away without)")
    prefill.add_argument("--lse", action="store_true",
                         help="store the rows' log-sum-exps (the variant autograd runs)")
    prefill.add_argument("--packed", action="store_true",
                         help="the packed-sequence variant (tile.attention_varlen's)")
    prefill.add_argument("--left-edge", action="store_true",
                         help="compare a window's left edge (folded away without: the "
                              "variant of calls with no window or an unbounded left)")
    prefill.add_argument("--cache-rows", type=int,
                         choices=(prefill_attention.LENGTHS_ONLY,)
                         + prefill_attention.CACHE_BOX_ROWS,
                         help="the paged KV-cache variant with boxes of this many rows, or 0: "
                              "a contiguous cache's per-sequence lengths (without: the cache "
                              "path folded away)")
    appending = commands.add_parser("cache-append",
                                    help="print the KV-cache append kernel's tile IR")
    appending.add_argument("--element", choices=("f16", "bf16"), default="bf16")
    appending.add_argument("--head-dim", type=int, choices=cache_append.HEAD_DIMS, default=128)
    norm = commands.add_parser("rms-norm", help="print the RMSNorm kernel's tile IR")
    norm.add_argument("--element", choices=("f16", "bf16"), default="bf16")
    norm.add_argument("--hidden", type=int, default=4096,
                      help="the row length H (a multiple of 8); it picks the threads")
    norm.add_argument("--residual", action="store_true",
                      help="the kernel with the fused residual add (h = x + r)")
    norm.add_argument("--fp8-out", choices=FP8_TYPES, default="",
                      help="y quantized per row to this 8-bit type, with its row scales")
    norm.add_argument("--backward", action="store_true",
                      help="the derivative's kernel (dh and the weight's partial sums)")
    gating = commands.add_parser("gated-activation",
                                 help="print the gated activation's (or derivative's) tile IR")
    gating.add_argument("--element", choices=("f16", "bf16"), default="bf16")
    gating.add_argument("--activation", choices=gated_activation.GATE_ACTIVATIONS,
                        default="silu")
    gating.add_argument("--backward", action="store_true")
    stage = commands.add_parser("stage-rows",
                                help="print the staging copy kernel's tile IR (tile.matmul's "
                                     "A and B into aligned rows)")
    stage.add_argument("--element", choices=("f16", "bf16"), default="bf16")
    stage.add_argument("--count", type=int, choices=(1, 2), default=2)
    rotary = commands.add_parser("rope", help="print the rotary embedding kernel's tile IR")
    rotary.add_argument("--element", choices=("f16", "bf16"), default="bf16")
    rotary.add_argument("--head-dim", type=int, choices=rope.HEAD_DIMS, default=128)
    rotary.add_argument("--no-k", action="store_true",
                        help="the kernel of q alone (tile.rope(q, None, cos, sin))")
    args = parser.parse_args(argv)
    if args.command in (None, "info"):
        print(describe())
        return
    if args.command == "gemm":
        fused = Epilogue(args.bias, args.residual, args.activation or "identity", args.gated,
                         out=args.fp8_out, saturate=not args.no_saturate,
                         tma_c=not args.no_tma_c)
        try:
            sys.stdout.write(gemm_source(gemm_variant(args.element, args.tile_n, fused,
                                                      args.a_mn_major, args.pingpong)))
        except ValueError as error:
            parser.error(str(error))
        return
    if args.command == "gemm-fp8":
        elements = ("f8E4M3FN", "f8E4M3FN", args.out)
        variant = (elements + (args.tile_n, PINGPONG) if args.pingpong
                   else elements if args.tile_n == TILE[1] else elements + (args.tile_n,))
        try:
            sys.stdout.write(fp8_source(variant))
        except ValueError as error:
            parser.error(str(error))
        return
    if args.command == "attention-decode":
        sys.stdout.write(decode_attention.decode_attention_source(
            decode_attention.DecodeAttentionConfig(args.element, args.head_dim, args.page,
                                                   gather=not args.boxes)))
        return
    if args.command == "attention-backward":
        if args.rows:
            sys.stdout.write(attention_backward_rows.rows_source(
                attention_backward_rows.RowsConfig(args.element, args.head_dim)))
        elif args.deterministic:
            sys.stdout.write(attention_backward.backward_source(
                (args.element, args.head_dim, args.packed)))
        else:
            sys.stdout.write(attention_backward.fused_source(
                (args.element, args.head_dim, args.packed)))
        return
    if args.command == "attention-prefill":
        try:
            sys.stdout.write(prefill_attention.attention_source(
                (args.element, args.softcap, args.head_dim, args.cache_rows, args.lse,
                 args.packed, args.left_edge)))
        except ValueError as error:
            parser.error(str(error))
        return
    if args.command == "cache-append":
        sys.stdout.write(cache_append.cache_append_source(
            cache_append.CacheAppendConfig(args.element, args.head_dim)))
        return
    if args.command == "rms-norm":
        try:
            if args.backward:
                sys.stdout.write(rms_norm_backward.rms_norm_backward_source(
                    rms_norm.config_for(args.element, args.hidden,
                                                      args.residual)))
            else:
                sys.stdout.write(rms_norm.rms_norm_source(
                    rms_norm.config_for(args.element, args.hidden, args.residual,
                                        args.fp8_out)))
        except ValueError as error:
            parser.error(str(error))
        return
    if args.command == "gated-activation":
        sys.stdout.write(gated_activation.gated_activation_source(
            gated_activation.GatedActivationConfig(args.element, args.activation,
                                                   args.backward)))
        return
    if args.command == "stage-rows":
        sys.stdout.write(staging.stage_rows_source(
            staging.StageRowsConfig(args.element, args.count)))
        return
    if args.command == "rope":
        sys.stdout.write(rope.rope_source(rope.RopeConfig(args.element, args.head_dim,
                                                          not args.no_k)))
        return
    fp8 = args.element in FP8_TYPES
    config = DecodeConfig(args.layout, args.rows, args.stages, args.element, args.spans,
                          args.split_k, args.columns,
                          Epilogue(args.bias, args.residual, args.activation or "identity",
                                   args.gated, out=args.fp8_out,
                                   saturate=not args.no_saturate),
                          args.b_element if fp8 else "", (args.out or "bf16") if fp8 else "")
    try:
        sys.stdout.write(decode_source(config))
    except ValueError as error:
        parser.error(str(error))


if __name__ == "__main__":
    main()
