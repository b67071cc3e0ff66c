"""What the persistent Hopper GEMM kernels share (gemm_sm90, its FP8 and
grouped variants): one CTA per SM walking 128 x 256 tiles (128 x 192,
128 x 128, the widths that fit the waves, 224, 160 and 96, or, 16-bit
only, 128 x 64 where tile.matmul's tile_width finds them faster), a
mostly idle last
wave split along K (tile.work_unit split_k, T-TILE-7) with partial sums in a
workspace per stream and device."""
from typing import Dict, Optional, Tuple

from ..core import streams
from ..core.caches import LruCache
from ..core.operands import cdiv

#: CTA tiles of the persistent kernels (rows, columns); gemm_sm90 and
#: gemm_sm90_fp8's @gemm_fp8_nt also compile tiles NARROW_TILE and MID_TILE
#: columns wide (width_aliases), gemm_sm90 SLIM_TILE wide too.
TILE = (128, 256)
NARROW_TILE = 128
MID_TILE = 192
#: 128 x 64 tiles (wgmma m64n64k16): twice the 128-wide tiles' CTAs where
#: those would be split along K (a few row tiles of a long K: NVIDIA H200,
#: bf16, 256 x 576 x 7168 11.5 µs against 14.7 split in 6 or 8, 1024^3 7.1
#: against 8.0).
SLIM_TILE = 64
#: Tiles whose waves fit the SMs where the others' leave many idle (as
#: cuBLAS's and DeepGEMM's unaligned tile widths), 16-bit and 8-bit
#: operands: 7, 5 and 3 chunks of 32 columns of C (and of a row-major B
#: in gemm_nn's ring).
FIT_WIDE_TILE, FIT_MID_TILE, FIT_NARROW_TILE = 224, 160, 96
FIT_WIDTHS = (FIT_WIDE_TILE, FIT_MID_TILE, FIT_NARROW_TILE)
#: The most waves of 128 x 256 tiles at which tile_width weighs the fitted
#: widths (NVIDIA H200, bf16: 4096 x 32768 x 512, 31 waves, ran 236 µs on
#: 160-wide tiles against 229 on 192-wide ones that the estimate ranks
#: below them).
FIT_MAX_WAVES = 4
#: The tile widths tile_width chooses from for 16-bit operands, widest
#: first, and for 8-bit ones (@gemm_fp8_nt has no 64-wide tiles).
TILE_WIDTHS = (TILE[1], FIT_WIDE_TILE, MID_TILE, FIT_MID_TILE, NARROW_TILE, FIT_NARROW_TILE,
               SLIM_TILE)
