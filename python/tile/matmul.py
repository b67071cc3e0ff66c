"""C = A B on the Hopper GEMM kernels of python/tile/kernels/gemm_sm90.mlir, from PyTorch.

    c = tile.matmul(a, b)                    # A (M x K) @ B (K x N)
    c = tile.matmul(a, b, transpose_b=True)  # A (M x K) @ B (N x K)^T
    tile.matmul(a, b, out=c, stream=s)       # into c, on stream s

f16 or bf16 operands, f32 accumulation, C in the operands' type. The kernel
follows from B's layout in memory, not from `transpose_b`: a row-major K x N
B runs @gemm_nn, a row-major N x K B (`transpose_b=True`, or the transposed
view of one) runs @gemm_nt; for M <= 128 (decode and small batches) either
layout runs a decode kernel of tile.gemm_decode, which streams B once over
ceil(N / 64) CTAs (or ceil(N / 128) for M > 64 and a large N). The
persistent grids take the device's SM count and the kernels' shared memory
comes from their manifest. Launches are stream-ordered (PyTorch's current
stream unless `stream` is given) and do not wait.

TMA needs 16-byte aligned base addresses and row strides (T-TMA-9, T-TMA-10):
operands whose rows are not (K, or N except for the decode kernel, which
stores C element by element, not a multiple of 8) are staged through copies
with aligned rows (buffers kept per stream and shape, at most 16) — the kernels then read (or write) views of the copies
whose width is the operand's, so TMA zero-fills (clips) past it — or, with
`stage=False`, raise MatmulError naming the rule. Rows must be contiguous
(any pitch) and the GPU an sm_90; anything else raises MatmulError.

`plan_matmul` is the decision on plain shapes, strides and addresses (no
PyTorch, no GPU), for tests and for tools that launch the kernels themselves
(bench/).
"""
import hashlib
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Dict, Optional, Tuple

from .gemm_decode import ROWS, SLICE, DecodeConfig, decode_source, rows_for

#: The kernels' source, compiled on first use (cached on disk by tile.compile).
GEMM_SOURCE = Path(__file__).resolve().parents[2] / "examples" / "gemm_sm90.mlir"

#: CTA tiles of the kernels of python/tile/kernels/gemm_sm90.mlir: @gemm_nt and
#: @gemm_nn compute 128 x 256 tiles on a persistent grid.
PERSISTENT_TILE = (128, 256)
#: M up to which the decode kernels (tile.gemm_decode) run, both layouts.
DECODE_MAX_M = ROWS[-1]
#: Shared memory the driver reserves per CTA (sm_90), beside the kernel's.
RESERVED_SHARED = 1024
#: Shared memory per SM (sm_90: 228 KB).
SM_SHARED = 233472

#: Element types and their bytes.
ELEMENTS = {"float16": ("f16", 2), "bfloat16": ("bf16", 2)}
#: TMA: global addresses and row strides in bytes are multiples of 16.
TMA_ALIGNMENT = 16


class MatmulError(ValueError):
    """Operands or a device tile.matmul cannot take, and why."""


@dataclass(frozen=True)
class Operand:
    """What the planner needs of a matrix: shape and strides in elements,
    the element type ("float16", "bfloat16", ...), the address of its first
    element and its device ("cuda:0")."""
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    dtype: str
    address: int
    device: str


@dataclass(frozen=True)
class Device:
    """The GPU: SM count, compute capability and the shared memory a block
    may opt into (None when unknown)."""
    sms: int
    capability: Tuple[int, int]
    shared_optin: Optional[int] = None


