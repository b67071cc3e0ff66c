#!/usr/bin/env python3
"""Prints a SHA-256 of the PTX of every shipped kernel variant: the product
kernels of python/tile/kernels in each element-type variant the ops use, a
set of decode kernels, and the examples. Run it before and after a change
that must not change code generation (a refactoring) and diff the outputs:

    scripts/kernel-ptx-digests.py > before.txt
    ... change, rebuild ...
    scripts/kernel-ptx-digests.py > after.txt && diff before.txt after.txt

Tools: $TILE_BIN_DIR or the checkout's build/bin (as tile.toolchain finds
them). No GPU needed; compilations go to a temporary cache.
"""
import hashlib
import itertools
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
os.environ["TILE_CACHE_DIR"] = tempfile.mkdtemp(prefix="tile-ptx-digests-")

import tile  # noqa: E402
from tile.compiler import redefine_aliases  # noqa: E402
from tile.ops.attention import ATTENTION  # noqa: E402
from tile.ops.decode import DECODE, DecodeConfig  # noqa: E402
from tile.ops.grouped import GROUPED, GROUPED_FP8  # noqa: E402
from tile.ops.epilogue import Epilogue  # noqa: E402
from tile.ops.matmul import GEMM, gemm_variant  # noqa: E402
from tile.ops.scaled_matmul import FP8  # noqa: E402
from tile.ops.staging import STAGE_ROWS, StageRowsConfig  # noqa: E402

FP8_TYPES = ("f8E4M3FN", "f8E5M2")
HALF = ("f16", "bf16")


def families():
    """(name, family, variant) of every product kernel variant."""
    for element in HALF:
        yield "gemm", GEMM, (element,)
        for tile_n in (224, 128, 64):
            yield "gemm", GEMM, gemm_variant(element, tile_n)
        yield "gemm", GEMM, gemm_variant(element, 128, Epilogue(activation="gelu"),
                                         pingpong=True)
        yield "gemm", GEMM, gemm_variant(element, 224, Epilogue(tma_c=False))
        yield "grouped", GROUPED, (element,)
        for count in (1, 2):
            yield "stage-rows", STAGE_ROWS, StageRowsConfig(element, count)
        for head_dim in (64, 128):
            for softcap in (False, True):
                yield "attention", ATTENTION, (element, softcap, head_dim, None, False)
            yield "attention-window", ATTENTION, (element, False, head_dim, None, False,
                                                  False, True)
            yield "attention-lse", ATTENTION, (element, False, head_dim, None, True)
            yield "attention-packed", ATTENTION, (element, False, head_dim, None, False, True)
            yield "attention-cache", ATTENTION, (element, False, head_dim, 16, False)
    for a, b, c in itertools.product(FP8_TYPES, FP8_TYPES, HALF):
        yield "fp8", FP8, (a, b, c)
        yield "grouped-fp8", GROUPED_FP8, (a, b, c)
    for config in (DecodeConfig("nt", 16, 12), DecodeConfig("nn", 8, 6, "bf16"),
                   DecodeConfig("nt", 32, 4, spans=2, split_k=True),
                   DecodeConfig("nt", 64, 6, "bf16", spans=2, split_k=True),
                   DecodeConfig("nn", 128, 6, columns=128), DecodeConfig("nt", 96, 5, spans=2)):
        yield "decode", DECODE, config


def examples():
    """(name, IR, chip) of every example in each element type it has."""
    for path in sorted((ROOT / "examples").glob("*.mlir")):
        text = path.read_text()
        chip = "sm_80" if "sm80" in path.name else "sm_90a"
        types = HALF if "\n!e = " in text else ("f16",)
        for element in types:
            source = redefine_aliases(text, {"!e": element}) if len(types) > 1 else text
            yield f"{path.name} {element}", source, chip


def main() -> None:
    for name, family, variant in families():
        ptx = family.module(variant).ptx
        print(f"{name} {variant} {hashlib.sha256(ptx.encode()).hexdigest()}")
    for name, source, chip in examples():
        ptx = tile.compile(source, chip=chip).ptx
        print(f"{name} {hashlib.sha256(ptx.encode()).hexdigest()}")


if __name__ == "__main__":
    main()