FP8_TILE_WIDTHS = (TILE[1], FIT_WIDE_TILE, MID_TILE, FIT_MID_TILE, NARROW_TILE, FIT_NARROW_TILE)
#: The tile widths of ping-pong consumers (each warpgroup all 128 rows of
#: every other tile: 128 x width / 128 accumulators a thread), 16-bit and
#: 8-bit operands.
PINGPONG_WIDTHS = (NARROW_TILE, SLIM_TILE)
FP8_PINGPONG_WIDTHS = (NARROW_TILE,)
#: A kernel variant's last element for ping-pong consumers (the #pingpong
#: switch of gemm_sm90.mlir and gemm_sm90_fp8.mlir).
PINGPONG = "pingpong"
#: The longest K that ping-pong consumers take (pingpong_pays): one's
#: epilogue under the other's MMAs saves a share of the time that shrinks
#: with K. NVIDIA H200, FP8 row-wise, 128 x 128 ping-pong against the plan
#: before it (cooperative 128 x 256 or its clusters), kernel µs: K = 512-2048
#: 4096x32768x512 158 / 180, 16384x7168x2048 340 / 418, 2048x7168x1024 26.4 /
#: 32.2; K = 4096-7168 4096x28672x4096 681 / 778, 8192x7168x7168 607 / 630;
#: K = 8192 8192^3 838 / 839; K = 16384 4096x7168x16384 733 / 675.
PINGPONG_MAX_K = 7168
#: The share of the SMs that ping-pong's last wave of 128 x 128 tiles must
#: fill where the cooperative tiles would be 192 wide (NVIDIA H200, FP8,
#: µs, 192-wide (160 at 2.2 waves) against ping-pong: last wave 0.91 full
#: 256x24576x1536 21.5 / 18.6, 1024x6144x1536 18.3 / 16.5, 4096x1536x4096
#: 38.0 / 36.6; 0.73 full 512x36864x1536 52.9 / 46.8, 4096x4608x1024 38.3 /
#: 33.6; 0.36 full 1024x9216x4096 57.4 / 59.7, 4096x2304x1024 20.3 / 22.9;
#: 0.18 full 512x9216x7168 53.0 / 54.2 (on 160-wide tiles); nothing
#: measured between 0.36 and 0.73; 16-bit operands with bias and GELU lost
#: at 0.36 full too, and their rule chose 192 with no fuller last wave).
PINGPONG_LAST_WAVE = 2 / 3
#: K-slices (of 64) a split of a tile keeps at least: shorter splits cost
#: more in their fixup than they save (H100, bf16: 256^3, 512^3 and 1024^3
#: ran 1.3-1.9x faster with one CTA a tile than split over the SMs; 256 and
#: 512 x 4096 x 4096, 64 slices, 1.2-1.4x faster split in 4 and 2).
MIN_SPLIT_SLICES = 16
#: The most splits tile.work_unit's split_k makes of a tile (T-TILE-7).
MAX_SPLITS = 8
#: tile_width's cost model, fitted on an H100 (bench/tile_widths.py; the
#: width it picks ran within 4% of the fastest of the three at each of 29
#: bf16 shapes with M >= 256, within 0.3% at 21 FP8 ones): the time of one
#: K-slice of a tile per column, relative to a 256-wide tile's, by the
#: slice's elements (64: 16-bit operands; 128: FP8, whose faster slices
#: favour the wide tiles' higher arithmetic intensity; a 64-wide slice took
#: 0.86-0.95 of a 128-wide one's time on an H200, 1.9 by column), and the fixup of a
#: split tile, FIXUP_SLICES + FIXUP_SLICES_PER_SPLIT x splits K-slices of
#: its width (the partials written and read back serially after the last
#: split). The fitted widths' costs are an NVIDIA H200's (the choice is
#: the fastest width or within 0.5% of it at 25 of 26 bf16 shapes and 20 of
#: 22 FP8 ones of bench/NOTES.md).
SLICE_COST = {64: {TILE[1]: 1.0, FIT_WIDE_TILE: 1.08, MID_TILE: 1.1, FIT_MID_TILE: 1.08,
                   NARROW_TILE: 1.08, FIT_NARROW_TILE: 1.35, SLIM_TILE: 1.9},
              128: {TILE[1]: 1.0, FIT_WIDE_TILE: 1.12, MID_TILE: 1.2, FIT_MID_TILE: 1.1,
                    NARROW_TILE: 1.3, FIT_NARROW_TILE: 1.5}}
FIXUP_SLICES, FIXUP_SLICES_PER_SPLIT = 12, 6


#: Ring stages of the persistent kernels by tile width: a stage holds 128
#: rows of A and `width` of B, 128 bytes each (64 16-bit or 128 8-bit
#: elements of K), so either element size takes 224 KB with 256- and
#: 128-wide tiles (H100, bf16: 6 stages of 128-wide tiles ran 256 / 512 x
#: 4096 x 4096 11% faster than 4, smaller shapes alike), 208 KB with
#: 192-wide ones (a fifth 40 KB stage does not fit beside their three
#: staging buffers) and 208 KB with 64-wide ones (eight 24 KB stages; a
#: ninth passes the CTA's shared memory, T-SMEM-2); the fitted widths as
#: many as fit beside their staging buffers: 184 KB with 224 (four 44 KB
#: stages and one 4 KB buffer a warpgroup that its seven 64 x 32 chunks
#: take in turn; a fifth stage does not fit), 220 KB with 160 (five stages,
#: five buffers) and 220 KB with 96 (seven stages, three buffers).
RING_STAGES = {TILE[1]: 4, FIT_WIDE_TILE: 4, MID_TILE: 4, FIT_MID_TILE: 5, NARROW_TILE: 6,
               FIT_NARROW_TILE: 7, SLIM_TILE: 8}


def chunk_columns(columns: int) -> int:
    """The columns of the 64-row chunks in which an epilogue stores (and
    A B's ring holds B's) `columns` columns: 64 (a 128-byte swizzle span of
    16-bit elements) where they are a multiple of 64, else 32."""
    if columns % 32:
        raise ValueError(f"tiles are stored in chunks of 64 or 32 columns, got {columns}")
    return 64 if columns % 64 == 0 else 32


