"""The decode GEMM: C = A B for a small M (M <= 128), in tile IR.

A decode step multiplies a few rows of activations A (M x K) by a large
weight B; the work is streaming B from memory once. The kernel computes
C^T = B^T A^T: 64 or 128 columns of C per CTA (`columns`), with B's
`columns` x 64 K-slices as wgmma's A operand (m64, one or two) and A's
`rows` x 64 slices as its
B operand (n = `rows`, the smallest of 8, 16, 32, 64, 96, 128 that holds M), so a
stage holds 8 KB of B and only `rows` x 128 bytes of A (TMA fills the rows
beyond M with zeros without reading them). Warpgroup 0 (one thread of it)
fills a ring of `stages` stages with TMA; warpgroup 1 multiplies
(m64n`rows`k16, wait depth 1) and stores the `columns` x M tile transposed
(element by element, bounded). Layouts: "nt" (B is N x K, row-major: K-major
for wgmma) and "nn" (B is K x N, row-major: MN-major, wgmma's imm-trans-a).

    python3 -m tile gemm-decode --layout nt --rows 16 --stages 12

prints the module (`tile-opt --tile-to-ptx-pipeline` lowers it).
"""
from dataclasses import dataclass

#: wgmma's n for the M rows of a decode GEMM: the smallest that holds M
#: (TMA zero-fills the rows beyond M; 96 spares M = 65..96 32 of them).
ROWS = (8, 16, 32, 64, 96, 128)
#: Columns of C (rows of B^T) per CTA: one or two m64 wgmma tiles.
COLUMNS = (64, 128)
#: K per stage: one 128-byte swizzle span of 16-bit elements.
SLICE = 64
#: Threads: the producer warpgroup and the consumer warpgroup.
THREADS = 256


@dataclass(frozen=True)
class DecodeConfig:
    """One decode kernel: B's layout ("nt" or "nn"), wgmma's n (`rows`,
    M <= rows), the ring depth, the element type ("f16" or "bf16"), the
    columns of C a CTA computes (`columns`, 64 or 128) and the
    64-wide K spans per stage (`spans`: 1 or 2; two read 256 contiguous
    bytes of each B row of an N x K B per stage). With `split_k` the grid's
    y dimension splits K: CTA (x, y) takes the y-th of gridDim.y shares of
    the stages and tile.split_k_reduce sums the shares (the kernel then takes
    a workspace of (tiles x splits x 128) rows of rows / 2 f32 and a counter
    per tile, zero before the first launch)."""
    layout: str
    rows: int
    stages: int
    element: str = "f16"
    spans: int = 1
    split_k: bool = False
    columns: int = 64

    @property
    def name(self) -> str:
        suffix = ((f"_k{self.spans}" if self.spans != 1 else "")
                  + (f"_c{self.columns}" if self.columns != 64 else "")
                  + ("_sk" if self.split_k else ""))
        return f"gemm_decode_{self.layout}_r{self.rows}_s{self.stages}{suffix}"

    @property
    def stage_bytes(self) -> int:
        return (self.columns + self.rows) * SLICE * 2 * self.spans

    @property
    def accumulators(self) -> int:
        """f32 accumulators a consumer thread holds (the split-K workspace's
        columns)."""
        return self.columns // 64 * self.rows // 2

    @property
    def shared_bytes(self) -> int:
        """Dynamic shared memory: the two tile rings (the barriers are
        static)."""
        return self.stages * self.stage_bytes

    def validate(self) -> None:
        if self.layout not in ("nt", "nn"):
            raise ValueError(f"decode layout must be 'nt' or 'nn', got {self.layout!r}")
        if self.rows not in ROWS:
            raise ValueError(f"decode rows must be one of {ROWS}, got {self.rows}")
        if not 2 <= self.stages <= 64:
            raise ValueError(f"decode stages must be in [2, 64], got {self.stages}")
        if self.element not in ("f16", "bf16"):
            raise ValueError(f"decode element must be f16 or bf16, got {self.element}")
        if self.spans not in (1, 2):
            raise ValueError(f"decode spans must be 1 or 2, got {self.spans}")
        if self.columns not in COLUMNS:
            raise ValueError(f"decode columns must be one of {COLUMNS}, got {self.columns}")


def rows_for(m: int) -> int:
    """wgmma's n for M rows of A (M <= 128)."""
    for rows in ROWS:
        if m <= rows:
            return rows
    raise ValueError(f"the decode kernel takes M <= {ROWS[-1]}, got {m}")


