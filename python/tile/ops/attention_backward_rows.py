"""The attention backward's per-row inputs, one generated tile kernel (as
cuDNN's dot(dO, O) step): for each query row of each head,

    ndelta = -rowsum(dO * O)     (f32 products and sum of the 16-bit rows)
    nlse                         (the forward's, copied)

written to rows of `pitch` values a head (pitch: Sq rounded up to whole
128-query tiles, tile.ops.attention_backward.ROW_TILE), -inf and 0 past Sq:
the layout whose tiles the dK/dV kernel bulk-copies into shared memory.
Packed sequences (`varlen`): dO and O are (1, H, total, D) views, sequence
b's rows cu_q[b] .. cu_q[b + 1] (clamped to the rows and to `pitch`), its
rows of nlse and ndelta those of (b, h) as for a batch of B sequences of
`pitch` queries, -inf and 0 past its length; nlse as the forward saved it
there (`sq` = pitch).
dO and O are read once, 16-byte vectors, D / 8 lanes a row (a lane group
reduction, `tile.reduce add ... over warp, lanes D/8`); a 1-D grid of
256-thread CTAs over B H pitch rows, 64-bit offsets.

    python3 -m tile attention-backward --rows [--element f16|bf16] [--head-dim 64|128]
"""
from dataclasses import dataclass

from ..core.operands import cdiv
from ..family import KernelFamily
from .kernel_text import index_constants, kernel_module, linear_ids

#: Threads of a CTA.
THREADS = 256
#: Elements of a 16-byte vector.
VECTOR = 8


@dataclass(frozen=True)
class RowsConfig:
    """One kernel: element type ("f16"/"bf16") and head dim (64 or 128)."""
    element: str = "bf16"
    head_dim: int = 128

    @property
    def lanes(self) -> int:
        """Threads a row: its 16-byte vectors."""
        return self.head_dim // VECTOR

    def validate(self) -> None:
        if self.element not in ("f16", "bf16"):
            raise ValueError(f"attention backward rows: f16 or bf16, got {self.element}")
        if self.head_dim not in (64, 128):
            raise ValueError(f"attention backward rows: D = 64 or 128, got {self.head_dim}")


def rows_source(config: RowsConfig) -> str:
    """The module holding @attention_bwd_rows for `config`."""
    config.validate()
    e, lanes = config.element, config.lanes
    vec, wide = f"vector<{VECTOR}x{e}>", f"vector<{VECTOR}xf32>"
    heads_t = f"memref<?x?x?x?x{e}, strided<[?, ?, ?, 1], offset: ?>>"
    header = [f"// attention_bwd_rows: -rowsum(dO * O) and nlse in rows of whole row "
              f"tiles, {e}, D = {config.head_dim}",
              f"// (tile.ops.attention_backward_rows): {lanes} lanes a row, a 16-byte vector "
              f"of dO and of O each."]
    params = [f"%do: {heads_t}", f"%o: {heads_t}", "%nlse: memref<?xf32>",
              "%nlse_rows: memref<?xf32>", "%ndelta_rows: memref<?xf32>", "%pitch: index",
              "%batch: index", "%sq: index", "%varlen: i1", "%cu_q: memref<?xi32>"]
    constants = index_constants(c0=0, c1=1, c2=2, c_vector=VECTOR, c_lanes=lanes,
                                c_threads=THREADS)
    constants += [f"%zeros = arith.constant dense<0.0> : {vec}",
                  "%zero = arith.constant 0.0 : f32", "%ninf = arith.constant 0xFF800000 : f32"]
    body = f"""
%heads = memref.dim %do, %c1 : {heads_t}
%bh_all = arith.muli %batch, %heads : index
%rows = arith.muli %bh_all, %pitch : index
// Row gid / lanes: query i of head bh (b, h); lane gid mod lanes.
%row = arith.divui %gid, %c_lanes : index
%lane = arith.remui %gid, %c_lanes : index
%bh = arith.divui %row, %pitch : index
%i = arith.remui %row, %pitch : index
%b = arith.divui %bh, %heads : index
%h = arith.remui %bh, %heads : index
%in_rows = arith.cmpi ult, %row, %rows : index
// The sequence's first row and length: all of Sq, or packed sequence b.
%packed = arith.andi %varlen, %in_rows : i1
%row0, %len = scf.if %packed -> (index, index) {{
  %b1 = arith.addi %b, %c1 : index
  %q0_i32 = memref.load %cu_q[%b] : memref<?xi32>
  %q1_i32 = memref.load %cu_q[%b1] : memref<?xi32>
  %q0_raw = arith.index_cast %q0_i32 : i32 to index
  %q1_raw = arith.index_cast %q1_i32 : i32 to index
  %total = memref.dim %do, %c2 : {heads_t}
  %q0_pos = arith.maxsi %q0_raw, %c0 : index
  %q0 = arith.minsi %q0_pos, %total : index
  %q1_lo = arith.maxsi %q1_raw, %q0 : index
  %q1 = arith.minsi %q1_lo, %total : index
  %length = arith.subi %q1, %q0 : index
  %bounded = arith.minsi %length, %pitch : index
  scf.yield %q0, %bounded : index, index
}} else {{
  scf.yield %c0, %sq : index, index
}}
%bt = arith.select %varlen, %c0, %b : index
%at_row = arith.addi %row0, %i : index
%in_sq = arith.cmpi ult, %i, %len : index
%live = arith.andi %in_rows, %in_sq : i1
%col = arith.muli %lane, %c_vector : index
%dof, %of = scf.if %live -> ({vec}, {vec}) {{
  %d = vector.load %do[%bt, %h, %at_row, %col] {{alignment = 16}} : {heads_t}, {vec}
  %x = vector.load %o[%bt, %h, %at_row, %col] {{alignment = 16}} : {heads_t}, {vec}
  scf.yield %d, %x : {vec}, {vec}
}} else {{
  scf.yield %zeros, %zeros : {vec}, {vec}
}}
%dw = arith.extf %dof : {vec} to {wide}
%ow = arith.extf %of : {vec} to {wide}
%products = arith.mulf %dw, %ow : {wide}
%mine = vector.reduction <add>, %products : {wide} into f32
%sum = tile.reduce add %mine over warp, lanes {lanes} : f32
%leads = arith.cmpi eq, %lane, %c0 : index
%writes = arith.andi %leads, %in_rows : i1
scf.if %writes {{
  %nd = arith.subf %zero, %sum : f32
  %at = arith.muli %bh, %sq : index
  %src = arith.addi %at, %i : index
  %lse = scf.if %in_sq -> (f32) {{
    %v = memref.load %nlse[%src] : memref<?xf32>
    scf.yield %v : f32
  }} else {{
    scf.yield %ninf : f32
  }}
  memref.store %nd, %ndelta_rows[%row] : memref<?xf32>
  memref.store %lse, %nlse_rows[%row] : memref<?xf32>
}}
""".strip("\n").split("\n")
    return kernel_module(header, "attention_bwd_rows", params, THREADS,
                         constants + linear_ids() + body)


#: The kernels, keyed by RowsConfig (64-bit offsets).
ATTENTION_BACKWARD_ROWS = KernelFamily("attention_bwd_rows", rows_source)


def grid(config: RowsConfig, rows: int):
    """CTAs for `rows` rows (B H pitch)."""
    return (cdiv(rows * config.lanes, THREADS), 1, 1)