def chunk_swizzle(columns: int, element_bytes: int) -> str:
    """The swizzle of a chunk `columns` (chunk_columns) elements of
    `element_bytes` wide: its rows are one swizzle span (b128, b64, b32)."""
    return f"b{columns * element_bytes}"


def chunk_descriptor(element: str, columns: int, swizzle: str) -> str:
    """The TMA descriptor type of 64 x `columns` chunks (chunk_columns) of
    a matrix of element alias `element`, swizzled `swizzle`."""
    return (f"!tile.tma_desc<memref<?x?x{element}>, box = [64, {columns}], "
            f"swizzle = {swizzle}>")


def staging_ring(columns: int, c: str, rows: int = 64) -> str:
    """The staging ring of an epilogue that stores a warpgroup's rows x
    `columns` tile of C (element alias `c`) in 64 x chunk_columns chunks:
    staging_buffers of them for each of the two warpgroups."""
    width = chunk_columns(columns)
    return f"memref<2x{staging_buffers(rows // 64 * columns // width)}x64x{width}x{c}, 3>"


def store_aliases(columns: int, c: str, element_bytes: int, descriptor: str) -> Dict[str, str]:
    """The aliases of an epilogue that stores a warpgroup's 64 x `columns`
    tile of C (element alias `c`, `element_bytes` each): C's chunk
    descriptor (alias `descriptor`), their swizzle (#c_swizzle) and the
    staging ring (!staging)."""
    width = chunk_columns(columns)
    swizzle = chunk_swizzle(width, element_bytes)
    return {"!staging": staging_ring(columns, c), descriptor: chunk_descriptor(c, width, swizzle),
            "#c_swizzle": f"#tile.swizzle<{swizzle}>"}


def staging_buffers(chunks: int) -> int:
    """The staging buffers of an epilogue that stores `chunks` TMA chunks
    a warpgroup: two, or as many as chunks where they are odd and at most
    five, else one (a call's chunks are a multiple of its buffers,
    T-TILE-4; seven would pass the shared memory beside a 224-wide tile's
    ring)."""
    if chunks % 2 == 0:
        return 2
    return chunks if chunks <= 5 else 1


def width_aliases(tile_n: int, slice_k: int, a: str = "!e", b: str = "!e",
                  bars: str = "!bars") -> Dict[str, str]:
    """The aliases that make a persistent kernel's tiles `tile_n` (one of
    TILE_WIDTHS) columns wide, for K-slices of `slice_k` elements of A's
    and B's types `a` and `b`: the ring's depth (its barriers `bars`), A's
    and B's stages and B's box, a consumer thread's accumulators (64 x
    tile_n / 128), the wgmma and store shapes and the split-K workspace's
    columns."""
    stages, accumulators = RING_STAGES[tile_n], 64 * tile_n // 128
    return {"#tile_n": f"{tile_n} : index", "#tile_n_1": f"{tile_n - 1} : index",
            "#stages": f"{stages} : index", bars: f"!tile.mbarrier<count = {stages}>",
            "!ring_a": f"memref<{stages}x128x{slice_k}x{a}, 3>",
            "!ring_b": f"memref<{stages}x{tile_n}x{slice_k}x{b}, 3>",
            "!db": f"!tile.tma_desc<memref<?x?x{b}>, box = [{tile_n}, {slice_k}], swizzle = b128>",
            "!acc": f"vector<{accumulators}xf32>", "#mma": f"array<i64: 64, {tile_n}, {slice_k}>",
            "#half_tile": f"array<i64: 64, {tile_n}>",
            "!workspace": f"memref<?x{accumulators}xf32>"}