def decode_source(config: DecodeConfig) -> str:
    """The module holding the kernel `config.name`."""
    config.validate()
    e, r, s, w = config.element, config.rows, config.stages, config.spans
    cols, chunks = config.columns, config.columns // 64
    nn = config.layout == "nn"
    # The rings, a stage of `w` K spans: A's r x 64 tiles; B's cols x 64
    # tiles, N x K rows (K-major) for nt, for nn K rows of cols / 64 spans of
    # 64 columns (MN-major chunks, one TMA box each).
    a_ring = f"memref<{s}x{w}x{r}x64x{e}, 3>"
    b_ring = (f"memref<{s}x{w}x{chunks}x64x64x{e}, 3>" if nn
              else f"memref<{s}x{w}x{cols}x64x{e}, 3>")
    transpose_a = ", transpose_a" if nn else ""
    copies, mmas = [], []
    for j in range(w):
        span = f"%c{j}" if j else "%c0"
        lines = [f"            %k{j} = arith.addi %kt, %c{64 * j} : index"]
        if nn:
            lines += [f"            tile.tma_copy %b[%k{j}, %n{q}] to %rb[%s, {span}, %c{q}], "
                      f"%full[%s] : !db, {b_ring}, !bars" for q in range(chunks)]
        else:
            lines.append(f"            tile.tma_copy %b[%n0, %k{j}] to %rb[%s, {span}], %full[%s] "
                         f": !db, {b_ring}, !bars")
        lines.append(f"            tile.tma_copy %a[%c0, %k{j}] to %ra[%s, {span}], %full[%s] "
                     f": !da, {a_ring}, !bars")
        copies.append("\n".join(lines))
        b_tile = (f"%rb[%s, {span}, %c0, %c0, %c0]" if nn else f"%rb[%s, {span}, %c0, %c0]")
        into = "%next_sum" if j == w - 1 else f"%sum{j + 1}"
        mmas.append(f"""          {into} = tile.warpgroup_mma {b_tile}, %ra[%s, {span}, %c0, %c0], %sum{j if j else ''}
              {{shape = array<i64: {cols}, {r}, 64>, wait = 1 : i32{transpose_a}}}
              : {b_ring}, {a_ring}, vector<{config.accumulators}xf32>""")
    copies_text, mmas_text = "\n".join(copies), "\n".join(mmas)
    half = config.accumulators
    chunk_columns = "".join(f"      %n{q} = arith.addi %n0, %c{64 * q} : index\n"
                            for q in range(1, chunks if nn else 1))
    if config.split_k:
        split_params = f", %ws: memref<?x{half}xf32>, %counters: memref<?xi32>"
        # Split y of gridDim.y takes stages [y slices / splits, (y + 1)
        # slices / splits): shares differ by at most one stage.
        split_range = """      %by = gpu.block_id y
      %splits = gpu.grid_dim y
      %by1 = arith.addi %by, %c1 : index
      %t0s = arith.muli %by, %slices : index
      %t0 = arith.divui %t0s, %splits : index
      %t1s = arith.muli %by1, %slices : index
      %t1 = arith.divui %t1s, %splits : index
"""
        lo, hi = "%t0", "%t1"
        epilogue = f"""        %last, %sum = tile.split_k_reduce %acc#0, %ws, %counters, tile %bx, split %by of %splits
            : vector<{half}xf32>, memref<?x{half}xf32>, memref<?xi32>
        scf.if %last {{
          tile.warpgroup_mma_store %sum, %c[%c0, %n0] bounds [%m, %n]
              {{shape = array<i64: {cols}, {r}>, transpose}} : vector<{half}xf32>, memref<?x?x{e}>
        }}"""
    else:
        split_params, split_range, lo, hi = "", "", "%c0", "%slices"
        epilogue = f"""        tile.warpgroup_mma_store %acc#0, %c[%c0, %n0] bounds [%m, %n]
            {{shape = array<i64: {cols}, {r}>, transpose}} : vector<{half}xf32>, memref<?x?x{e}>"""
    span_constants = "".join(f"      %c{j} = arith.constant {j} : index\n" for j in range(2, w))
    offset_constants = "".join(f"      %c{64 * j} = arith.constant {64 * j} : index\n"
                               for j in range(2, w))
    return f"""// {config.name}: C = A B{'' if nn else '^T'} for M <= {r} (python/tile/gemm_decode.py).
!da = !tile.tma_desc<memref<?x?x{e}>, box = [{r}, 64], swizzle = b128>
!db = !tile.tma_desc<memref<?x?x{e}>, box = [{64 if nn else cols}, 64], swizzle = b128>
!bars = !tile.mbarrier<count = {s}>
module attributes {{gpu.container_module}} {{
  gpu.module @kernels {{
    // CTA x computes C[0:M, {cols} x : {cols} x + {cols}] as the transpose of
    // B^T[{cols} x : {cols} x + {cols}, :] A^T, {64 * w} of K a stage.
    gpu.func @{config.name}(%a: !da, %b: !db, %c: memref<?x?x{e}>, %k: index{split_params}) kernel
        attributes {{known_block_size = array<i32: {THREADS}, 1, 1>}} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
{span_constants}      %c64 = arith.constant 64 : index
{offset_constants}      %c128 = arith.constant 128 : index
      %cs = arith.constant {s} : index
      %stage_k = arith.constant {64 * w} : index
      %stage_k1 = arith.constant {64 * w - 1} : index
      %copies = arith.constant {w * (1 + (chunks if nn else 1))} : i32
      %consumers = arith.constant 1 : i32
      %false = arith.constant false
      %true = arith.constant true
      %m = memref.dim %c, %c0 : memref<?x?x{e}>
      %n = memref.dim %c, %c1 : memref<?x?x{e}>
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %cols = arith.constant {cols} : index
      %n0 = arith.muli %bx, %cols : index
{chunk_columns}      %kr = arith.addi %k, %stage_k1 : index
      %slices = arith.divui %kr, %stage_k : index
{split_range}      %ra = tile.shared_alloc dynamic {{swizzle = #tile.swizzle<b128>}} : {a_ring}
      %rb = tile.shared_alloc dynamic {{swizzle = #tile.swizzle<b128>}} : {b_ring}
      %full = tile.mbarrier_alloc : !bars
      %empty = tile.mbarrier_alloc : !bars
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {{
        tile.tma_prefetch_descriptor %a : !da
        tile.tma_prefetch_descriptor %b : !db
        scf.for %i = %c0 to %cs step %c1 {{
          tile.mbarrier_init %full[%i], %copies : !bars
          tile.mbarrier_init %empty[%i], %consumers : !bars
        }}
      }}
      gpu.barrier
      // Warpgroup 0 produces (its first thread), warpgroup 1 consumes.
      %producer = arith.cmpi ult, %tid, %c128 : index
      scf.if %producer {{
        scf.if %first {{
          %p:2 = scf.for %t = {lo} to {hi} step %c1 iter_args(%s = %c0, %ph = %true) -> (index, i1) {{
            tile.mbarrier_wait_parity %empty[%s], %ph : !bars
            %kt = arith.muli %t, %stage_k : index
{copies_text}
            %next = arith.addi %s, %c1 : index
            %wrap = arith.cmpi eq, %next, %cs : index
            %ns = arith.select %wrap, %c0, %next : index
            %nph = arith.xori %ph, %wrap : i1
            scf.yield %ns, %nph : index, i1
          }}
        }}
      }} else {{
        // The consumer warpgroup's first thread (thread 128) releases a
        // stage once the next stage's wgmmas are issued (wait depth 1).
        %signals = arith.cmpi eq, %tid, %c128 : index
        %zero = arith.constant dense<0.0> : vector<{half}xf32>
        %acc:4 = scf.for %t = {lo} to {hi} step %c1
            iter_args(%sum = %zero, %s = %c0, %ph = %false, %prev = %c0)
            -> (vector<{half}xf32>, index, i1, index) {{
          tile.mbarrier_wait_parity %full[%s], %ph : !bars
{mmas_text}
          %later = arith.cmpi ugt, %t, {lo} : index
          %release = arith.andi %later, %signals : i1
          scf.if %release {{
            %tok = tile.mbarrier_arrive %empty[%prev] : !bars -> !tile.mbarrier_token
          }}
          %next = arith.addi %s, %c1 : index
          %wrap = arith.cmpi eq, %next, %cs : index
          %ns = arith.select %wrap, %c0, %next : index
          %nph = arith.xori %ph, %wrap : i1
          scf.yield %next_sum, %ns, %nph, %s : vector<{half}xf32>, index, i1, index
        }}
        tile.wgmma_wait_group 0
{epilogue}
      }}
      gpu.return
    }}
  }}
}}
"""
