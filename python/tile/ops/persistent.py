"""What the persistent Hopper GEMM kernels share (gemm_sm90, its FP8 and
grouped variants): one CTA per SM walking 128 x 256 tiles (128 x 128 for
tile.matmul's narrow shapes), a mostly idle last
wave split along K (tile.work_unit split_k, T-TILE-7) with partial sums in a
workspace per stream and device."""
from typing import Tuple

from ..core import streams
from ..core.caches import LruCache
from ..core.operands import cdiv

#: CTA tiles of the persistent kernels (rows, columns); gemm_sm90 also
#: compiles tiles NARROW_TILE columns wide (tile.ops.matmul).
TILE = (128, 256)
NARROW_TILE = 128
#: K-slices (of 64) a split of a tile keeps at least: shorter splits cost
#: more in their fixup than they save (H100, bf16: 256^3, 512^3 and 1024^3
#: ran 1.3-1.9x faster with one CTA a tile than split over the SMs; 256 and
#: 512 x 4096 x 4096, 64 slices, 1.2-1.4x faster split in 4 and 2).
MIN_SPLIT_SLICES = 16
#: The most splits tile.work_unit's split_k makes of a tile (T-TILE-7).
MAX_SPLITS = 8


def tile_width(m: int, n: int, sms: int) -> int:
    """The tile columns of an M x N product: NARROW_TILE where N is no wider
    or where the 256-wide tiles would fill half the SMs or less (twice as
    many narrow tiles still fit one wave), else TILE's."""
    wide = cdiv(m, TILE[0]) * cdiv(n, TILE[1])
    return NARROW_TILE if n <= NARROW_TILE or 2 * wide <= sms else TILE[1]


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


def split_k_workspace_shape(ctas: int, tile_n: int = TILE[1]) -> Tuple[Tuple[int, int], int]:
    """((rows, columns) of the f32 workspace, counters) of a persistent
    kernel on `ctas` CTAs with tiles `tile_n` wide: at most ctas / 2 tiles
    of s splits, s times the tiles at most the grid, each of two 64-row
    halves (one per consumer warpgroup) with a slot of 128 rows of the 64 x
    tile_n / 128 accumulators a thread holds per split: 2 x ctas x 128 rows,
    and one counter per CTA. Plans take it for the SM count (their grids are
    no larger), so one workspace per stream and tile width serves every
    shape."""
    return (2 * ctas * 128, TILE[0] * tile_n // 2 // 128), ctas


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
