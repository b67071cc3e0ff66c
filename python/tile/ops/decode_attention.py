"""Attention against a KV cache (decode, and queries appended to a cache):
split-KV kernels generated in tile IR, and their choice for a shape.

A decode step reads the whole KV cache once for a few queries: the work is
streaming K and V from memory. The kernel packs the queries of one KV head
into the rows of a 64-row wgmma tile (row p is query t = p / G of head
g G + p mod G for G query heads per KV head: GQA's group shares each K and V
block), and splits each sequence's keys (flash-decoding) into items
(split, (g, row tile), b) that one persistent CTA per SM takes in turn, its
K/V ring running on from one item into the next; the splits are chosen so
that the busiest CTA has little more than its share (num_splits). Where the
units (b, g, row tile) outnumber the SMs and the items' rounds would leave
SMs idle, each CTA instead streams an equal range of all the units' key
blocks (a stream-K schedule, streams_units): a unit the ranges cut is an
item for each CTA whose range meets it, combined as splits are; the
others are whole. Per item:

- warpgroup 0 streams 128-key blocks of K and V into a ring of `stages`
  stages: one thread with TMA for a contiguous cache (B, S, Hkv, D), one
  page per sequence, or a paged cache (num_blocks, page, Hkv, D) through
  the block table, a page of 64 tokens filling half a block (row-range
  copies, T-TMA-24); pages of 16 and 32 tokens are gathered by all 128
  threads with cp.async (a warp's 16-byte pieces whole rows; TMA boxes that
  small are more than the SM's TMA unit issues in a block's time);
- warpgroups 1 and 2 (the consumers) load the Q rows into shared memory
  (generic loads: Q is B x Sq x H x D, any strides), then take the blocks
  in turn (block k of the CTA's stream by consumer k mod 2): per block S =
  Q K^T (wgmma), masks keys past the sequence (and, causal, after the
  bottom-right diagonal: query t sees keys j <= seqlen - Sq + t), the
  online softmax, O += P V (P in registers); the second hands its rows'
  (m, l, O) to the first through shared memory, which merges them and
  writes the normalized O rows (f32) and their log2 sum-exp to a
  workspace; in eager calls, where a unit has at most
  FUSED_COMBINE_ROWS rows, it counts its split in on the unit's counter,
  and the unit's last split (the counter's last taker, which resets it)
  weighs the splits' rows by exp2(lse - max) and writes out[b, t, h, :],
  one warp a row: one launch;
- else (and under CUDA graph capture) @decode_attention_combine (one warp
  per output row) does the same;
- with one split and one query (a batch that fills the SMs) the kernel
  writes a contiguous out itself (row tile rt: rows b H + g G + 64 rt
  ..), no combine; streamed, so does a whole unit's item, and the combine
  kernel passes over its rows.

    python3 -m tile attention-decode --head-dim 128 --page 16

prints the module (`tile-opt --tile-to-ptx-pipeline` lowers it).
"""
import re
import textwrap
import threading
from dataclasses import dataclass

from ..family import KernelFamily
from ..core import streams
from ..core.caches import LruCache
from ..core.operands import cdiv

#: Keys per block: the wgmma's N of S = Q K^T and K of O += P V.
KEY_BLOCK = 128
#: Query rows per CTA: one m64 wgmma tile.
ROW_TILE = 64
#: Rows of a TMA box of K or V: a page of fewer than 128 tokens fills a
#: block with 128 / page copies; larger pages (multiples of 128) take one.
PAGE_ROWS = (16, 32, 64, 128)
#: Head dimensions.
HEAD_DIMS = (64, 128)
#: Consumer warpgroups a CTA: they take a unit's key blocks in turn (block
#: k of a CTA's stream by consumer k mod 2) and merge their rows' (m, l, O)
#: in shared memory before the epilogue: two warps a scheduler on a block's
#: softmax, whose one warp's latency bounded a CTA's block rate with one
#: consumer (bench/NOTES.md, "The decode consumer, measured").
CONSUMERS = 2
#: Threads: the producer warpgroup and the consumers.
THREADS = 128 * (1 + CONSUMERS)
#: Output rows per CTA of the combine kernel (one warp each).
COMBINE_ROWS = 2
#: Rows of a unit (Sq x group, at most ROW_TILE) that its last split
#: combines itself in eager calls, one per consumer warp (the consumer
#: warpgroup's four), instead of the combine kernel: one launch less (5-7
#: µs of host time a call, H200), for a longer tail on the GPU (the split's
#: rows released and counted before the last reads them: +0.1-0.5 µs a call
#: at 4 rows, +1.2 µs at 8, two a warp in turn), which CUDA graphs,
#: launching for free, do not take. Only where each CTA takes one item: a
#: CTA's later items wait behind the combine (its rows released, counted
#: and read back), which cost 1.5-3 µs an item on an H200 (batch 30, 8
#: splits: 179 µs against 137 with the combine kernel).
FUSED_COMBINE_ROWS = 4
#: Splits the combine reads at a time (their loads in flight together).
COMBINE_UNROLL = 16
#: The most splits of a sequence: the combine's lanes hold two each.
MAX_SPLITS = 64
#: Pages of fewer tokens are gathered by cp.async: their TMA boxes (16 or
#: 32 rows of a 64-column chunk, 2 or 4 KB) are more than an SM's TMA unit
#: issues in a block's time (16-token pages: 32 boxes a block, K and V).
GATHER_BELOW = 64
#: The most elements a gathered pool may span (its last element's offset
#: from the first below 2^31: the kernels' 32-bit indices).
GATHER_REACH = 2**31 - 1
#: The consumers' named barrier after they store Q (ids 0-8 belong to
#: gpu.barrier and the tile ops' warpgroups, T-BAR-1).
Q_BARRIER = 9
#: Consumer w's own named barrier is OWN_BARRIERS + w.
OWN_BARRIERS = 10
#: The two consumers' barrier between the second's merge stores and the
#: first's loads.
MERGE_BARRIER = 12


@dataclass(frozen=True)
class DecodeAttentionConfig:
    """One decode attention kernel: element type ("f16"/"bf16"), head dim,
    rows of a K/V TMA box (`page_rows`, PAGE_ROWS) and ring stages."""
    element: str = "bf16"
    head_dim: int = 128
    page_rows: int = 128
    #: K+V stages; 0: 128 KB of them (2 of 64 KB for D = 128, 4 of 32 KB
    #: for D = 64). Measured on an H100 (batch 16 and 64, 4k and 32k keys):
    #: three stages of 64 KB ran 2-3% slower than two.
    ring: int = 0
    #: Pages below GATHER_BELOW tokens gathered by cp.async; False: by TMA
    #: boxes as larger pages are (a pool whose elements reach past 2^31:
    #: the gathers' 32-bit addresses do not get there, TMA's coordinates
    #: do; config_for).
    gather: bool = True

    @property
    def registers(self) -> tuple:
        """setmaxnreg's (producer, consumer) split: 24 / 240 (504 of the 504
        a thread slot: 65,536 / 384 threads, rounded down to 8), and where
        128 producer threads gather, the fewest consumer registers that do
        not spill (ptxas): 56 / 224 for 16-row pages, 72 / 216 for 32-row
        pages (their gathers' addresses spill at 56); the same for pages
        that small by TMA boxes (the producer's eight or four page ids a
        block in flight spill at 24)."""
        if self.page_rows >= GATHER_BELOW:
            return 24, 240
        return (56, 224) if self.page_rows == 16 else (72, 216)

    @property
    def stages(self) -> int:
        return self.ring or (2 if self.head_dim == 128 else 4)

    @property
    def chunks(self) -> int:
        """64-wide (128-byte swizzle span) chunks of a row."""
        return self.head_dim // 64

    @property
    def copies(self) -> int:
        """TMA copies per chunk of a block."""
        return KEY_BLOCK // self.page_rows

    @property
    def gathers(self) -> bool:
        """Pages below GATHER_BELOW tokens come by cp.async, a row a
        producer thread (TMA boxes of 2-4 KB are too many a block)."""
        return self.page_rows < GATHER_BELOW and self.gather

    @property
    def name(self) -> str:
        suffix = f"_s{self.ring}" if self.ring else ""
        if self.page_rows < GATHER_BELOW and not self.gather:
            suffix += "_boxes"
        return f"decode_attention_d{self.head_dim}_p{self.page_rows}{suffix}"

    def validate(self) -> None:
        if self.element not in ("f16", "bf16"):
            raise ValueError(f"decode attention element must be f16 or bf16, got {self.element}")
        if self.head_dim not in HEAD_DIMS:
            raise ValueError(f"decode attention head dim must be 64 or 128, got {self.head_dim}")
        if self.page_rows not in PAGE_ROWS:
            raise ValueError(f"decode attention page rows must be one of {PAGE_ROWS}, got "
                             f"{self.page_rows}")
        if self.stages % CONSUMERS:
            # Consumer w takes the blocks of the stages s = w mod 2.
            raise ValueError(f"decode attention's {CONSUMERS} consumers need a multiple of "
                             f"{CONSUMERS} stages, got {self.stages}")


#: IR of streamed unit %unit's capacity blocks [%ubase, %uend) and its
#: pieces %unit_pieces_s (the CTAs whose ranges of blocks_per_split blocks
#: meet them): the kernel's items and the combine kernel both count them.
UNIT_PIECES_IR = """%ubase = arith.muli %unit, %unit_blocks : index
%uend = arith.addi %ubase, %unit_blocks : index
%ulast = arith.subi %uend, %c1 : index
%ufirst_cta = arith.divui %ubase, %blocks_per_split : index
%ulast_cta = arith.divui %ulast, %blocks_per_split : index
%unit_pieces_s1 = arith.subi %ulast_cta, %ufirst_cta : index
%unit_pieces_s = arith.addi %unit_pieces_s1, %c1 : index"""

