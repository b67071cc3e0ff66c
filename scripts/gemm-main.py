#!/usr/bin/env python3
#===- gemm-main.py - A GEMM example with another @main ----------------------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Prints a GEMM kernel (examples/<gemm>.mlir or python/tile/kernels/) with
# its @main replaced by one that calls @run(m, n, k, reps, sampled[, extra])
# and prints "mismatches: N", its element type alias !e redefined to TYPE
# (tile.compiler.redefine_aliases, as the package and the benchmarks do).
# Used by scripts/sanitize-gemms.sh.
#
#   gemm-main.py EXAMPLE TYPE M N K REPS SAMPLED [EXTRA_ARGS EXTRA_TYPES]
# e.g. gemm-main.py examples/hgemm_sm80.mlir f16 4096 4096 4096 20 true ", %nn" ", i1"
# (%nn and %nt are the `transposed` flags false and true: C = A B, C = A B^T).
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from tile.compiler import redefine_aliases  # noqa: E402

path, type_, m, n, k, reps, sampled = sys.argv[1:8]
args, types = (sys.argv[8:10] + ["", ""])[:2]
text = redefine_aliases(open(path).read(), {"!e": type_})
text = text[:text.index("  func.func @main() {")]
print(text + f"""  func.func @main() {{
    %reps = arith.constant {reps} : index
    %sampled = arith.constant {sampled}
    %nn = arith.constant false
    %nt = arith.constant true
    %m = arith.constant {m} : index
    %n = arith.constant {n} : index
    %k = arith.constant {k} : index
    %bad = func.call @run(%m, %n, %k, %reps, %sampled{args})
        : (index, index, index, index, i1{types}) -> i32
    vector.print str "mismatches: "
    vector.print %bad : i32
    return
  }}
}}""")