def pingpong_aliases(tile_n: int, slice_k: int, out_n: int, c: str,
                     widths: Tuple[int, ...] = PINGPONG_WIDTHS) -> Dict[str, str]:
    """The aliases that give a persistent kernel's consumer warpgroups
    every other tile `tile_n` (one of `widths`) columns wide in K-slices of
    `slice_k` elements, all 128 rows of it (#pingpong): 128 x tile_n / 128
    accumulators a thread (one split-K workspace column each), the wgmma
    and accumulator shapes of 128 rows, and the staging ring of C (`c` its
    element alias) for a 128 x out_n output tile."""
    if tile_n not in widths:
        raise ValueError(f"ping-pong consumers take tiles {widths} columns wide (a warpgroup "
                         f"holds 128 x N / 128 accumulators), got {tile_n}")
    return {"#pingpong": "true", "!acc": f"vector<{tile_n}xf32>",
            "#mma": f"array<i64: 128, {tile_n}, {slice_k}>",
            "#half_tile": f"array<i64: 128, {tile_n}>",
            "!staging": staging_ring(out_n, c, rows=128),
            "!workspace": f"memref<?x{tile_n}xf32>"}


def busiest_slices(m: int, n: int, k: int, sms: int, tile_n: int, slice_k: int = 64) -> int:
    """The K-slices (with a split tile's fixup in slices) that the busiest
    CTA of a persistent kernel runs for M x N x K in tiles `tile_n` wide, on
    persistent_grid's grid: whole tiles wave after wave, and a last wave of
    at most half the SMs split as tile.work_unit's split_k splits it
    (T-TILE-7); with fewer tiles than SMs, persistent_grid's splits."""
    tiles, iters = cdiv(m, TILE[0]) * cdiv(n, tile_n), cdiv(k, slice_k)
    if tiles == 0:
        return 0
    if tiles < sms:
        splits = persistent_grid(m, n, k, sms, tile_n, slice_k) // tiles
        waves, tail = 0, iters
    else:
        waves, partial = divmod(tiles, sms)
        splits = (min(sms // partial, iters, MAX_SPLITS)
                  if partial and 2 * partial <= sms and iters >= 2 else 1)
        if splits == 1:
            waves, partial = cdiv(tiles, sms), 0
        tail = iters if partial else 0
    fixup = FIXUP_SLICES + FIXUP_SLICES_PER_SPLIT * splits if splits > 1 else 0
    return waves * iters + cdiv(tail, splits) + fixup


def tile_width(m: int, n: int, k: int, sms: int, widths: Tuple[int, ...] = TILE_WIDTHS,
               slice_k: int = 64) -> int:
    """The tile columns of an M x N x K product in K-slices of `slice_k`
    elements, of `widths`: the least estimated time (busiest_slices x width
    x SLICE_COST), the wider on a tie. The 128 x 256 tiles where they fill the SMs in whole waves; 192
    where N is a multiple of 192 and not of 256 (N = 576: a third of the
    256-wide tiles' columns would be padding) or where their waves fit the
    SMs better; 128 where the wider tiles leave most SMs idle or N <= 128;
    64 where even those would be split along K into many ranges (a few row
    tiles of a long K) or fill few SMs (small squares); 224, 160 and 96
    where their waves fit the SMs and the 256-wide tiles' are at most
    FIT_MAX_WAVES (past them a wave's idle part is a small share, below
    what the estimate resolves)."""
    if cdiv(m, TILE[0]) * cdiv(n, TILE[1]) > FIT_MAX_WAVES * sms:
        widths = unfitted(widths) or widths
    return min(widths, key=lambda width: (tile_cost(m, n, k, sms, width, slice_k), -width))


def unfitted(widths: Tuple[int, ...]) -> Tuple[int, ...]:
    """`widths` but those that fit the waves (FIT_WIDTHS): the choice
    pingpong_pays weighs, as measured before them."""
    return tuple(width for width in widths if width not in FIT_WIDTHS)


def tile_cost(m: int, n: int, k: int, sms: int, width: int, slice_k: int = 64) -> float:
    """tile_width's estimated time of tiles `width` wide: busiest_slices x
    width x SLICE_COST (a 256-wide tile's K-slice per column)."""
    return busiest_slices(m, n, k, sms, width, slice_k) * width * SLICE_COST[slice_k][width]


def pingpong_pays(m: int, n: int, k: int, sms: int, tile_n: int,
                  fitted: Optional[int] = None) -> bool:
    """Whether 128 x 128 tiles on ping-pong consumers beat the cooperative
    tiles `tile_n` wide that tile_width chose from the unfitted widths
    (`fitted`: its choice with the fitted ones too, if they were offered;
    they ran level with ping-pong where both apply and the unfitted choice
    is 256: FP8 2048 x 7168 x 4096 89.3 against 89.7 µs, 512 x 28672 x 4096
    91.8 against 91.6; NVIDIA H200): where K is at most PINGPONG_MAX_K,
    there are at least two 128 x 128 tiles a CTA (each warpgroup one at a
    time: with fewer, a CTA's units do not alternate; FP8 300x640x4096 12.6
    µs against 12.1, 1008^3 7.1 against 7.3) and that width is 256 or 128;
    or both choices are 192, K is at most 4096, 128-wide tiles do not pad N
    (N = 576 and the like) and fill at least PINGPONG_LAST_WAVE of their
    last wave (as measured)."""
    tiles = cdiv(m, TILE[0]) * cdiv(n, NARROW_TILE)
    if k > PINGPONG_MAX_K or tiles < 2 * sms:
        return False
    if tile_n == MID_TILE:
        last_wave = tiles % sms or sms
        return ((fitted or tile_n) == MID_TILE and k <= 4096 and n % NARROW_TILE == 0
                and last_wave >= PINGPONG_LAST_WAVE * sms)
    return tile_n in (TILE[1], NARROW_TILE)


def persistent_grid(m: int, n: int, k: int, sms: int, tile_n: int = TILE[1],
                    slice_k: int = 64) -> int:
    """The CTAs of a persistent kernel for M x N x K in tiles `tile_n` wide
    and K-slices of `slice_k` elements (128 bytes: 64 16-bit elements, 128
    8-bit ones): one per SM once the tiles fill the SMs (split_k then splits
    a mostly idle last wave); with fewer tiles, one per tile times the
    splits along K that split_k makes for that grid, as many as fit the SMs
    with MIN_SPLIT_SLICES each (FP8 on an H100: 256^3, 512^3, 1024^3
    1.7-1.9x faster than on every SM)."""
    tiles = cdiv(m, TILE[0]) * cdiv(n, tile_n)
    if tiles >= sms:
        return sms
    splits = max(1, min(sms // max(tiles, 1), cdiv(k, slice_k) // MIN_SPLIT_SLICES,
                        MAX_SPLITS))
    return max(1, tiles * splits)


def split_k_workspace_shape(ctas: int, tile_n: int = TILE[1],
                            pingpong: bool = False) -> Tuple[Tuple[int, int], int]:
    """((rows, columns) of the f32 workspace, counters) of a persistent
    kernel on `ctas` CTAs with tiles `tile_n` wide: at most ctas / 2 tiles
    of s splits, s times the tiles at most the grid, each of two 64-row
    halves (one per consumer warpgroup; with `pingpong`, one warpgroup's
    128 rows and an unused slot) with a slot of 128 rows of the
    accumulators a thread holds per split (64 x tile_n / 128, or 128 x
    tile_n / 128): 2 x ctas x 128 rows, and one counter per CTA. Plans take
    it for the SM count (their grids are no larger), so one workspace per
    stream and workspace shape serves every problem shape."""
    rows = TILE[0] if pingpong else TILE[0] // 2
    return (2 * ctas * 128, rows * tile_n // 128), ctas


#: Scratch buffers (split-K workspaces and counters, staging copies) by
#: (purpose, stream, shape, dtype, device), most recently used last. A buffer
#: is reused only by later calls on the same stream, which the stream orders
#: after the previous call's kernels and copies; prepared launches keep the
#: buffers they were prepared with (alive past an eviction here).
SCRATCH = LruCache(16)


def split_k_buffers(torch, shape: Tuple[Tuple[int, int], int], device: int, stream=None):
    """The workspace and counters of `shape` (zero; each launch leaves them
    zero) on `device` for launches on `stream` (None: PyTorch's current
    stream there; a torch stream or a raw CUstream): launches on one stream
    never overlap, so they never share counters."""
    (rows, columns), counters = shape
    key = ("split-k", streams.stream_handle(stream, device), rows, columns, counters, device)

    def make():
        # Allocated (and the counters zeroed) on the launch stream: ordered
        # before the kernel, and freed back to that stream's pool.
        with torch.cuda.stream(streams.torch_stream(torch, stream, device)):
            return (torch.empty((rows, columns), device=f"cuda:{device}", dtype=torch.float32),
                    torch.zeros(counters, device=f"cuda:{device}", dtype=torch.int32))
    return SCRATCH.get(key, make)
