"""The attention backward's per-row inputs, one generated tile kernel (as
cuDNN's dot(dO, O) step): for each query row of each head,

    ndelta = -rowsum(dO * O)     (f32 products and sum of the 16-bit rows)
    nlse                         (the forward's, copied)

written to rows of `pitch` values a head (pitch: Sq rounded up to whole
128-query tiles, ROW_TILE), -inf and 0 past Sq: the layout whose tiles the
backward kernels bulk-copy into shared memory.
Packed sequences (`varlen`, FlashAttention's varlen layout): dO and O are
(1, H, total, D) views, sequence b's rows cu_q[b] .. cu_q[b + 1] (clamped
to the rows, its length to `sq`); nlse and ndelta in H rows of `pitch` =
packed_pitch(total, B) slots, sequence b's from slot start_b = cu_q[b] + 128
b rounded down to a row tile, whole row tiles of it (-inf and 0 past its
length): B sequences take at most total + 128 B slots a head, not B
max_seqlen. A thread finds its slot's sequence by a binary search of the
starts. nlse as the forward saved it: (B H Sq), or packed (H, total).
dO and O are read once, 16-byte vectors, D / 8 lanes a row (a lane group
reduction, `tile.reduce add ... over warp, lanes D/8`); a 1-D grid of
CTAs, one a row tile (one sequence's: one search a CTA), each thread a lane
of PASSES rows, all their loads issued before the sums; 64-bit offsets.

    python3 -m tile attention-backward --rows [--element f16|bf16] [--head-dim 64|128]
"""
from dataclasses import dataclass

from ..core.operands import cdiv
from ..family import KernelFamily
from .kernel_text import index_constants, kernel_module, linear_ids

#: Rows a thread takes of its CTA's row tile (one lane of each): the CTA
#: has ROW_TILE lanes / PASSES threads (512 at D = 128, 256 at D = 64).
PASSES = 4
#: Elements of a 16-byte vector.
VECTOR = 8
#: Queries a row tile of nlse and ndelta, which the backward kernels take in
#: whole tiles (bulk copies of a query tile's values): a multiple of every
#: query tile.
ROW_TILE = 128


def row_pitch(queries: int) -> int:
    """The slots of nlse and ndelta a head takes for `queries` queries:
    whole row tiles."""
    return cdiv(queries, ROW_TILE) * ROW_TILE


def packed_start(offset: int, b: int) -> int:
    """The slot of packed sequence b's first row of nlse and ndelta in each
    head's row (offset: its first query, cu_q[b]), as the kernels compute
    it: offset + ROW_TILE b rounded down to a row tile."""
    return (offset + ROW_TILE * b) // ROW_TILE * ROW_TILE


def packed_pitch(total: int, batch: int) -> int:
    """The slots of nlse and ndelta a head takes for `batch` packed
    sequences of `total` queries: sequence b's whole row tiles from
    packed_start end by total + ROW_TILE b + ROW_TILE - 1 at most, before
    the next one's start."""
    return row_pitch(total + ROW_TILE * batch)


@dataclass(frozen=True)
class RowsConfig:
    """One kernel: element type ("f16"/"bf16") and head dim (64 or 128)."""
    element: str = "bf16"
    head_dim: int = 128

    @property
    def lanes(self) -> int:
        """Threads a row: its 16-byte vectors."""
        return self.head_dim // VECTOR

    @property
    def threads(self) -> int:
        """Threads of a CTA: a row tile's lanes over PASSES."""
        return ROW_TILE * self.lanes // PASSES

    def validate(self) -> None:
        if self.element not in ("f16", "bf16"):
            raise ValueError(f"attention backward rows: f16 or bf16, got {self.element}")
        if self.head_dim not in (64, 128):
            raise ValueError(f"attention backward rows: D = 64 or 128, got {self.head_dim}")


def _sequence_start(b: str, name: str) -> str:
    """Lines computing packed sequence `b`'s first query row %{name}_q0
    (cu_q[b] clamped to the rows) and its row statistics' first slot
    %{name}_start (packed_start: %{name}_q0 + 128 b rounded down to a row
    tile, as the backward kernels place it)."""
    return f"""%{name}_i32 = memref.load %cu_q[{b}] : memref<?xi32>
%{name}_raw = arith.index_cast %{name}_i32 : i32 to index
%{name}_pos = arith.maxsi %{name}_raw, %c0 : index
%{name}_q0 = arith.minsi %{name}_pos, %total : index
%{name}_tiles_at = arith.muli {b}, %c_tile : index
%{name}_b = arith.addi %{name}_q0, %{name}_tiles_at : index
%{name}_tiles = arith.divui %{name}_b, %c_tile : index
%{name}_start = arith.muli %{name}_tiles, %c_tile : index"""