#: IR of a work item's decoding, the same in the producer and the consumers:
#: (split, g row_tiles + rt, b) from %item, the sequence's keys (seqlens[b]
#: + %added, or %length; at most its pages' capacity), the split's key
#: blocks [j0, j1) and its unit's pieces (%unit_pieces: its splits). Split
#: items: %item is split + splits unit, and split s takes blocks
#: [s n, s n + n) of the sequence's own blocks, n = cdiv(its blocks,
#: splits): its keys, not the capacity the splits were chosen for, are
#: divided (a cache of 32k keys holding 4k splits its 4k). Streamed:
#: %item is the unit, whose capacity blocks are [unit unit_blocks, ...)
#: of the CTAs' global block ranges
#: (blocks_per_split each), and the split is the CTA's rank among those
#: whose range meets the unit's (UNIT_PIECES_IR).
ITEM_IR = """%split_n = arith.remui %item, %splits : index
%rest_n = arith.divui %item, %splits : index
%rest = arith.select %stream, %item, %rest_n : index
""" + UNIT_PIECES_IR.replace("%unit,", "%item,") + """
%split_s = arith.subi %cta, %ufirst_cta : index
%split = arith.select %stream, %split_s, %split_n : index
%unit_pieces = arith.select %stream, %unit_pieces_s, %splits : index
%gr = arith.remui %rest, %units_b : index
%b = arith.divui %rest, %units_b : index
%g = arith.divui %gr, %row_tiles : index
%rt = arith.remui %gr, %row_tiles : index
%seqlen_raw = scf.if %per_sequence -> (index) {
  %seqlen_i32 = memref.load %seqlens[%b] : memref<?xi32>
  %seqlen_b = arith.index_cast %seqlen_i32 : i32 to index
  %seqlen_added = arith.addi %seqlen_b, %added : index
  scf.yield %seqlen_added : index
} else {
  scf.yield %length : index
}
%seqlen_pos = arith.maxsi %seqlen_raw, %c0 : index
%seqlen = arith.minui %seqlen_pos, %capacity : index
%seqlen127 = arith.addi %seqlen, %c127 : index
%blocks = arith.divui %seqlen127, %c128 : index
%lo_g = arith.maxui %range_lo, %ubase : index
%lo_s = arith.subi %lo_g, %ubase : index
%hi_g = arith.minui %range_hi, %uend : index
%hi_s = arith.subi %hi_g, %ubase : index
%splits_less1 = arith.subi %splits, %c1 : index
%blocks_up = arith.addi %blocks, %splits_less1 : index
%split_blocks = arith.divui %blocks_up, %splits : index
%j0_n = arith.muli %split, %split_blocks : index
%j0_raw = arith.select %stream, %lo_s, %j0_n : index
%j0 = arith.minui %j0_raw, %blocks : index
%j1_n = arith.addi %j0, %split_blocks : index
%j1_raw = arith.select %stream, %hi_s, %j1_n : index
%j1 = arith.minui %j1_raw, %blocks : index"""


def butterfly(value: str, result: str, combine: str) -> str:
    """IR of a warp butterfly (shuffle xor 16, 8, 4, 2, 1) reducing f32
    `value` with arith `combine` into `result` in every lane."""
    lines, current = [], value
    for offset in (16, 8, 4, 2, 1):
        name = f"{result}_{offset}" if offset > 1 else result
        lines += [f"        {name}_k = arith.constant {offset} : i32",
                  f"        {name}_x, {name}_ok = gpu.shuffle xor {current}, {name}_k, %width : f32",
                  f"        {name} = arith.{combine} {current}, {name}_x : f32"]
        current = name
    return "\n".join(lines)


def lane_lse(suffix: str, split: str) -> str:
    """IR of %lse_{suffix}: the log-sum-exp of split `split` of the
    combine's row (-inf past the last split)."""
    return f"""        %has_{suffix} = arith.cmpi ult, {split}, %splits : index
        %lse_{suffix} = scf.if %has_{suffix} -> (f32) {{
          %at_{suffix}0 = arith.muli {split}, %stride : index
          %at_{suffix} = arith.addi %at_{suffix}0, %base : index
          %x_{suffix} = memref.load %ws_lse[%at_{suffix}] : memref<?xf32>
          scf.yield %x_{suffix} : f32
        }} else {{
          scf.yield %ninf : f32
        }}"""


def combine_loads(unroll: int, prefix: str, start: str, indent: int) -> str:
    """IR loading the rows of `unroll` splits `start` + i (the last split's
    row again past it) into %{prefix}part0.. (their loads in flight
    together)."""
    lines = []
    for i in range(unroll):
        n = f"%{prefix}"
        lines += [
            f"{n}si{i}_c = arith.constant {i} : index",
            f"{n}si{i} = arith.addi {start}, {n}si{i}_c : index",
            f"{n}sc{i} = arith.minui {n}si{i}, %splits_1 : index",
            f"{n}at{i}_s = arith.muli {n}sc{i}, %stride : index",
            f"{n}at{i} = arith.addi {n}at{i}_s, %base : index",
            f"{n}part{i} = vector.load %ws_o[{n}at{i}, %col] {{alignment = 16}} "
            ": memref<?x?xf32>, vector<4xf32>"]
    return textwrap.indent("\n".join(lines), " " * indent)


def combine_fmas(unroll: int, prefix: str, acc_in: str, indent: int) -> str:
    """IR weighing the loaded rows of combine_loads(`prefix`) (the weights
    by shuffle from the lane that holds them, 0 past the last split) into
    %{prefix}acc{unroll} from `acc_in`."""
    n = f"%{prefix}"
    lines = []
    for i in range(unroll):
        source = acc_in if i == 0 else f"{n}acc{i}"
        lines += [
            f"{n}ok{i} = arith.cmpi ult, {n}si{i}, %splits : index",
            f"{n}src{i}_l = arith.remui {n}sc{i}, %c32 : index",
            f"{n}src{i} = arith.index_cast {n}src{i}_l : index to i32",
            f"{n}wa{i}, {n}wa{i}_ok = gpu.shuffle idx %w_a, {n}src{i}, %width : f32",
            f"{n}wb{i}, {n}wb{i}_ok = gpu.shuffle idx %w_b, {n}src{i}, %width : f32",
            f"{n}hi{i} = arith.cmpi uge, {n}sc{i}, %c32 : index",
            f"{n}wsel{i} = arith.select {n}hi{i}, {n}wb{i}, {n}wa{i} : f32",
            f"{n}w{i} = arith.select {n}ok{i}, {n}wsel{i}, %zero : f32",
            f"{n}w{i}_4 = vector.broadcast {n}w{i} : f32 to vector<4xf32>",
            f"{n}acc{i + 1} = vector.fma {n}part{i}, {n}w{i}_4, {source} : vector<4xf32>"]
    return textwrap.indent("\n".join(lines), " " * indent)


#: The names of IR defined in a snippet: `%x =`, `%x, %y =`, `%x:2 =` (a
#: loop's induction variable and iter_args included).
_DEFINED = re.compile(r"(%[A-Za-z_][\w]*)(?::\d+)?(?:, (%[A-Za-z_][\w]*))? = ")


def prefixed(ir: str, prefix: str) -> str:
    """`ir` with every name it defines prefixed (`%x` -> `%{prefix}x`), so
    that it nests where those names are in scope; the names it only uses
    stay."""
    names = {name for match in _DEFINED.finditer(ir) for name in match.groups() if name}
    return re.sub(r"%[A-Za-z_][\w]*", lambda m: ("%" + prefix + m.group(0)[1:]
                                                if m.group(0) in names else m.group(0)), ir)


def combine_row_ir(d: int, element: str) -> str:
    """IR combining one row of the splits: out[%b, %t, %h, :] = sum over
    splits of w_s O_s / sum w_s with w_s = exp2(lse_s - max lse), by one
    warp (lane %wl of it) from the workspace rows %base + s %stride. Lane l
    takes the log-sum-exps of splits l and l + 32 (one load each, not a
    chain), the warp's butterflies their maximum and weight sum; then
    COMBINE_UNROLL splits at a time, each lane four columns of their rows
    (the weights by shuffles, the loads issued together; the first
    COMBINE_UNROLL beside the log-sum-exps, which they do not wait for)."""
    lane_lses = "\n".join(lane_lse(suffix, split) for suffix, split in (("a", "%wl"),
                                                                        ("b", "%wl32")))
    return f"""        %c4 = arith.constant 4 : index
        %c32 = arith.constant 32 : index
        %c_unroll = arith.constant {COMBINE_UNROLL} : index
        %c_last_col = arith.constant {d - 4} : index
        %width = arith.constant 32 : i32
        %ninf = arith.constant 0xFF800000 : f32
        %zero = arith.constant 0.0 : f32
        %one = arith.constant 1.0 : f32
        %zero4 = arith.constant dense<0.0> : vector<4xf32>
        %col_raw = arith.muli %wl, %c4 : index
        %in_col = arith.cmpi ult, %col_raw, %c_d : index
        %col = arith.minui %col_raw, %c_last_col : index
        %splits_1 = arith.subi %splits, %c1 : index
        // The first splits' rows load while their weights are found.
{combine_loads(COMBINE_UNROLL, "f_", "%c0", 8)}
        %wl32 = arith.addi %wl, %c32 : index
        // The lane's splits l and l + 32 (-inf past the last).
{lane_lses}
        %m_lane = arith.maxnumf %lse_a, %lse_b : f32
{butterfly("%m_lane", "%max", "maxnumf")}
        %none = arith.cmpf oeq, %max, %ninf : f32
        %ref = arith.select %none, %zero, %max : f32
        %d_a = arith.subf %lse_a, %ref : f32
        %w_a = math.exp2 %d_a fastmath<afn> : f32
        %d_b = arith.subf %lse_b, %ref : f32
        %w_b = math.exp2 %d_b fastmath<afn> : f32
        %w_lane = arith.addf %w_a, %w_b : f32
{butterfly("%w_lane", "%wsum", "addf")}
        %pos = arith.cmpf ogt, %wsum, %zero : f32
        %inv_w = arith.divf %one, %wsum : f32
        %inv = arith.select %pos, %inv_w, %zero : f32
{combine_fmas(COMBINE_UNROLL, "f_", "%zero4", 8)}
        %acc = scf.for %s0 = %c_unroll to %splits step %c_unroll
            iter_args(%acc0 = %f_acc{COMBINE_UNROLL}) -> (vector<4xf32>) {{
{combine_loads(COMBINE_UNROLL, "", "%s0", 10)}
{combine_fmas(COMBINE_UNROLL, "", "%acc0", 10)}
          scf.yield %acc{COMBINE_UNROLL} : vector<4xf32>
        }}
        %inv4 = vector.broadcast %inv : f32 to vector<4xf32>
        %o = arith.mulf %acc, %inv4 : vector<4xf32>
        %o16 = arith.truncf %o : vector<4xf32> to vector<4x{element}>
        scf.if %in_col {{
          vector.store %o16, %out4[%b, %t, %h, %col] {{alignment = 8}} : !q4, vector<4x{element}>
        }}"""