@dataclass(frozen=True)
class MatmulPlan:
    """One launch: the kernel, its element type, the problem, its grid,
    whether B is passed as the transpose of the logical K x N view, and the
    operands ("A", "B", "C") to stage through a copy whose rows start 16-byte
    aligned (`pitch`: row pitch in elements, a multiple of 8)."""
    kernel: str
    element: str
    m: int
    n: int
    k: int
    grid: Tuple[int, int, int]
    b_transposed: bool
    staged: Tuple[str, ...] = ()
    decode: Optional[DecodeConfig] = None

    @staticmethod
    def pitch(columns: int) -> int:
        return -(-columns // 8) * 8

    @property
    def split_k_shape(self) -> Optional[Tuple[Tuple[int, int], int]]:
        """The (workspace rows, columns) and counters of a kernel that sums
        partial tiles with tile.split_k_reduce (None if it does not): a
        split-K decode kernel's tiles x splits, or a persistent kernel's
        split tiles (tile.work_unit split_k, T-TILE-7: at most grid / 2
        tiles of s splits, s times the tiles at most the grid), each of two
        64-row halves (one per consumer warpgroup) with a slot of 128 rows
        of the 64 x 256 / 128 accumulators a thread holds per split: 2 x
        grid x 128 rows. The grid is the SM count, so one workspace per
        stream serves every shape."""
        if self.decode is not None:
            if not self.decode.split_k:
                return None
            tiles, splits = self.grid[0], self.grid[1]
            return (tiles * splits * 128, self.decode.accumulators), tiles
        ctas = self.grid[0]
        accumulators = PERSISTENT_TILE[0] * PERSISTENT_TILE[1] // 2 // 128
        return (2 * ctas * 128, accumulators), ctas

    def arguments(self, a, b, c, split_k=None):
        """The kernel's arguments for A, B (already in the kernel's layout)
        and C (and the workspace and counters of split_k_shape)."""
        if self.decode is None:
            workspace, counters = split_k
            return (a, b, c, self.m, self.n, self.k, workspace, counters)
        if self.decode.split_k:
            workspace, counters = split_k
            return (a, b, c, self.k, workspace, counters)
        return (a, b, c, self.k)


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _rows_contiguous(operand: Operand) -> bool:
    """Row-major with contiguous rows (the row pitch may exceed the width)."""
    rows, columns = operand.shape
    return operand.strides[1] == 1 and (operand.strides[0] >= columns or rows == 1)


def _columns_contiguous(operand: Operand) -> bool:
    """The transpose of a matrix with contiguous rows."""
    rows, columns = operand.shape
    return operand.strides[0] == 1 and (operand.strides[1] >= rows or columns == 1)


def _tma_ready(operand: Operand, pitch: int, bytes_: int) -> bool:
    """TMA reads rows at 16-byte aligned addresses: the base and the pitch."""
    return operand.address % TMA_ALIGNMENT == 0 and pitch * bytes_ % TMA_ALIGNMENT == 0


def _unaligned(name: str, operand: Operand, pitch: int, bytes_: int) -> MatmulError:
    if operand.address % TMA_ALIGNMENT:
        return MatmulError(f"tile.matmul: {name} starts at an address that is not 16-byte "
                           f"aligned (0x{operand.address:x}): TMA needs 16-byte aligned global "
                           "addresses (T-TMA-10)")
    return MatmulError(f"tile.matmul: {name}'s rows of {pitch} elements are "
                       f"{pitch * bytes_} bytes, not a multiple of 16: TMA needs 16-byte "
                       "aligned row strides (T-TMA-9), so K and N must be multiples of 8 "
                       "(stage=True copies such operands into aligned rows)")


def decode_config(m: int, n: int, k: int, b_transposed: bool, element: str,
                  device: Device) -> DecodeConfig:
    """The decode kernel for M <= 128: wgmma's n the smallest that holds M;
    64 or 128 columns of C a CTA (decode_columns; 128 with one K span a stage);
    split-K for n <= DECODE_SPLIT_K_MAX_ROWS; DECODE_SPANS K spans a stage and stages for DECODE_B_IN_FLIGHT bytes of B
    per SM, shared by the CTAs of an SM — one when ceil(N / 64) CTAs fit on
    the SMs, else two — as far as their shared memory allows.
    (`tile.matmul(..., tune=True)` searches the rest.)"""
    rows = rows_for(m)
    columns = decode_columns(rows, n, device)
    # 128 columns: one K span a stage measured best; split-K only pays where
    # the partials are few (bench/NOTES.md).
    spans = DECODE_SPANS if columns == 64 else 1
    splits = decode_splits(n, k, device, columns) if rows <= DECODE_SPLIT_K_MAX_ROWS else 1
    ctas_per_sm = 1 if _cdiv(n, columns) * splits <= device.sms else 2
    limit = SM_SHARED // ctas_per_sm - RESERVED_SHARED - DECODE_STATIC_SHARED
    if device.shared_optin is not None:
        limit = min(limit, device.shared_optin - DECODE_STATIC_SHARED)
    probe = DecodeConfig("nt" if b_transposed else "nn", rows, 2, element, spans,
                         columns=columns)
    b_stage_bytes = columns * SLICE * 2 * spans
    in_flight = DECODE_B_IN_FLIGHT if ctas_per_sm == 1 else DECODE_B_IN_FLIGHT_SHARED
    stages = max(2, min(in_flight // b_stage_bytes // ctas_per_sm,
                        limit // probe.stage_bytes))
    return replace(probe, stages=stages, split_k=splits > 1)


def decode_columns(rows: int, n: int, device: Device) -> int:
    """Columns of C a decode CTA computes: 128 for n > 64 where ceil(N / 128)
    CTAs still fill 3/4 of the SMs (the A tile then stays a third of each
    stage), else 64 (twice the CTAs, each with less B in flight; measured on
    an H200, bench/NOTES.md)."""
    if rows > 64 and 4 * _cdiv(n, 128) >= 3 * device.sms:
        return 128
    return 64


def decode_splits(n: int, k: int, device: Device, columns: int = 64) -> int:
    """K splits of a decode GEMM: when ceil(N / columns) CTAs would leave
    half the SMs idle, as many as fill the SMs (at most DECODE_MAX_SPLITS),
    each with at least DECODE_MIN_SPLIT_STAGES stages of K."""
    tiles = _cdiv(n, columns)
    if 2 * tiles > device.sms:
        return 1
    stages = _cdiv(k, SLICE * DECODE_SPANS)
    return max(1, min(device.sms // tiles, stages // DECODE_MIN_SPLIT_STAGES,
                      DECODE_MAX_SPLITS))


#: Static shared memory of a decode kernel (its mbarriers, 1024-aligned).
DECODE_STATIC_SHARED = 1024
#: B bytes a decode kernel keeps in flight per SM, and K spans per stage:
#: 96 KB in stages of two spans measured best on an H200 with one CTA an SM,
#: 128 KB (64 KB each) with two (bench/NOTES.md).
DECODE_B_IN_FLIGHT = 96 * 1024
DECODE_B_IN_FLIGHT_SHARED = 128 * 1024
DECODE_SPANS = 2
#: Split-K of the decode kernels: at most this many splits, each at least
#: this many stages.
DECODE_MAX_SPLITS = 16
DECODE_MIN_SPLIT_STAGES = 8
#: wgmma n up to which split-K is used: the last CTA of a tile reads every
#: split's partials back, latency-bound, so 32+ accumulators a thread (n = 64,
#: 128) measured slower split than not (bench/NOTES.md).
DECODE_SPLIT_K_MAX_ROWS = 32


def plan_matmul(a: Operand, b: Operand, out: Optional[Operand], device: Device,
                shared_bytes: Optional[Dict[str, int]] = None,
                stage: bool = False,
                decode: Optional[DecodeConfig] = None) -> MatmulPlan:
    """The launch for C = A B with A (M x K) and the logical B (K x N), in
    whatever layout `b` has; raises MatmulError for what the kernels cannot
    take. Operands whose rows TMA cannot address (a K or N that is not a
    multiple of 8, an unaligned base) are an error, or with `stage` listed
    in the plan's `staged` for a copy into aligned rows. `shared_bytes`
    (kernel name -> dynamic shared memory) is checked against the device's
    opt-in limit where both are known. For M <= 128 the plan runs a decode
    kernel: `decode` (e.g. the autotuner's), or `decode_config`'s choice."""
    for name, operand in (("A", a), ("B", b)) + ((("out", out),) if out else ()):
        if len(operand.shape) != 2:
            raise MatmulError(f"tile.matmul: {name} must be a matrix, got shape "
                              f"{tuple(operand.shape)}")
    if a.dtype not in ELEMENTS:
        raise MatmulError(f"tile.matmul takes float16 or bfloat16 operands (f32 "
                          f"accumulation), got A of {a.dtype}")
    if b.dtype != a.dtype:
        raise MatmulError(f"tile.matmul: A is {a.dtype} but B is {b.dtype}")
    m, k = a.shape
    if b.shape[0] != k:
        raise MatmulError(f"tile.matmul: A is {m} x {k} but B, as K x N, is "
                          f"{b.shape[0]} x {b.shape[1]}")
    n = b.shape[1]
    if out is not None:
        if tuple(out.shape) != (m, n):
            raise MatmulError(f"tile.matmul: out must be {m} x {n}, got "
                              f"{out.shape[0]} x {out.shape[1]}")
        if out.dtype != a.dtype:
            raise MatmulError(f"tile.matmul: out must be {a.dtype} like A and B, got {out.dtype}")
    devices = {a.device, b.device} | ({out.device} if out else set())
    if len(devices) != 1:
        raise MatmulError(f"tile.matmul: operands on different devices: {sorted(devices)}")
    if device.capability != (9, 0):
        raise MatmulError("tile.matmul runs Hopper kernels (sm_90a: H100, H200); this GPU is "
                          f"sm_{device.capability[0]}{device.capability[1]}")
    element, bytes_ = ELEMENTS[a.dtype]
    if not _rows_contiguous(a):
        raise MatmulError(f"tile.matmul: A must be row-major with contiguous rows (strides "
                          f"({k}, 1)), got strides {tuple(a.strides)}; pass A.contiguous()")
    # B's layout picks the kernel: row-major K x N (gemm_nn) or row-major
    # N x K, i.e. column-major K x N (gemm_nt).
    if _rows_contiguous(b):
        b_transposed, b_pitch = False, b.strides[0]
    elif _columns_contiguous(b):
        b_transposed, b_pitch = True, b.strides[1]
    else:
        raise MatmulError(f"tile.matmul: B (K x N = {k} x {n}) must be row-major or the "
                          f"transpose of a row-major N x K matrix, got strides "
                          f"{tuple(b.strides)}; pass B.contiguous()")
    small_m = m <= DECODE_MAX_M
    if out is not None and not _rows_contiguous(out):
        raise MatmulError(f"tile.matmul: out must be row-major with contiguous rows, got "
                          f"strides {tuple(out.strides)}")
    if out is not None and small_m and out.strides[0] != n and m > 1:
        raise MatmulError(f"tile.matmul: the decode kernel (M <= {DECODE_MAX_M}) stores a "
                          f"contiguous out (strides ({n}, 1)), got strides "
                          f"{tuple(out.strides)}; pass a contiguous out")
    staged = []
    # TMA reads A and B and (but for the decode kernel, which stores element
    # by element) writes C.
    operands = [("A", a, a.strides[0]), ("B", b, b_pitch)]
    if not small_m:
        c = out or Operand((m, n), (n, 1), a.dtype, 0, a.device)
        operands.append(("out" if out else "C", c, c.strides[0]))
    for name, operand, pitch in operands:
        if _tma_ready(operand, pitch, bytes_):
            continue
        if not stage:
            raise _unaligned(name, operand, pitch, bytes_)
        staged.append("C" if name == "out" else name)
    if small_m:
        if decode is None:
            decode = decode_config(m, n, k, b_transposed, element, device)
        elif (decode.layout == "nt") != b_transposed or decode.rows < m:
            raise MatmulError(f"tile.matmul: {decode.name} takes M <= {decode.rows} and B "
                              f"{'N x K' if decode.layout == 'nt' else 'K x N'}; got M = {m} "
                              f"and B {'N x K' if b_transposed else 'K x N'}")
        decode = replace(decode, element=element)
        kernel = decode.name
        grid = (_cdiv(n, decode.columns),
                decode_splits(n, k, device, decode.columns) if decode.split_k else 1, 1)
        shared_bytes = {kernel: decode.shared_bytes}
    else:
        decode = None
        kernel = "gemm_nt" if b_transposed else "gemm_nn"
        # One CTA per SM: the work units (tile.work_unit) leave a CTA without
        # work where there is too little, or split tiles along K for it.
        grid = (device.sms, 1, 1)
    needed = (shared_bytes or {}).get(kernel)
    if needed is not None and device.shared_optin is not None and needed > device.shared_optin:
        raise MatmulError(f"tile.matmul: @{kernel} needs {needed} bytes of shared memory, the "
                          f"GPU gives a block at most {device.shared_optin}")
    return MatmulPlan(kernel, element, m, n, k, grid, b_transposed, tuple(staged), decode)


# --- PyTorch -----------------------------------------------------------------

_MODULES: Dict[str, object] = {}
_KERNELS: Dict[Tuple[str, str], object] = {}
_SHARED: Dict[str, Dict[str, int]] = {}
_DEVICES: Dict[int, Device] = {}


def gemm_module(element: str):
    """The compiled kernels of GEMM_SOURCE for "f16" or "bf16"."""
    if element not in _MODULES:
        from .compiler import compile
        text = GEMM_SOURCE.read_text()
        if element == "bf16":
            text = text.replace("f16", "bf16")
        _MODULES[element] = compile(text, chip="sm_90a")
    return _MODULES[element]


def _shared_bytes(element: str) -> Dict[str, int]:
    """Dynamic shared memory of each kernel, from the manifest."""
    if element not in _SHARED:
        _SHARED[element] = {name: entry["dynamic_shared_bytes"] for name, entry
                            in gemm_module(element).manifest["kernels"].items()}
    return _SHARED[element]


def _kernel(element: str, name: str, decode: Optional[DecodeConfig] = None):
    key = (element, name)
    if key not in _KERNELS:
        if decode is not None:
            from .compiler import compile
            _KERNELS[key] = compile(decode_source(decode), chip="sm_90a").kernel(name)
        else:
            _KERNELS[key] = gemm_module(element).kernel(name)
    return _KERNELS[key]


def _operand(tensor) -> Operand:
    return Operand(tuple(tensor.shape), tuple(tensor.stride()), str(tensor.dtype).split(".")[-1],
                   tensor.data_ptr(), str(tensor.device))


def device_of(torch, tensor) -> Device:
    """SM count, capability and opt-in shared memory of `tensor`'s GPU."""
    index = tensor.device.index if tensor.device.index is not None else torch.cuda.current_device()
    if index not in _DEVICES:
        props = torch.cuda.get_device_properties(index)
        _DEVICES[index] = Device(props.multi_processor_count, (props.major, props.minor),
                                 getattr(props, "shared_memory_per_block_optin", None))
    return _DEVICES[index]


#: Plans by everything they depend on (see _plan_key), most recent last.
_PLANS: "OrderedDict[tuple, MatmulPlan]" = OrderedDict()
_PLAN_ENTRIES = 256


def _plan_key(a, b, out, transpose_b: bool, stage: bool) -> tuple:
    """What a plan depends on: shapes, strides, dtypes and devices, and the
    addresses only through their 16-byte alignment (T-TMA-10)."""
    key = (a.shape, a.stride(), a.dtype, a.device, a.data_ptr() % TMA_ALIGNMENT,
           b.shape, b.stride(), b.dtype, b.device, b.data_ptr() % TMA_ALIGNMENT,
           transpose_b, stage)
    if out is None:
        return key
    return key + (out.shape, out.stride(), out.dtype, out.device,
                  out.data_ptr() % TMA_ALIGNMENT)


def require_cuda_tensors(torch, what: str, **tensors) -> None:
    """MatmulError unless every named tensor (None: absent) is a PyTorch
    tensor on cuda:0, the GPU the runtime drives; `what` names the call."""
    for name, tensor in tensors.items():
        if tensor is None:
            continue
        if not isinstance(tensor, torch.Tensor) or not tensor.is_cuda:
            raise MatmulError(f"{what}: {name} must be a CUDA tensor, got "
                              f"{type(tensor).__name__}"
                              f"{' on ' + str(tensor.device) if isinstance(tensor, torch.Tensor) else ''}")
        if tensor.device.index not in (None, 0):
            raise MatmulError(f"{what}: the runtime drives cuda:0; got tensors on "
                              f"{tensor.device}")


def _plan_tensors(torch, a, b, out, transpose_b: bool, stage: bool) -> MatmulPlan:
    """The checks and the plan of a call (cached by _plan_key)."""
    require_cuda_tensors(torch, "tile.matmul", a=a, b=b, out=out)
    logical_b = b.t() if transpose_b else b
    device = device_of(torch, a)
    element = ELEMENTS.get(str(a.dtype).split(".")[-1], (None,))[0]
    shared = (_shared_bytes(element)
              if element is not None and device.capability == (9, 0) else None)
    return plan_matmul(_operand(a), _operand(logical_b),
                       _operand(out) if out is not None else None, device, shared, stage=stage)


#: Ring depths, K spans a stage and K splits the decode autotuner tries
#: (tile.matmul(..., tune=True)); splits only where the CTAs stay one wave.
DECODE_TUNE_STAGES = (2, 3, 4, 6, 8, 12)
DECODE_TUNE_SPANS = (1, 2)
DECODE_TUNE_SPLITS = (1, 2, 4, 8)
_DECODE_TUNER = None


def decode_tuner():
    """The autotuner of the decode kernels: for each (layout, wgmma n, N, K,
    element) it times the ring depths of DECODE_TUNE_STAGES, the K spans of
    DECODE_TUNE_SPANS, the column widths and the K splits of
    DECODE_TUNE_SPLITS that fit (shared memory, one wave of CTAs) — once
    per card, tool version and generator; cached on disk."""
    global _DECODE_TUNER
    if _DECODE_TUNER is None:
        from .autotune import Autotuner, Config

        def run(config, a, b, c, plan):
            tuned = _with_config(plan, config)
            _kernel(plan.element, tuned.kernel, tuned.decode)(
                *tuned.arguments(a, b, c, _split_k_buffers(tuned, c)), grid=tuned.grid)
            return c

        def fits(config, a, b, c, plan):
            """The shape's wgmma n; K splits that keep one wave of CTAs and
            at least two stages a split."""
            if config["rows"] != plan.decode.rows:
                return False
            splits = config["splits"]
            stages = _cdiv(plan.k, SLICE * config["spans"])
            tiles = _cdiv(plan.n, config["columns"])
            return splits == 1 or (tiles * splits <= device_of(_torch(), a).sms
                                   and stages // splits >= 2)

        def reference(a, b, c, plan):
            return a.float() @ (b.float().t() if plan.b_transposed else b.float())

        _DECODE_TUNER = Autotuner(
            run, [Config(rows=r, stages=s, spans=w, columns=c, splits=p) for r in ROWS
                  for c in ((64, 128) if r > 64 else (64,))
                  for s in DECODE_TUNE_STAGES for w in DECODE_TUNE_SPANS
                  for p in DECODE_TUNE_SPLITS],
            key=lambda a, b, c, plan: (plan.decode.layout, plan.decode.rows, plan.n, plan.k,
                                       plan.element),
            prune=fits,
            shared_bytes=lambda config: (DecodeConfig("nt", config["rows"], config["stages"],
                                                      spans=config["spans"],
                                                      columns=config["columns"]).shared_bytes
                                         + DECODE_STATIC_SHARED),
            reference=reference, name="tile.matmul.decode", version=_decode_version)
    return _DECODE_TUNER


def _decode_version() -> str:
    """What a tuned decode choice depends on besides the card: tile-opt and
    the kernels' generator."""
    from . import gemm_decode
    from .autotune import _tool_version
    generator = Path(gemm_decode.__file__).read_bytes()
    return _tool_version() + hashlib.sha256(generator).hexdigest()[:16]


def _lru(cache: "OrderedDict", entries: int, key, make: Callable[[], object]):
    """cache[key], most recently used last, made on a miss (and not cached
    when `key` is None); the least recently used beyond `entries` dropped."""
    if key is None:
        return make()
    value = cache.get(key)
    if value is not None:
        cache.move_to_end(key)
        return value
    value = cache[key] = make()
    while len(cache) > entries:
        cache.popitem(last=False)
    return value


def _tuned(key, plan: MatmulPlan, a, b, c) -> MatmulPlan:
    """`plan` with the decode autotuner's config for the kernel's operands,
    remembered beside the call's plan (a tuned call then costs the host what
    an untuned one does)."""
    if plan.decode is None:
        return plan
    return _lru(_PLANS, _PLAN_ENTRIES, None if key is None else key + ("tuned",),
                lambda: _with_config(plan, decode_tuner().best_config(a, b, c, plan)))


def _with_config(plan: MatmulPlan, config) -> MatmulPlan:
    """`plan` running the decode kernel of a tuner config."""
    decode = replace(plan.decode, rows=config["rows"], stages=config["stages"],
                     spans=config["spans"], columns=config["columns"],
                     split_k=config["splits"] > 1)
    return replace(plan, kernel=decode.name, decode=decode,
                   grid=(_cdiv(plan.n, decode.columns), config["splits"], 1))


def _torch():
    import torch
    return torch


def matmul(a, b, *, out=None, transpose_b: bool = False, stream=None, stage: bool = True,
           tune: bool = False, scale_a=None, scale_b=None, out_dtype=None):
    """C = A B (B is K x N) or, with `transpose_b`, A B^T (B is N x K), for
    f16/bf16 CUDA tensors; into `out` when given, else a new tensor. Returns
    at once: the kernel runs on `stream` (default: PyTorch's current one).
    Operands whose rows TMA cannot address (K or N not a multiple of 8) are
    copied into aligned rows first (one read and write of them, on the same
    stream); with `stage=False` they are an error instead. A call like an
    earlier one (shapes, strides, dtypes, alignment) reuses its plan. With
    `tune`, a decode shape (M <= 128) runs the config `decode_tuner()` found
    fastest for it (timed on the first such call, then cached on disk).

    FP8 operands (float8_e4m3fn, float8_e5m2) take `scale_a` and `scale_b`
    (float32: one element, one per row of A / column of B, or block scales
    (M, K/128) and (N/128, K/128)) and give
    diag(scale_a) A B diag(scale_b) in `out_dtype` (bfloat16 or float16),
    as torch._scaled_mm: see tile.matmul_fp8."""
    import torch
    from .matmul_fp8 import is_fp8, scaled_matmul
    fp8 = any(is_fp8(str(getattr(t, "dtype", "")).split(".")[-1]) for t in (a, b))
    if fp8 or scale_a is not None or scale_b is not None:
        if scale_a is None or scale_b is None:
            raise MatmulError("tile.matmul: FP8 operands take scale_a and scale_b (float32, "
                              "one element, one per row of A / column of B, or block scales "
                              "(M, K/128) and (N/128, K/128); torch.ones(1) for none)")
        if tune:
            raise MatmulError("tile.matmul: tune= applies to f16/bf16 operands (the decode "
                              "kernels); FP8 runs the persistent kernel")
        return scaled_matmul(torch, a, b, scale_a, scale_b, out=out, out_dtype=out_dtype,
                             transpose_b=transpose_b, stream=stream)
    if out_dtype is not None and out_dtype != getattr(a, "dtype", None):
        raise MatmulError("tile.matmul: out_dtype applies to FP8 operands; f16/bf16 operands "
                          "give C in their own type")
    try:
        key = _plan_key(a, b, out, transpose_b, stage)
    except (AttributeError, TypeError):
        key = None  # not tensors: _plan_tensors says why
    plan = _lru(_PLANS, _PLAN_ENTRIES, key,
                lambda: _plan_tensors(torch, a, b, out, transpose_b, stage))
    launch_stream = None if stream is None else _torch_stream(torch, stream)
    if out is None:
        out = torch.empty((plan.m, plan.n), device=a.device, dtype=a.dtype)
        if launch_stream is not None and launch_stream != torch.cuda.current_stream():
            out.record_stream(launch_stream)  # allocated here, written there
    if plan.m == 0 or plan.n == 0 or plan.k == 0:
        # Nothing to multiply: C is empty, or zero for K = 0.
        if plan.k == 0:
            with torch.cuda.stream(launch_stream or torch.cuda.current_stream()):
                out.zero_()
        return out
    # B as the kernel reads it: the logical K x N B (b, or b.t() with
    # transpose_b), transposed again when the kernel takes it as N x K.
    kernel_b = b if transpose_b == plan.b_transposed else b.t()
    if not plan.staged:
        if tune:
            plan = _tuned(key, plan, a, kernel_b, out)
        kernel = _kernel(plan.element, plan.kernel, plan.decode)
        kernel(*plan.arguments(a, kernel_b, out, _split_k_buffers(plan, out, launch_stream)),
               grid=plan.grid, stream=stream)
        return out
    launch_stream = launch_stream or torch.cuda.current_stream()

    def aligned_rows(name, matrix, copy=True):
        """A view of `matrix`'s shape whose rows start 16-byte aligned (the
        padding columns are never read: TMA stops at the view's width), in
        a staging buffer kept for this stream and shape."""
        rows, columns = matrix.shape
        view = _staging_buffer(torch, (name, launch_stream.cuda_stream, rows,
                                       plan.pitch(columns), matrix.dtype, matrix.device),
                               )[:, :columns]
        return view.copy_(matrix) if copy else view

    with torch.cuda.stream(launch_stream):
        kernel_a = aligned_rows("A", a) if "A" in plan.staged else a
        if "B" in plan.staged:
            kernel_b = aligned_rows("B", kernel_b)
        kernel_c = aligned_rows("C", out, copy=False) if "C" in plan.staged else out
        if tune:
            plan = _tuned(key, plan, kernel_a, kernel_b, kernel_c)
        kernel = _kernel(plan.element, plan.kernel, plan.decode)
        kernel(*plan.arguments(kernel_a, kernel_b, kernel_c,
                               _split_k_buffers(plan, out, launch_stream)), grid=plan.grid)
        if kernel_c is not out:
            out.copy_(kernel_c)
    return out


#: Staging buffers by (operand, stream, rows, pitch, dtype, device), and
#: split-K workspaces and counters, most recently used last. A buffer is reused only by later calls on the same
#: stream, which the stream orders after the previous call's kernel and copy.
_STAGING: "OrderedDict[tuple, object]" = OrderedDict()
_STAGING_ENTRIES = 16


def _staging_buffer(torch, key):
    _, _, rows, pitch, dtype, device = key
    return _lru(_STAGING, _STAGING_ENTRIES, key,
                lambda: torch.empty((rows, pitch), device=device, dtype=dtype))


def _split_k_buffers(plan: MatmulPlan, c, stream=None):
    """The workspace and counters of plan.split_k_shape (zero; each launch
    leaves them zero), kept per stream and shape like the staging buffers:
    launches on one stream never overlap, so they never share counters."""
    if plan.split_k_shape is None:
        return None
    import torch
    from .launch import stream_handle
    (rows, columns), tiles = plan.split_k_shape
    key = ("split-k", stream_handle(stream), rows, columns, tiles, c.device)

    def make():
        # Allocated (and the counters zeroed) on the launch stream: ordered
        # before the kernel, and freed back to that stream's pool.
        with torch.cuda.stream(stream or torch.cuda.current_stream()):
            return (torch.empty((rows, columns), device=c.device, dtype=torch.float32),
                    torch.zeros(tiles, device=c.device, dtype=torch.int32))
    return _lru(_STAGING, _STAGING_ENTRIES, key, make)


def _torch_stream(torch, stream):
    """`stream` (None, a torch.cuda.Stream or a raw CUstream) as a torch
    stream to run the staging copies and the launch on."""
    if stream is None:
        return torch.cuda.current_stream()
    if isinstance(stream, torch.cuda.Stream):
        return stream
    return torch.cuda.ExternalStream(int(stream))