def _indented(text: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line for line in text.split("\n"))


def rows_source(config: RowsConfig) -> str:
    """The module holding @attention_bwd_rows for `config`."""
    config.validate()
    e, lanes = config.element, config.lanes
    threads = config.threads
    per_pass = threads // lanes
    vec, wide = f"vector<{VECTOR}x{e}>", f"vector<{VECTOR}xf32>"
    heads_t = f"memref<?x?x?x?x{e}, strided<[?, ?, ?, 1], offset: ?>>"
    header = [f"// attention_bwd_rows: -rowsum(dO * O) and nlse in rows of whole row "
              f"tiles, {e}, D = {config.head_dim}",
              f"// (tile.ops.attention_backward_rows): a CTA a row tile of {ROW_TILE} slots, "
              f"{lanes} lanes a row, a 16-byte vector of dO and of O each, {PASSES} rows a "
              "thread."]
    params = [f"%do: {heads_t}", f"%o: {heads_t}", "%nlse: memref<?xf32>",
              "%nlse_rows: memref<?xf32>", "%ndelta_rows: memref<?xf32>", "%pitch: index",
              "%batch: index", "%sq: index", "%varlen: i1", "%cu_q: memref<?xi32>"]
    constants = index_constants(c0=0, c1=1, c2=2, c_vector=VECTOR, c_lanes=lanes,
                                c_threads=threads, c_tile=ROW_TILE, c_tile_1=ROW_TILE - 1)
    constants += [f"%zeros = arith.constant dense<0.0> : {vec}",
                  "%zero = arith.constant 0.0 : f32", "%ninf = arith.constant 0xFF800000 : f32"]
    body = f"""
%heads = memref.dim %do, %c1 : {heads_t}
%total = memref.dim %do, %c2 : {heads_t}
// Rows of `pitch` slots (whole row tiles): B H of them (dense, head (b,
// h)'s the (b H + h)th) or H (packed, head h's the hth). CTA %bid: the
// row tile of slots slot0 .. slot0 + {ROW_TILE} of row %hq.
%row0 = arith.muli %bid, %c_tile : index
%hq = arith.divui %row0, %pitch : index
%slot0 = arith.remui %row0, %pitch : index
// The tile's head, the row of its first query in dO and O, that query's
// index in its sequence, the sequence's length and the end of its row
// tiles, and where the forward saved the query's nlse ((b H + h) Sq + i,
// or packed h total + cu_q[b] + i).
%h, %row_first, %i_first, %len, %tiles_end, %src_first = scf.if %varlen
    -> (index, index, index, index, index, index) {{
  // Sequence b: the last whose start_b <= slot0, by a binary search of the
  // starts (nondecreasing where cu_q is); start_b = clamped cu_q[b] + 128 b
  // rounded down to a row tile, as the backward kernels place it.
  %found:2 = scf.while (%lo = %c0, %hi = %batch) : (index, index) -> (index, index) {{
    %span = arith.subi %hi, %lo : index
    %more = arith.cmpi ugt, %span, %c1 : index
    scf.condition(%more) %lo, %hi : index, index
  }} do {{
  ^bb0(%lo_: index, %hi_: index):
    %sum = arith.addi %lo_, %hi_ : index
    %mid = arith.divui %sum, %c2 : index
{_indented(_sequence_start("%mid", "mid"), 4)}
    %before = arith.cmpi ule, %mid_start, %slot0 : index
    %lo_next = arith.select %before, %mid, %lo_ : index
    %hi_next = arith.select %before, %hi_, %mid : index
    scf.yield %lo_next, %hi_next : index, index
  }}
  %b1 = arith.addi %found#0, %c1 : index
  %q1_i32 = memref.load %cu_q[%b1] : memref<?xi32>
{_indented(_sequence_start("%found#0", "seq"), 2)}
  %q1_raw = arith.index_cast %q1_i32 : i32 to index
  %q0 = arith.addi %seq_q0, %c0 : index
  %start = arith.addi %seq_start, %c0 : index
  %q1_lo = arith.maxsi %q1_raw, %q0 : index
  %q1 = arith.minsi %q1_lo, %total : index
  %length = arith.subi %q1, %q0 : index
  %bounded = arith.minsi %length, %sq : index
  // A tile before the first sequence's start (bad cu_q) is no query's.
  %after = arith.cmpi uge, %slot0, %start : index
  %i_raw = arith.subi %slot0, %start : index
  %i_seq = arith.select %after, %i_raw, %pitch : index
  %row_at = arith.addi %q0, %i_seq : index
  %len_up = arith.addi %bounded, %c_tile_1 : index
  %len_tiles = arith.divui %len_up, %c_tile : index
  %end = arith.muli %len_tiles, %c_tile : index
  %head_src = arith.muli %hq, %total : index
  %src_q0 = arith.addi %head_src, %q0 : index
  %src_packed = arith.addi %src_q0, %i_seq : index
  scf.yield %hq, %row_at, %i_seq, %bounded, %end, %src_packed
      : index, index, index, index, index, index
}} else {{
  %h_dense = arith.remui %hq, %heads : index
  %src_row0 = arith.muli %hq, %sq : index
  %src_dense = arith.addi %src_row0, %slot0 : index
  scf.yield %h_dense, %slot0, %slot0, %sq, %pitch, %src_dense
      : index, index, index, index, index, index
}}
%b_dense = arith.divui %hq, %heads : index
%bt = arith.select %varlen, %c0, %b_dense : index
// A tile between packed sequences' row tiles is never read: nothing to do.
%used = arith.cmpi ult, %i_first, %tiles_end : index
scf.if %used {{
  // Thread tid: lane tid mod lanes of rows tid / lanes + {per_pass} p of
  // the tile.
  %r_first = arith.divui %tid, %c_lanes : index
  %lane = arith.remui %tid, %c_lanes : index
  %col = arith.muli %lane, %c_vector : index
  %leads = arith.cmpi eq, %lane, %c0 : index
""".strip("\n").split("\n")
    # Every pass's loads first (all in flight together: dO, O and the
    # forward's nlse), then the sums, then the stores.
    for p in range(PASSES):
        body += f"""
  %r{p} = arith.addi %r_first, %c_r{p} : index
  %i{p} = arith.addi %i_first, %r{p} : index
  %live{p} = arith.cmpi ult, %i{p}, %len : index
  %at{p} = arith.addi %row_first, %r{p} : index
  %dof{p}, %of{p}, %lse{p} = scf.if %live{p} -> ({vec}, {vec}, f32) {{
    %d = vector.load %do[%bt, %h, %at{p}, %col] {{alignment = 16}} : {heads_t}, {vec}
    %x = vector.load %o[%bt, %h, %at{p}, %col] {{alignment = 16}} : {heads_t}, {vec}
    %src = arith.addi %src_first, %r{p} : index
    %v = memref.load %nlse[%src] : memref<?xf32>
    scf.yield %d, %x, %v : {vec}, {vec}, f32
  }} else {{
    scf.yield %zeros, %zeros, %ninf : {vec}, {vec}, f32
  }}""".strip("\n").split("\n")
    for p in range(PASSES):
        body += f"""
  %dw{p} = arith.extf %dof{p} : {vec} to {wide}
  %ow{p} = arith.extf %of{p} : {vec} to {wide}
  %products{p} = arith.mulf %dw{p}, %ow{p} : {wide}
  %mine{p} = vector.reduction <add>, %products{p} : {wide} into f32
  %sum{p} = tile.reduce add %mine{p} over warp, lanes {lanes} : f32""".strip("\n").split("\n")
    # Every slot of the tile: nlse and ndelta, -inf and 0 past the length.
    body += ["  scf.if %leads {"]
    for p in range(PASSES):
        body += f"""
    %nd{p} = arith.subf %zero, %sum{p} : f32
    %out{p} = arith.addi %row0, %r{p} : index
    memref.store %nd{p}, %ndelta_rows[%out{p}] : memref<?xf32>
    memref.store %lse{p}, %nlse_rows[%out{p}] : memref<?xf32>""".strip("\n").split("\n")
    body += ["  }", "}"]
    constants += index_constants(**{f"c_r{p}": p * per_pass for p in range(PASSES)})
    return kernel_module(header, "attention_bwd_rows", params, threads,
                         constants + linear_ids() + body)


#: The kernels, keyed by RowsConfig (64-bit offsets).
ATTENTION_BACKWARD_ROWS = KernelFamily("attention_bwd_rows", rows_source)


def grid(config: RowsConfig, rows: int):
    """CTAs for `rows` slots (B H pitch, packed H pitch: whole row tiles),
    one a row tile."""
    return (cdiv(rows, ROW_TILE), 1, 1)