def decode_attention_source(config: DecodeAttentionConfig) -> str:
    """The module holding `config.name` and @decode_attention_combine."""
    config.validate()
    e, d, r, st, ch = (config.element, config.head_dim, config.page_rows, config.stages,
                       config.chunks)
    acc = d // 2  # f32 accumulators of a 64 x D tile per thread
    ring = f"memref<{st}x{ch}x128x64x{e}, 3>"
    qbuf = f"memref<1x{ch}x64x64x{e}, 3>"
    # One arrival per stage and barrier: the producer announces the stage's
    # bytes once, then starts its boxes (a 16-token page's block has 16 of
    # K: an arrival each held the producer back on an H200).
    stage_bytes = ch * KEY_BLOCK * 64 * 2  # 16-bit elements
    # The producer's block j: its pages' ids first (the table loads in flight
    # together, while the producer waits for the stage), then `copies` boxes
    # of r rows per chunk. With r < 128 a box is a whole page (config_for:
    # the page is r tokens), so block j holds pages j n .. j n + n - 1 from
    # their row 0: constants, not a division by the page per box (sixteen
    # of them in a 16-token page's block held the producer back on an
    # H200). Pages of 128 keys or more take one box at row 128 j mod page.
    n = config.copies
    page_lines = []
    if n > 1:
        page_lines.append(f"                %page0 = arith.muli %j, %c{n} : index")
        page_lines += [f"                %key{i} = arith.addi %n0, %c{i * r} : index"
                       for i in range(n)]
    else:
        page_lines.append("                %key0 = arith.addi %n0, %c0 : index")
    page_lines.append(f"                %pids:{n} = scf.if %paged -> ({', '.join(['index'] * n)}) {{{{")
    for i in range(n):
        page_index = (f"arith.addi %page0, %c{i} : index" if n > 1
                      else "arith.divui %key0, %page : index")
        page_lines += [
            f"                  %pi{i} = {page_index}",
            f"                  %pic{i} = arith.minui %pi{i}, %last_page : index",
            f"                  %pid_i32_{i} = memref.load %table[%b, %pic{i}] : memref<?x?xi32>",
            f"                  %pid_t{i} = arith.index_cast %pid_i32_{i} : i32 to index"]
    page_lines += [
        f"                  scf.yield {', '.join(f'%pid_t{i}' for i in range(n))} : "
        f"{', '.join(['index'] * n)}",
        "                }} else {{",
        f"                  scf.yield {', '.join(['%b'] * n)} : {', '.join(['index'] * n)}",
        "                }}"]
    for i in range(n):
        in_page = "%c0" if n > 1 else "%prow_p0"
        if n == 1:
            page_lines.append("                %prow_p0 = arith.remui %key0, %page : index")
        page_lines.append(f"                %prow{i} = arith.select %paged, {in_page}, %key{i} : index")
    copies = []
    for i in range(n):
        row_index = f", %c{i * r}" if n > 1 else ""
        for c in range(ch):
            copies.append(
                f"                tile.tma_load %k[%pids#{i}, %g, %prow{i}, %c{64 * c}] to "
                f"%sk_[%s, %c{c}{row_index}], %k_full[%s] : !kv, {ring}, !bars")
    v_copies = []
    for i in range(config.copies):
        row_index = f", %c{i * r}" if config.copies > 1 else ""
        for c in range(ch):
            v_copies.append(
                f"                tile.tma_load %v[%pids#{i}, %g, %prow{i}, %c{64 * c}] to "
                f"%sv_[%s, %c{c}{row_index}], %v_full[%s] : !kv, {ring}, !bars")
    constants = sorted({64 * c for c in range(ch)} | {i * r for i in range(n)}
                       | (set(range(n + 1)) if n > 1 else set()) | {64, 127, 128}
                       | ({8} | {KEY_BLOCK // (d // 8) * i for i in range(d // 8)}
                          if config.gathers else set()))
    constant_text = "".join(f"      %c{n} = arith.constant {n} : index\n"
                            for n in constants if n not in (0, 1, 2))
    q_vectors = 64 * d // 8 // (128 * CONSUMERS)  # 8-element vectors of Q per consumer thread
    item_producer, item_consumer = (textwrap.indent(ITEM_IR, " " * n) for n in (12, 10))
    page_text = "\n".join(page_lines).replace("{{", "{").replace("}}", "}")
    copies_text, v_text = "\n".join(copies), "\n".join(v_copies)
    stage_loop_end = """              %next = arith.addi %s, %c1 : index
              %wrap = arith.cmpi eq, %next, %c_stages : index
              %ns = arith.select %wrap, %c0, %next : index
              %nph = arith.xori %ph, %wrap : i1
              scf.yield %ns, %nph : index, i1
            }
            scf.yield %p#0, %p#1 : index, i1
          }"""
    # The producer's items and their blocks (a thread, or every gathering
    # thread, runs them).
    loop_head = f"""          %pp:2 = scf.for %item = %item_lb to %item_ub step %item_step
              iter_args(%s0 = %c0, %ph0 = %true) -> (index, i1) {{
{item_producer}
            %p:2 = scf.for %j = %j0 to %j1 step %c1
                iter_args(%s = %s0, %ph = %ph0) -> (index, i1) {{
              %n0 = arith.muli %j, %c128 : index"""
    if config.gathers:
        # Producer thread t copies piece t mod P (16 bytes; P = D / 8 a row)
        # of rows t / P + G i (G = 128 / P row groups, i < P): a warp's
        # copies are whole rows, coalesced. Each row's page id comes from
        # the table (a page outside the cache reads zeros, as TMA's boxes
        # would); its arrival (noinc: one of the barrier's 128) comes when
        # its copies land.
        pieces = d // 8
        groups = KEY_BLOCK // pieces
        def gathered(x: str) -> str:
            lines = []
            for i in range(pieces):
                lines.append(
                    f"              tile.async_copy %{x}[%pid_safe{i}, %g, %prow{i}, %col] to "
                    f"%s{x}_[%s, %chunk, %row{i}, %col_in], 16 bytes, cache = cg, "
                    f"src_bytes = %src_bytes{i} : !kvm to {ring}")
            return "\n".join(lines)
        rows = []
        for i in range(pieces):
            rows += [
                f"              %row{i} = arith.addi %row_group, %c{groups * i} : index",
                f"              %key{i} = arith.addi %n0, %row{i} : index",
                f"              %pi{i} = arith.divui %key{i}, %page_rows : index",
                f"              %prow{i} = arith.remui %key{i}, %page_rows : index",
                f"              %pic{i} = arith.minui %pi{i}, %last_page : index",
                f"              %pid_i32_{i} = memref.load %table[%b, %pic{i}] : memref<?x?xi32>",
                f"              %pid{i} = arith.index_cast %pid_i32_{i} : i32 to index",
                f"              %pid_ok{i} = arith.cmpi ult, %pid{i}, %pool : index",
                f"              %pid_safe{i} = arith.select %pid_ok{i}, %pid{i}, %c0 : index",
                f"              %src_bytes{i} = arith.select %pid_ok{i}, %piece, %nothing : i32"]
        rows_text = "\n".join(rows)
        producer = f"""        %pieces = arith.constant {pieces} : index
        %piece_index = arith.remui %tid, %pieces : index
        %row_group = arith.divui %tid, %pieces : index
        %col = arith.muli %piece_index, %c8 : index
        %chunk = arith.divui %col, %c64 : index
        %col_in = arith.remui %col, %c64 : index
        %page_rows = arith.constant {r} : index
        %pool = memref.dim %k, %c0 : !kvm
        %piece = arith.constant 16 : i32
        %nothing = arith.constant 0 : i32
{loop_head}
{rows_text}
              tile.mbarrier_wait_parity %k_empty[%s], %ph : !bars
{gathered("k")}
              tile.async_copy_mbarrier_arrive %k_full[%s] noinc : !bars
              tile.mbarrier_wait_parity %v_empty[%s], %ph : !bars
{gathered("v")}
              tile.async_copy_mbarrier_arrive %v_full[%s] noinc : !bars
{stage_loop_end}
"""
    else:
        producer = f"""        scf.if %first {{
{loop_head}
{page_text}
              tile.mbarrier_wait_parity %k_empty[%s], %ph : !bars
              %k_tok = tile.mbarrier_arrive_expect_tx %k_full[%s], %stage_bytes : !bars -> !tile.mbarrier_token
{copies_text}
              tile.mbarrier_wait_parity %v_empty[%s], %ph : !bars
              %v_tok = tile.mbarrier_arrive_expect_tx %v_full[%s], %stage_bytes : !bars -> !tile.mbarrier_token
{v_text}
{stage_loop_end}
        }}
"""
    # With %fused, the unit's last split to finish combines its rows: each
    # split's rows and log-sum-exps are released (GPU-scope fences around
    # the arrival count, PTX ISA "Memory Consistency Model": release and
    # acquire patterns) before one thread counts the split in on the unit's
    # counter; the count's last taker (the flag in shared memory tells the
    # warpgroup) resets the counter for the next launch and combines, one
    # warp a row. Without, @decode_attention_combine does.
    last_split = f"""tile.named_barrier_sync %own_barrier, 128
%bu = arith.muli %b, %units_b : index
%counter = arith.addi %bu, %gr : index
%zero_i32 = arith.constant 0 : i32
scf.if %signals {{
  %one_i32 = arith.constant 1 : i32
  llvm.fence syncscope("device") acq_rel
  %arrived = memref.atomic_rmw addi %one_i32, %counters[%counter] : (i32, memref<?xi32>) -> i32
  llvm.fence syncscope("device") acq_rel
  %splits_i32 = arith.index_cast %splits : index to i32
  %arrived1 = arith.addi %arrived, %one_i32 : i32
  %last = arith.cmpi eq, %arrived1, %splits_i32 : i32
  %last_i32 = arith.extui %last : i1 to i32
  memref.store %last_i32, %last_flag[%c0] : memref<1xi32, 3>
  scf.if %last {{
    memref.store %zero_i32, %counters[%counter] : memref<?xi32>
  }}
}}
tile.named_barrier_sync %own_barrier, 128
%flag = memref.load %last_flag[%c0] : memref<1xi32, 3>
%combines = arith.cmpi ne, %flag, %zero_i32 : i32
scf.if %combines {{
  // Row pr of the unit's tile (query t = (p0 + pr) / G of head
  // g G + (p0 + pr) mod G) by warp pr mod {FUSED_COMBINE_ROWS}; split s's row at
  // ((s B + b) units + gr) 64 + pr.
  %warp_rows = arith.constant {FUSED_COMBINE_ROWS} : index
  %wl = arith.remui %lane, %i32 : index
  %row_warp = arith.divui %lane, %i32 : index
  %split_rows = arith.muli %batch, %units_b : index
  %stride = arith.muli %split_rows, %c64 : index
  %base_u = arith.muli %counter, %c64 : index
  scf.for %pr = %row_warp to %rows_valid step %warp_rows {{
    %base = arith.addi %base_u, %pr : index
    %p = arith.addi %p0, %pr : index
    %t = arith.divui %p, %group : index
    %jg = arith.remui %p, %group : index
    %gg = arith.muli %g, %group : index
    %h = arith.addi %gg, %jg : index
{textwrap.indent(textwrap.dedent(combine_row_ir(d, e)), "    ")}
  }}
}}"""
    combine = textwrap.indent(prefixed(
        "// The unit's last split combines its splits' rows into out (%fused).\n"
        "scf.if %fused {\n" + textwrap.indent(last_split, "  ") + "\n}", "fc_"), " " * 12)
    # The combine kernel: one warp a row (b, t, h), COMBINE_ROWS a CTA.
    combine_kernel = prefixed(f"""%tid = gpu.thread_id x
%bid = gpu.block_id x
%warp_lanes = arith.constant 32 : index
%c_rows = arith.constant {COMBINE_ROWS} : index
%warp = arith.divui %tid, %warp_lanes : index
%wl = arith.remui %tid, %warp_lanes : index
%row0 = arith.muli %bid, %c_rows : index
%row = arith.addi %row0, %warp : index
%heads = arith.muli %kv_heads, %group : index
%sqh = arith.muli %sq, %heads : index
%bsqh = arith.muli %batch, %sqh : index
// Warp-uniform: every lane of a live row's warp takes part.
%in_row = arith.cmpi ult, %row, %bsqh : index
scf.if %in_row {{
  %b = arith.divui %row, %sqh : index
  %th = arith.remui %row, %sqh : index
  %t = arith.divui %th, %heads : index
  %h = arith.remui %th, %heads : index
  %g = arith.divui %h, %group : index
  %jg = arith.remui %h, %group : index
  %tg = arith.muli %t, %group : index
  %p = arith.addi %tg, %jg : index
  %rt = arith.divui %p, %c64 : index
  %pr = arith.remui %p, %c64 : index
  %units = arith.muli %kv_heads, %row_tiles : index
  %grt = arith.muli %g, %row_tiles : index
  %gr = arith.addi %grt, %rt : index
  %bu = arith.muli %b, %units : index
  %bug = arith.addi %bu, %gr : index
  %split_rows = arith.muli %batch, %units : index
  // Workspace row of split s: ((s B + b) units + gr) 64 + pr.
  %base_u = arith.muli %bug, %c64 : index
  %base = arith.addi %base_u, %pr : index
  %stride = arith.muli %split_rows, %c64 : index
  // Streamed: the unit's pieces (the CTAs whose ranges meet its blocks);
  // a whole unit of one query was written by its CTA.
{textwrap.indent(UNIT_PIECES_IR.replace("%unit,", "%bug,"), "  ")}
  %splits = arith.select %stream, %unit_pieces_s, %max_splits : index
  %whole = arith.cmpi eq, %unit_pieces_s, %c1 : index
  %written0 = arith.andi %stream, %direct : i1
  %written = arith.andi %written0, %whole : i1
  %combines = arith.xori %written, %true : i1
  scf.if %combines {{
{textwrap.indent(textwrap.dedent(combine_row_ir(d, e)), "  ")}
  }}
}}""", "cr_")
    # K and V as TMA maps, or (gathered) as memrefs; the full barriers take
    # the producer thread's arrival, or the 128 gathering threads'. What
    # cp.async wrote (generic proxy) the consumer's wgmma reads after a
    # proxy fence.
    kv_type = "!kvm" if config.gathers else "!kv"
    prefetch = "" if config.gathers else """        tile.tma_prefetch_descriptor %k : !kv
        tile.tma_prefetch_descriptor %v : !kv
"""
    full_count = "%gatherers" if config.gathers else "%one"
    gather_fence = "            tile.fence_proxy_async shared_cta\n" if config.gathers else ""
    # Every thread (the consumers' groups are empty) waits for its cp.async
    # copies before it exits.
    gather_drain = "      tile.async_wait_all\n" if config.gathers else ""
    merge_alloc, merge = consumer_merge(config)
    return f"""// {config.name}: split-KV attention against a KV cache (tile.ops.decode_attention).
!kv = !tile.tma_desc<memref<?x?x?x?x{e}>, box = [1, 1, {r}, 64], swizzle = b128>
!kvm = memref<?x?x?x?x{e}, strided<[?, ?, ?, 1], offset: ?>>
!bars = !tile.mbarrier<count = {st}>
!q4 = memref<?x?x?x?x{e}, strided<[?, ?, ?, 1], offset: ?>>
module attributes {{gpu.container_module}} {{
  gpu.module @kernels {{
    // Item (split, g row_tiles + row tile, b): the keys of the split's
    // share of sequence b's blocks (streamed: of the CTA's range of
    // blocks_per_split), KV head g, query rows p = 64 row tile .. + 64 of the group's
    // Sq G (query p / G, head g G + p mod G).
    gpu.func @{config.name}(%q: !q4, %k: {kv_type}, %v: {kv_type}, %table: memref<?x?xi32>,
        %seqlens: memref<?xi32>, %ws_o: memref<?x?xf32>, %ws_lse: memref<?xf32>,
        %counters: memref<?xi32>, %out_rows: memref<?x?x{e}>, %out4: !q4,
        %batch: index, %sq: index, %group: index, %kv_heads: index, %row_tiles: index,
        %page: index, %blocks_per_split: index, %splits: index, %length: index,
        %per_sequence: i1, %added: index, %scale_log2: f32,
        %cap_in: f32, %cap_out: f32, %softcap: i1, %causal: i1, %paged: i1,
        %direct: i1, %fused: i1, %stream: i1, %unit_blocks: index) kernel
        attributes {{known_block_size = array<i32: {THREADS}, 1, 1>}} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
{constant_text}      %c_stages = arith.constant {st} : index
      %stage_bytes = arith.constant {stage_bytes} : i32
      %one = arith.constant 1 : i32
      %gatherers = arith.constant 128 : i32
      %false = arith.constant false
      %true = arith.constant true
      %tid = gpu.thread_id x
      %cta = gpu.block_id x
      %ctas = gpu.grid_dim x
      %units_b = arith.muli %kv_heads, %row_tiles : index
      %units = arith.muli %batch, %units_b : index
      %items = arith.muli %units, %splits : index
      // Streamed: global blocks [range_lo, range_hi) of the units' capacity
      // blocks, units u_first .. u_end - 1; split items: cta, cta + ctas, ..
      %all_blocks = arith.muli %units, %unit_blocks : index
      %range_lo = arith.muli %cta, %blocks_per_split : index
      %range_end = arith.addi %range_lo, %blocks_per_split : index
      %range_hi = arith.minui %range_end, %all_blocks : index
      %in_range = arith.cmpi ult, %range_lo, %range_hi : index
      %range_last = arith.subi %range_hi, %c1 : index
      %u_first = arith.divui %range_lo, %unit_blocks : index
      %u_last = arith.divui %range_last, %unit_blocks : index
      %u_after = arith.addi %u_last, %c1 : index
      %u_end = arith.select %in_range, %u_after, %u_first : index
      %item_lb = arith.select %stream, %u_first, %cta : index
      %item_ub = arith.select %stream, %u_end, %items : index
      %item_step = arith.select %stream, %c1, %ctas : index
      %table_pages = memref.dim %table, %c1 : memref<?x?xi32>
      %last_page = arith.subi %table_pages, %c1 : index
      %paged_capacity = arith.muli %table_pages, %page : index
      %capacity = arith.select %paged, %paged_capacity, %page : index
      %sq_ = tile.shared_alloc dynamic {{swizzle = #tile.swizzle<b128>}} : {qbuf}
      %sk_ = tile.shared_alloc dynamic {{swizzle = #tile.swizzle<b128>}} : {ring}
      %sv_ = tile.shared_alloc dynamic {{swizzle = #tile.swizzle<b128>}} : {ring}
      // Whether this CTA's split was its unit's last (the combine's).
      %last_flag = tile.shared_alloc : memref<1xi32, 3>
{merge_alloc}      %k_full = tile.mbarrier_alloc : !bars
      %v_full = tile.mbarrier_alloc : !bars
      %k_empty = tile.mbarrier_alloc : !bars
      %v_empty = tile.mbarrier_alloc : !bars
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {{
{prefetch}        scf.for %s = %c0 to %c_stages step %c1 {{
          tile.mbarrier_init %k_full[%s], {full_count} : !bars
          tile.mbarrier_init %v_full[%s], {full_count} : !bars
          tile.mbarrier_init %k_empty[%s], %one : !bars
          tile.mbarrier_init %v_empty[%s], %one : !bars
        }}
      }}
      gpu.barrier
      // Launched as a programmatic dependent: global memory only after the
      // grid before this one (T-PDL-1, T-PDL-2).
      tile.grid_dependency_wait
      tile.warp_specialize producer(registers = {config.registers[0]}) {{
{producer}      }} consumers({CONSUMERS}, registers = {config.registers[1]}) {{
      ^bb0(%wg: index):
        %lane = arith.remui %tid, %c128 : index
        %c_consumers = arith.constant {CONSUMERS} : index
        %c_q_threads = arith.constant {128 * CONSUMERS} : index
        %q_lane = arith.subi %tid, %c128 : index
        // Each consumer's own named barrier (its 128 threads).
        %own_base = arith.constant {OWN_BARRIERS} : i32
        %wg_i32 = arith.index_cast %wg : index to i32
        %own_barrier = arith.addi %own_base, %wg_i32 : i32
        %signals = arith.cmpi eq, %lane, %c0 : index
        %zero_s = arith.constant dense<0.0> : vector<64xf32>
        %zero_o = arith.constant dense<0.0> : vector<{acc}xf32>
        %zero_l = arith.constant dense<0.0> : vector<2xf32>
        %zero_q = arith.constant dense<0.0> : vector<8x{e}>
        %ninf_l = arith.constant dense<0xFF800000> : vector<2xf32>
        %ninf_s = arith.constant dense<0xFF800000> : vector<64xf32>
        %one_l = arith.constant dense<1.0> : vector<2xf32>
        %c_l = vector.broadcast %scale_log2 : f32 to vector<2xf32>
        %c_s = vector.broadcast %scale_log2 : f32 to vector<64xf32>
        // Logit softcap (as tile.attention's kernels), with %softcap.
        %use_cap = arith.andi %softcap, %true : i1
        %cap_out_s = vector.broadcast %cap_out : f32 to vector<64xf32>
        %two_log2e = arith.constant 2.88539008 : f32
        %minus_two = arith.constant -2.0 : f32
        %cap_k = arith.mulf %cap_in, %two_log2e : f32
        %cap_k_s = vector.broadcast %cap_k : f32 to vector<64xf32>
        %cap_m2 = arith.mulf %cap_out, %minus_two : f32
        %cap_m2_s = vector.broadcast %cap_m2 : f32 to vector<64xf32>
        %one_s = arith.constant dense<1.0> : vector<64xf32>
        %heads = arith.muli %kv_heads, %group : index
        %rows_all = arith.muli %sq, %group : index
        %q_barrier = arith.constant {Q_BARRIER} : i32
        %i4 = arith.constant 4 : index
        %i8 = arith.constant 8 : index
        %i16 = arith.constant 16 : index
        %i32 = arith.constant 32 : index
        %c_d = arith.constant {d} : index
        %c_qv = arith.constant {q_vectors} : index
        %cc:3 = scf.for %item = %item_lb to %item_ub step %item_step
            iter_args(%s0 = %wg, %ph0 = %false, %par0 = %c0) -> (index, i1, index) {{
{item_consumer}
          %p0 = arith.muli %rt, %c64 : index
          // Q rows p0 .. p0 + 64 (zeros past Sq G), eight elements a load
          // by both consumers (their last products of the previous item came
          // before its merge barrier).
          scf.for %i = %c0 to %c_qv step %c1 {{
            %vi = arith.muli %i, %c_q_threads : index
            %vl = arith.addi %vi, %q_lane : index
            %el = arith.muli %vl, %i8 : index
            %qr = arith.divui %el, %c_d : index
            %qc = arith.remui %el, %c_d : index
            %qchunk = arith.divui %qc, %c64 : index
            %qcol = arith.remui %qc, %c64 : index
            %qp = arith.addi %p0, %qr : index
            %qt = arith.divui %qp, %group : index
            %qj = arith.remui %qp, %group : index
            %qg = arith.muli %g, %group : index
            %qh = arith.addi %qg, %qj : index
            %q_in = arith.cmpi ult, %qp, %rows_all : index
            %qv = scf.if %q_in -> vector<8x{e}> {{
              %loaded = vector.load %q[%b, %qt, %qh, %qc] {{alignment = 16}} : !q4, vector<8x{e}>
              scf.yield %loaded : vector<8x{e}>
            }} else {{
              scf.yield %zero_q : vector<8x{e}>
            }}
            vector.store %qv, %sq_[%c0, %qchunk, %qr, %qcol] : {qbuf}, vector<8x{e}>
          }}
          tile.fence_proxy_async shared_cta
          tile.named_barrier_sync %q_barrier, {128 * CONSUMERS}
          // Key j is seen by query t where j < seqlen and, causal,
          // j <= seqlen - Sq + t (the bottom-right diagonal).
          %seqlen_i32c = arith.index_cast %seqlen : index to i32
          %seqlen_s = vector.broadcast %seqlen_i32c : i32 to vector<64xi32>
          %sq_i32 = arith.index_cast %sq : index to i32
          %diag_i32 = arith.subi %seqlen_i32c, %sq_i32 : i32
          %diag_s = vector.broadcast %diag_i32 : i32 to vector<64xi32>
          %group_i32 = arith.index_cast %group : index to i32
          %group_s = vector.broadcast %group_i32 : i32 to vector<64xi32>
          %p0_i32 = arith.index_cast %p0 : index to i32
          %p0_s = vector.broadcast %p0_i32 : i32 to vector<64xi32>
          %not_causal = arith.xori %causal, %true : i1
          %not_causal_s = vector.broadcast %not_causal : i1 to vector<64xi1>
          %sq1 = arith.subi %sq, %c1 : index
          %cut_rows = arith.select %causal, %sq1, %c0 : index
          // This consumer's first block: the item's first where the CTA's
          // block stream is at this consumer's parity, else its second.
          %first_off = arith.xori %par0, %wg : index
          %j_mine = arith.addi %j0, %first_off : index
          %r:5 = scf.for %j = %j_mine to %j1 step %c_consumers
              iter_args(%o_acc = %zero_o, %m_run = %ninf_l, %l_run = %zero_l,
                        %s = %s0, %ph = %ph0)
              -> (vector<{acc}xf32>, vector<2xf32>, vector<2xf32>, index, i1) {{
            %n0 = arith.muli %j, %c128 : index
            %n_end = arith.addi %n0, %c128 : index
            tile.mbarrier_wait_parity %k_full[%s], %ph : !bars
{gather_fence}            %scores = tile.warpgroup_mma %sq_[%c0, %c0, %c0, %c0], %sk_[%s, %c0, %c0, %c0], %zero_s
                {{shape = array<i64: 64, 128, {d}>, wait = 0 : i32}}
                : {qbuf}, {ring}, vector<64xf32>
            scf.if %signals {{
              %ktok = tile.mbarrier_arrive %k_empty[%s] : !bars -> !tile.mbarrier_token
            }}
            %capped = scf.if %use_cap -> vector<64xf32> {{
              %cap_y2 = arith.mulf %scores, %cap_k_s : vector<64xf32>
              %cap_e = math.exp2 %cap_y2 fastmath<afn> : vector<64xf32>
              %cap_e1 = arith.addf %cap_e, %one_s : vector<64xf32>
              %cap_r = arith.divf %one_s, %cap_e1 fastmath<afn> : vector<64xf32>
              %cap_z = math.fma %cap_r, %cap_m2_s, %cap_out_s : vector<64xf32>
              scf.yield %cap_z : vector<64xf32>
            }} else {{
              scf.yield %scores : vector<64xf32>
            }}
            %n_cut = arith.addi %n_end, %cut_rows : index
            %needs_mask = arith.cmpi ugt, %n_cut, %seqlen : index
            %masked = scf.if %needs_mask -> vector<64xf32> {{
              %cols = tile.warpgroup_iota {{dim = 1 : i64, shape = array<i64: 64, 128>}} : vector<64xi32>
              %rows = tile.warpgroup_iota {{dim = 0 : i64, shape = array<i64: 64, 128>}} : vector<64xi32>
              %n0_i32 = arith.index_cast %n0 : index to i32
              %n0_s = vector.broadcast %n0_i32 : i32 to vector<64xi32>
              %keys = arith.addi %cols, %n0_s : vector<64xi32>
              %in_keys = arith.cmpi slt, %keys, %seqlen_s : vector<64xi32>
              %prow = arith.addi %rows, %p0_s : vector<64xi32>
              %qpos = arith.divui %prow, %group_s : vector<64xi32>
              %last_key = arith.addi %qpos, %diag_s : vector<64xi32>
              %below = arith.cmpi sle, %keys, %last_key : vector<64xi32>
              %seen = arith.ori %below, %not_causal_s : vector<64xi1>
              %valid = arith.andi %in_keys, %seen : vector<64xi1>
              %sel = arith.select %valid, %capped, %ninf_s : vector<64xi1>, vector<64xf32>
              scf.yield %sel : vector<64xf32>
            }} else {{
              scf.yield %capped : vector<64xf32>
            }}
            // The online softmax (rows that saw no key yet subtract 0).
            %block_max = tile.warpgroup_row_reduce <maxnumf> %masked {{shape = array<i64: 64, 128>}}
                : vector<64xf32> -> vector<2xf32>
            %m_new = arith.maxnumf %m_run, %block_max : vector<2xf32>
            %m_scaled_raw = arith.mulf %m_new, %c_l : vector<2xf32>
            %no_key = arith.cmpf oeq, %m_new, %ninf_l : vector<2xf32>
            %m_scaled = arith.select %no_key, %zero_l, %m_scaled_raw : vector<2xi1>, vector<2xf32>
            %m_old_scaled = arith.mulf %m_run, %c_l : vector<2xf32>
            %m_diff = arith.subf %m_old_scaled, %m_scaled : vector<2xf32>
            %correction = math.exp2 %m_diff fastmath<afn> : vector<2xf32>
            %m_b = tile.warpgroup_broadcast_rows %m_scaled {{shape = array<i64: 64, 128>}}
                : vector<2xf32> -> vector<64xf32>
            %s_scaled = arith.mulf %masked, %c_s fastmath<contract> : vector<64xf32>
            %exponent = arith.subf %s_scaled, %m_b fastmath<contract> : vector<64xf32>
            %probs = math.exp2 %exponent fastmath<afn> : vector<64xf32>
            %block_sum = tile.warpgroup_row_reduce <add> %probs {{partial, shape = array<i64: 64, 128>}}
                : vector<64xf32> -> vector<2xf32>
            %l_kept = arith.mulf %l_run, %correction : vector<2xf32>
            %l_new = arith.addf %l_kept, %block_sum : vector<2xf32>
            %corr_b = tile.warpgroup_broadcast_rows %correction {{shape = array<i64: 64, {d}>}}
                : vector<2xf32> -> vector<{acc}xf32>
            %o_scaled = arith.mulf %o_acc, %corr_b : vector<{acc}xf32>
            %p16 = arith.truncf %probs : vector<64xf32> to vector<64x{e}>
            tile.mbarrier_wait_parity %v_full[%s], %ph : !bars
{gather_fence}            // V rows past the sequence zeroed before P V: P is 0 there, but a
            // cache's slots past its length may hold anything (0 NaN is NaN).
            // Thread lane: row first_past + lane, each 16-byte piece at the
            // column the 128-byte swizzle puts back in its own slot (as the
            // prefill kernel's).
            %v_past = arith.cmpi ugt, %n_end, %seqlen : index
            scf.if %v_past {{
              %first_past = arith.subi %seqlen, %n0 : index
              %zero_row = arith.addi %first_past, %lane : index
              %row_past = arith.cmpi ult, %zero_row, %c128 : index
              scf.if %row_past {{
                %zphase = arith.remui %zero_row, %i8 : index
                %row_pieces = arith.constant {d // 8} : index
                scf.for %zv = %c0 to %row_pieces step %c1 {{
                  %zchunk = arith.divui %zv, %i8 : index
                  %zslot = arith.remui %zv, %i8 : index
                  %zcol8 = arith.xori %zslot, %zphase : index
                  %zcol = arith.muli %zcol8, %i8 : index
                  vector.store %zero_q, %sv_[%s, %zchunk, %zero_row, %zcol] : {ring}, vector<8x{e}>
                }}
              }}
              tile.fence_proxy_async shared_cta
              tile.named_barrier_sync %own_barrier, 128
            }}
            %o_new = tile.warpgroup_mma_rs %p16, %sv_[%s, %c0, %c0, %c0], %o_scaled
                {{shape = array<i64: 64, {d}, 128>, wait = 0 : i32, transpose_b}}
                : vector<64x{e}>, {ring}, vector<{acc}xf32>
            scf.if %signals {{
              %vtok = tile.mbarrier_arrive %v_empty[%s] : !bars -> !tile.mbarrier_token
            }}
            // The consumer's next block: `consumers` stages on.
            %next = arith.addi %s, %c_consumers : index
            %wrap = arith.cmpi uge, %next, %c_stages : index
            %next_wrapped = arith.subi %next, %c_stages : index
            %ns = arith.select %wrap, %next_wrapped, %next : index
            %nph = arith.xori %ph, %wrap : i1
            scf.yield %o_new, %m_new, %l_new, %ns, %nph
                : vector<{acc}xf32>, vector<2xf32>, vector<2xf32>, index, i1
          }}
{merge}          // O / l and log2(sum exp) = c m + log2(l) of each row (-inf and 0
          // for a row that saw no key) into this split's workspace rows.
          %l_final = tile.warpgroup_row_reduce <add> %l_all {{shape = array<i64: 64, 128>}}
              : vector<2xf32> -> vector<2xf32>
          %l_pos = arith.cmpf ogt, %l_final, %zero_l : vector<2xf32>
          %l_inv = arith.divf %one_l, %l_final : vector<2xf32>
          %inv_l = arith.select %l_pos, %l_inv, %zero_l : vector<2xi1>, vector<2xf32>
          %out = tile.warpgroup_scale %o_all row_factors %inv_l : vector<2xf32>
              {{shape = array<i64: 64, {d}>}} : vector<{acc}xf32>
          %rows_left = arith.subi %rows_all, %p0 : index
          %rows_valid = arith.minui %rows_left, %c64 : index
          // A whole unit (one split, or streamed whole) of one query: O / l
          // straight into out, whose rows b H + g G .. + G are this item's
          // (no workspace; the combine passes over them).
          %whole = arith.cmpi eq, %unit_pieces, %c1 : index
          %direct_here = arith.andi %direct, %whole : i1
          scf.if %direct_here {{
            %bh = arith.muli %b, %heads : index
            %gg = arith.muli %g, %group : index
            %bhg = arith.addi %bh, %gg : index
            %orow0 = arith.addi %bhg, %p0 : index
            %orow_end = arith.addi %orow0, %rows_valid : index
            tile.warpgroup_mma_store %out, %out_rows[%orow0, %c0] bounds [%orow_end, %c_d]
                {{shape = array<i64: 64, {d}>}} : vector<{acc}xf32>, memref<?x?x{e}>
          }} else {{
            %m_final = arith.mulf %m_all, %c_l : vector<2xf32>
            %log_l = math.log2 %l_final : vector<2xf32>
            %lse_raw = arith.addf %m_final, %log_l : vector<2xf32>
            %lse = arith.select %l_pos, %lse_raw, %ninf_l : vector<2xi1>, vector<2xf32>
            %sb = arith.muli %split, %batch : index
            %sbb = arith.addi %sb, %b : index
            %sbu = arith.muli %sbb, %units_b : index
            %unit = arith.addi %sbu, %gr : index
            %ws_row0 = arith.muli %unit, %c64 : index
            %ws_end = arith.addi %ws_row0, %rows_valid : index
            tile.warpgroup_mma_store %out, %ws_o[%ws_row0, %c0] bounds [%ws_end, %c_d]
                {{shape = array<i64: 64, {d}>}} : vector<{acc}xf32>, memref<?x?xf32>
            // Row 16 warp + lane / 4 (+ 8) of the tile: the quad's first lane.
            %warp_lane = arith.remui %lane, %i32 : index
            %warp = arith.divui %lane, %i32 : index
            %quad_lane = arith.remui %warp_lane, %i4 : index
            %quad_first = arith.cmpi eq, %quad_lane, %c0 : index
            scf.if %quad_first {{
              %w16 = arith.muli %warp, %i16 : index
              %l4 = arith.divui %warp_lane, %i4 : index
              %row_a = arith.addi %w16, %l4 : index
              %row_b = arith.addi %row_a, %i8 : index
              %lse_a = vector.extract %lse[0] : f32 from vector<2xf32>
              %lse_b = vector.extract %lse[1] : f32 from vector<2xf32>
              %in_a = arith.cmpi ult, %row_a, %rows_valid : index
              scf.if %in_a {{
                %at_a = arith.addi %ws_row0, %row_a : index
                memref.store %lse_a, %ws_lse[%at_a] : memref<?xf32>
              }}
              %in_b = arith.cmpi ult, %row_b, %rows_valid : index
              scf.if %in_b {{
                %at_b = arith.addi %ws_row0, %row_b : index
                memref.store %lse_b, %ws_lse[%at_b] : memref<?xf32>
              }}
            }}
{combine}
          }}
          }}
          scf.yield %r#3, %r#4, %par_next : index, i1, index
        }}
      }}
{gather_drain}      gpu.return
    }}

    // out[b, t, h, :] from the splits' rows, where the units' last splits
    // do not combine them (%fused false).
    gpu.func @decode_attention_combine(%ws_o: memref<?x?xf32>, %ws_lse: memref<?xf32>,
        %out4: !q4, %batch: index, %sq: index, %group: index, %kv_heads: index,
        %row_tiles: index, %max_splits: index, %blocks_per_split: index,
        %unit_blocks: index, %direct: i1, %stream: i1) kernel
        attributes {{known_block_size = array<i32: {32 * COMBINE_ROWS}, 1, 1>}} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %true = arith.constant true
      %c64 = arith.constant 64 : index
      %c_d = arith.constant {d} : index
      tile.grid_dependency_wait
{textwrap.indent(combine_kernel, " " * 6)}
      gpu.return
    }}
  }}
}}
"""


def consumer_merge(config: DecodeAttentionConfig) -> tuple:
    """IR of the consumers' merge of a unit's rows: (the merge buffers'
    allocations, the merge after the blocks, which opens consumer 0's
    epilogue). Consumer 1 stores its rows'
    running maximum m, partial sums l and O accumulators in shared memory
    (each thread its own fragment: both consumers' threads hold the same
    rows and columns), and consumer 0 weighs both by exp2(c (m_w - m)),
    m the larger, and runs the epilogue; the CTA's block stream's parity
    after the item comes from its block count."""
    acc = config.head_dim // 2
    chunks = acc // 4
    o_type = f"memref<{chunks}x128x4xf32, 3>"
    alloc = f"""      // Consumer 1's (m, l) and O fragments, for consumer 0's merge.
      %merge_ml = tile.shared_alloc : memref<2x128x2xf32, 3>
      %merge_o = tile.shared_alloc dynamic : {o_type}
"""
    # Chunks of four (shared-memory row i holds the 128 threads' chunk i:
    # 16-byte accesses without bank conflicts), split and joined again by
    # vector.shuffle.
    stores, loads = [], []
    for i in range(chunks):
        picks = ", ".join(str(4 * i + k) for k in range(4))
        stores += [
            f"            %mc{i} = arith.constant {i} : index",
            f"            %o1_{i}_4 = vector.shuffle %r#0, %r#0 [{picks}] : vector<{acc}xf32>, "
            f"vector<{acc}xf32>",
            f"            vector.store %o1_{i}_4, %merge_o[%mc{i}, %lane, %c0] : {o_type}, "
            "vector<4xf32>"]
        loads += [
            f"            %lc{i} = arith.constant {i} : index",
            f"            %o1_w4_{i} = vector.load %merge_o[%lc{i}, %lane, %c0] : {o_type}, "
            "vector<4xf32>"]
    width, level = 4, [f"%o1_w4_{i}" for i in range(chunks)]
    while len(level) > 1:
        joined = []
        for i in range(0, len(level), 2):
            name = f"%o1_w{2 * width}_{i // 2}"
            picks = ", ".join(str(k) for k in range(2 * width))
            loads.append(f"            {name} = vector.shuffle {level[i]}, {level[i + 1]} [{picks}] "
                         f": vector<{width}xf32>, vector<{width}xf32>")
            joined.append(name)
        level, width = joined, 2 * width
    o1 = level[0]
    ml = "memref<2x128x2xf32, 3>"
    stores_text, loads_text = "\n".join(stores), "\n".join(loads)
    merge = f"""          // Consumer 1's rows to consumer 0, which merges and stores them.
          %second = arith.cmpi eq, %wg, %c1 : index
          scf.if %second {{
            vector.store %r#1, %merge_ml[%c0, %lane, %c0] : {ml}, vector<2xf32>
            vector.store %r#2, %merge_ml[%c1, %lane, %c0] : {ml}, vector<2xf32>
{stores_text}
          }}
          %merge_barrier = arith.constant {MERGE_BARRIER} : i32
          tile.named_barrier_sync %merge_barrier, {128 * CONSUMERS}
          %n_item = arith.subi %j1, %j0 : index
          %n_odd = arith.andi %n_item, %c1 : index
          %par_next = arith.xori %par0, %n_odd : index
          %first_wg = arith.cmpi eq, %wg, %c0 : index
          scf.if %first_wg {{
            %m1 = vector.load %merge_ml[%c0, %lane, %c0] : {ml}, vector<2xf32>
            %l1 = vector.load %merge_ml[%c1, %lane, %c0] : {ml}, vector<2xf32>
{loads_text}
            // m the larger maximum (0 for rows that saw no key: weights 0).
            %m_all = arith.maxnumf %r#1, %m1 : vector<2xf32>
            %m_all_c = arith.mulf %m_all, %c_l : vector<2xf32>
            %m_all_none = arith.cmpf oeq, %m_all, %ninf_l : vector<2xf32>
            %m_ref = arith.select %m_all_none, %zero_l, %m_all_c : vector<2xi1>, vector<2xf32>
            %m0_c = arith.mulf %r#1, %c_l : vector<2xf32>
            %m0_d = arith.subf %m0_c, %m_ref : vector<2xf32>
            %w0 = math.exp2 %m0_d fastmath<afn> : vector<2xf32>
            %m1_c = arith.mulf %m1, %c_l : vector<2xf32>
            %m1_d = arith.subf %m1_c, %m_ref : vector<2xf32>
            %w1 = math.exp2 %m1_d fastmath<afn> : vector<2xf32>
            %l0_w = arith.mulf %r#2, %w0 : vector<2xf32>
            %l_all = math.fma %l1, %w1, %l0_w : vector<2xf32>
            %w0_b = tile.warpgroup_broadcast_rows %w0 {{shape = array<i64: 64, {config.head_dim}>}}
                : vector<2xf32> -> vector<{acc}xf32>
            %w1_b = tile.warpgroup_broadcast_rows %w1 {{shape = array<i64: 64, {config.head_dim}>}}
                : vector<2xf32> -> vector<{acc}xf32>
            %o0_w = arith.mulf %r#0, %w0_b : vector<{acc}xf32>
            %o_all = math.fma {o1}, %w1_b, %o0_w : vector<{acc}xf32>
"""
    return alloc, merge


def decode_attention_family() -> KernelFamily:
    """The generated kernels, keyed by DecodeAttentionConfig."""
    return KernelFamily("decode_attention", decode_attention_source,
                        options={"index-bitwidth": 32})


#: The decode attention kernels of every config.
DECODE_ATTENTION = decode_attention_family()


#: A work item's cost beyond its key blocks, in blocks: its Q tile and
#: epilogue (measured: items of 7 blocks ran 2% slower than items of 256 on
#: an H100).
ITEM_OVERHEAD = 0.3
#: The combine's cost per COMBINE_UNROLL splits, in key blocks.
COMBINE_OVERHEAD = 0.3
#: The combine kernel's cost after streamed CTAs, in key blocks.
STREAM_COMBINE = 1.0
#: The share of the split items' cost that streaming must stay under: at
#: batch 64 and 4k keys (a 1.3% saving by the model) the two schedules
#: measured within -2.6% to +0.1% of each other on an H200, by cache layout.
STREAM_MARGIN = 0.98


def num_splits(units: int, blocks: int, sms: int, max_splits: int = MAX_SPLITS) -> int:
    """Splits of each sequence's `blocks` key blocks for `units` (batch x
    KV heads x row tiles) on `sms` persistent CTAs that take the items
    (unit, split) in turn: the count that minimizes the busiest CTA's items
    times their blocks (plus ITEM_OVERHEAD each) and the combine's passes,
    the fewest among equals; where the units fit the CTAs, no more items
    than CTAs (a second item a CTA costs far more than the model's
    overhead: bench/NOTES.md, "Splits where the units fit the SMs")."""
    if 0 < units <= sms:
        max_splits = min(max_splits, sms // units)
    best, best_cost = 1, None
    for s in range(1, max(1, min(max_splits, blocks)) + 1):
        cost = (cdiv(units * s, sms) * (cdiv(blocks, s) + ITEM_OVERHEAD)
                + COMBINE_OVERHEAD * cdiv(s, COMBINE_UNROLL))
        if best_cost is None or cost < best_cost - 1e-9:
            best, best_cost = s, cost
    return best

def split_cost(units: int, blocks: int, sms: int, splits: int) -> float:
    """The busiest CTA's work in key blocks of one 64-row tile (and the
    combine's) with the items (unit, split) taken in turn."""
    combine = COMBINE_OVERHEAD * cdiv(splits, COMBINE_UNROLL) if splits > 1 else 0.0
    return cdiv(units * splits, sms) * (cdiv(blocks, splits) + ITEM_OVERHEAD) + combine


def stream_range(units: int, blocks: int, sms: int) -> int:
    """Blocks of each CTA's range when the CTAs stream the units' blocks."""
    return cdiv(units * blocks, sms)


def stream_cost(units: int, blocks: int, sms: int) -> float:
    """The busiest CTA's work, as split_cost's, when each CTA streams an
    equal range of the units' blocks: its pieces (at most one a unit it
    meets) and, where the ranges cut units, the combine's."""
    span = stream_range(units, blocks, sms)
    pieces = cdiv(span, blocks) + (1 if span % blocks else 0)
    return span + pieces * ITEM_OVERHEAD + (STREAM_COMBINE if span % blocks else 0.0)


def streams_units(units: int, blocks: int, sms: int, splits: int = 0) -> bool:
    """Whether the CTAs stream the units' blocks (units beyond the SMs,
    where the split items' rounds leave SMs idle) rather than take the
    items of num_splits in turn (`splits`, where the caller has it): where
    the model saves STREAM_MARGIN."""
    return units > sms and stream_cost(units, blocks, sms) < STREAM_MARGIN * split_cost(
        units, blocks, sms, splits or num_splits(units, blocks, sms))


def decode_cost(units: int, blocks: int, sms: int) -> float:
    """The busiest CTA's work in key blocks of one 64-row tile (and the
    combine's) with the schedule plan_decode chooses."""
    splits = num_splits(units, blocks, sms)
    if streams_units(units, blocks, sms, splits):
        return stream_cost(units, blocks, sms)
    return split_cost(units, blocks, sms, splits)


def prefers_decode(batch: int, sq: int, heads: int, kv_heads: int, keys: int,
                   sms: int) -> bool:
    """Whether Sq queries a sequence against `keys` keys run faster on the
    split-KV kernels than on the prefill kernel (tile.attention's), by the
    busiest CTA's key blocks: the prefill kernel streams a 128-key block
    past a 128-row query tile (two consumer warpgroups) in about the time a
    decode CTA streams one past its 64-row tile (measured on an H100: 1.7
    µs either way), but it does not split the keys; the decode kernels
    pack a KV head's query rows (Sq x group) into 64-row tiles and split
    the keys until the SMs are full. A few queries: decode; a chunk whose
    query tiles fill the SMs: prefill."""
    if min(batch, sq, heads, kv_heads) <= 0:
        return True  # nothing to compute: either
    blocks = max(1, cdiv(keys, KEY_BLOCK))
    decode_units = batch * kv_heads * cdiv(sq * (heads // kv_heads), ROW_TILE)
    prefill_units = batch * heads * cdiv(sq, KEY_BLOCK)
    prefill = cdiv(prefill_units, sms) * (blocks + ITEM_OVERHEAD)
    return decode_cost(decode_units, blocks, sms) <= prefill


def config_for(element: str, head_dim: int, page: int, paged: bool,
               pool_elements: int = 0) -> DecodeAttentionConfig:
    """The kernel for a contiguous cache (boxes of 128 rows, clipped by TMA
    at the capacity) or pages of `page` tokens (16, 32, 64 or a multiple of
    128) in a pool that spans `pool_elements` elements (gathered pages
    address them with 32 bits: past that, TMA boxes)."""
    rows = min(page, KEY_BLOCK) if paged else KEY_BLOCK
    return DecodeAttentionConfig(element, head_dim, rows,
                                 gather=rows >= GATHER_BELOW or pool_elements <= GATHER_REACH)


@dataclass(frozen=True)
class DecodePlan:
    """The launches of one call shape: the split-KV kernel on one CTA per
    SM (or per item) and, unless its units' last splits combine (`fused`),
    the combine kernel; their scalar arguments (but the sequence length, a
    launch's), the workspace rows (splits x B x Hkv x row tiles x 64) and
    the units' counters (B x Hkv x row tiles). `stream`: each CTA takes an
    equal range of the units' blocks (`shape_scalars`' blocks per split;
    its splits bound the pieces a unit is cut into: the workspace's)."""
    kernel: object
    combine: object
    grid: tuple
    combine_grid: tuple
    #: The kernel's scalars before the sequence length and after it.
    shape_scalars: tuple
    mask_scalars: tuple
    combine_scalars: tuple
    workspace_rows: int
    units: int
    head_dim: int
    #: Every unit whole (one split, or ranges of whole units) and one
    #: query: the kernel writes a contiguous out itself, no combine.
    direct: bool
    #: The units' last splits combine in eager calls (at most
    #: FUSED_COMBINE_ROWS rows, one item a CTA).
    fused: bool
    #: The CTAs stream ranges of the units' blocks, each `unit_blocks`.
    stream: bool = False
    unit_blocks: int = 1

    def launch(self, torch, index: int, q, k4, v4, table, seqlens, length: int, out,
               placeholders, stream=None, added: int = 0) -> None:
        """Launches on checked operands, on `stream` (with its workspace):
        q and out (B, Sq, H, D) views, k4 and v4 the cache as (pages, Hkv,
        page rows, D) views, `table` (B, pages per sequence) int32 (paged) or
        a placeholder; the keys of sequence b are `seqlens[b] + added` ((B,)
        int32; `added` keys appended since) or, with `seqlens` None, `length`
        for all; `placeholders(dtype)` gives (rows, vector) tensors for the
        parameters a launch does not use. (prepare, for one call.)"""
        self.prepare(torch, index, q, k4, v4, table, seqlens, out, placeholders, stream)(
            q, k4, v4, table, seqlens, out, length, added)

    def prepare(self, torch, index: int, q, k4, v4, table, seqlens, out, placeholders,
                stream=None):
        """launch's launches on `stream` prepared (Kernel.prepare) for
        operands like these, the scalars and the stream's workspace packed
        once: returns run(q, k4, v4, table, seqlens, out, length, added),
        which packs those only (arrays by address: q and out may be the
        tensors whose transposes these are)."""
        per_sequence = seqlens is not None
        pad = placeholders(torch.int32)[1]
        head = (q, k4, v4, table, seqlens if per_sequence else pad)
        lengths = (0, per_sequence, 0)

        def scalars(seqlens, length: int, added: int) -> tuple:
            """The kernel's (seqlens, length, added): seqlens[b] + added keys,
            or one length for all (clamped: a 32-bit parameter; the kernel
            clamps to the capacity)."""
            if per_sequence:
                return seqlens, 0, int(added)
            return pad, max(0, min(int(length), 2**31 - 1)), 0

        # Varying: q, k4, v4, table, seqlens, out (by address: as rows where
        # the kernel writes it directly, as (B, Sq, H, D) for the combine,
        # or both), the length and added.
        shape_end = 10 + len(self.shape_scalars)
        direct = self.direct and out.is_contiguous()
        # Streamed, a unit one CTA takes whole (one query) is stored as rows
        # of a contiguous out; the cut units go through the workspace.
        rows_too = self.stream and self.shape_scalars[1] == 1 and out.is_contiguous()
        schedule = (self.stream, self.unit_blocks)
        if direct:
            ws_o, ws_lse = placeholders(torch.float32)
            # (B, Sq, H, D) out, for the combine: a placeholder view (the
            # launch keeps its fixed arguments alive).
            buffers = (ws_o, ws_lse, placeholders(torch.int32)[1],
                       out.view(-1, self.head_dim), placeholders(q.dtype)[0][None, None])
        else:
            ws_o, ws_lse, counters, lock = workspace(torch, index, stream,
                                                     self.workspace_rows, self.units,
                                                     self.head_dim)
            rows = out.view(-1, self.head_dim) if rows_too else placeholders(q.dtype)[0]
            buffers = (ws_o, ws_lse, counters, rows, out)
        outs = (8,) if direct else (8, 9) if rows_too else (9,)

        def prepared(fused: bool):
            return self.kernel.prepare(
                index, head + buffers + self.shape_scalars + lengths + self.mask_scalars
                + (direct or rows_too, fused) + schedule, self.grid, stream,
                varying=(0, 1, 2, 3, 4) + outs + (shape_end, shape_end + 2))
        kernel = prepared(False)
        if direct:
            def run(q, k4, v4, table, seqlens, out, length, added):
                lengths, length, added = scalars(seqlens, length, added)
                kernel(q, k4, v4, table, lengths, out, length, added)
            return run
        # Eager, units of few rows combine in their last split (one launch
        # less: host time); under CUDA graph capture, where launches cost
        # nothing at replay, the combine kernel does (a shorter GPU tail).
        # Both combine in the same order: the same bits. (A launch prepared
        # during a capture, whose counters may be zeroed only in the graph,
        # never fuses.)
        capturing = torch.cuda.is_current_stream_capturing
        fusing = self.fused and not capturing()
        fused = []  # the fused launch, prepared on its first call
        combine = self.combine.prepare(
            index, (ws_o, ws_lse, out) + self.combine_scalars + (rows_too, self.stream),
            self.combine_grid, stream, varying=(2,))
        outs_of = (lambda out: (out, out)) if rows_too else (lambda out: (out,))

        def run_and_combine(q, k4, v4, table, seqlens, out, length, added):
            lengths, length, added = scalars(seqlens, length, added)
            # The workspace's lock: no other call on the stream between a
            # kernel and its combine.
            with lock:
                if fusing and not capturing():
                    if not fused:
                        fused.append(prepared(True))
                    fused[0](q, k4, v4, table, lengths, out, length, added)
                    return
                kernel(q, k4, v4, table, lengths, *outs_of(out), length, added)
                combine(out)
        return run_and_combine


#: Each (device, stream)'s split-KV workspace: f32 rows of O and their
#: log-sum-exps, the units' arrival counters (zero: each launch leaves them
#: so), grown (doubling) when a plan needs more, and the lock that keeps a
#: call's kernel and combine kernel together (host threads on one stream
#: would interleave them). Prepared launches keep the buffers they were
#: prepared with; launches on one stream never overlap, so they share them.
WORKSPACES = LruCache(16)


def workspace(torch, index: int, stream, rows: int, units: int, head_dim: int):
    """(ws_o (rows, head_dim), ws_lse (rows,), counters (units,), lock) of
    the workspace of `stream` (None: the current one) on device `index`."""
    key = (index, streams.stream_handle(stream, index) or 0)
    found = WORKSPACES.peek(key)
    if (found is None or found[0].numel() < rows * head_dim or found[1].numel() < rows
            or found[2].numel() < units):
        size = max(rows, 2 * found[1].numel() if found is not None else 0)
        count = max(units, 2 * found[2].numel() if found is not None else 0)
        # Allocated on the launch stream (the counters zeroed there): freed
        # back to its pool.
        with torch.cuda.stream(streams.torch_stream(torch, stream, index)):
            found = (torch.empty(size * max(HEAD_DIMS), device=f"cuda:{index}",
                                 dtype=torch.float32),
                     torch.empty(size, device=f"cuda:{index}", dtype=torch.float32),
                     torch.zeros(count, device=f"cuda:{index}", dtype=torch.int32),
                     found[3] if found is not None else threading.Lock())
        # Made during a CUDA graph capture, the buffers are the graph's (its
        # counters zeroed at replay): not the stream's for later calls.
        if not torch.cuda.is_current_stream_capturing():
            WORKSPACES.put(key, found)
    return (found[0][:rows * head_dim].view(rows, head_dim), found[1][:rows],
            found[2][:units], found[3])


def plan_decode(element: str, sms: int, batch: int, sq: int, heads: int, kv_heads: int,
                head_dim: int, *, page: int, capacity: int, paged: bool, scale_log2: float,
                causal: bool, splits: int = 0, softcap=(0.0, 1.0),
                pool_elements: int = 0) -> DecodePlan:
    """The plan of a call: `element` "f16"/"bf16", `page` the tokens of a
    page (paged) and `capacity` the keys a sequence can hold (bounds the
    splits; the kernel clamps seqlens to it); `splits` 0 chooses them
    (num_splits); `softcap` the kernels' (cap_in, cap_out), cap_in 0 for
    none (tile.ops.attention.softcap_factors); `pool_elements` the elements
    a paged cache spans (config_for)."""
    group = heads // kv_heads
    row_tiles = cdiv(sq * group, ROW_TILE)
    units = batch * kv_heads * row_tiles
    blocks = max(1, cdiv(capacity, KEY_BLOCK))
    chosen = splits or num_splits(units, blocks, sms)
    stream = not splits and streams_units(units, blocks, sms, chosen)
    if stream:
        # Ranges of per_split blocks cut a unit of `blocks` into at most
        # cdiv(blocks - 1, per_split) + 1 pieces (the workspace's splits).
        per_split = stream_range(units, blocks, sms)
        splits = min(cdiv(blocks - 1, per_split) + 1, blocks)
        ctas = cdiv(units * blocks, per_split)
    else:
        # The kernel divides each sequence's own blocks by the splits; the
        # capacity's division only drops splits that a full sequence would
        # leave empty (33 blocks in 16 splits: 11 of 3).
        splits = min(chosen, MAX_SPLITS)
        per_split = cdiv(blocks, max(1, min(splits, blocks)))
        splits = cdiv(blocks, per_split)
        ctas = min(units * splits, sms)
    config = config_for(element, head_dim, page, paged, pool_elements)
    if config.page_rows < KEY_BLOCK and page != config.page_rows:
        # A box below 128 rows is a whole page: the producer takes block j's
        # pages as j n .. j n + n - 1 from row 0, not by dividing by the page.
        raise ValueError(f"decode attention: {config.page_rows}-row boxes read pages of "
                         f"{config.page_rows} tokens, got {page}")
    return DecodePlan(
        DECODE_ATTENTION.kernel(config, config.name),
        DECODE_ATTENTION.kernel(config, "decode_attention_combine"),
        (ctas, 1, 1), (cdiv(batch * sq * heads, COMBINE_ROWS), 1, 1),
        (batch, sq, group, kv_heads, row_tiles, page if paged else capacity, per_split, splits),
        (scale_log2, *softcap, softcap[0] > 0, bool(causal), bool(paged)),
        (batch, sq, group, kv_heads, row_tiles, splits, per_split, blocks),
        splits * units * ROW_TILE, units, head_dim,
        direct=sq == 1 and (splits == 1 or stream and per_split % blocks == 0),
        fused=(not stream and min(sq * group, ROW_TILE) <= FUSED_COMBINE_ROWS
               and units * splits <= sms),
        stream=stream, unit_blocks=blocks)
