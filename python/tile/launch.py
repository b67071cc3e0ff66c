"""Launching compiled kernels through libtile_runtime (ctypes).

A kernel's parameters come from the module's kernel manifest (written by the
pipeline, printed by `tile-translate --kernel-manifest`), not from its IR:
- a memref takes a torch CUDA tensor, any object with
  `__cuda_array_interface__` or `__dlpack__` (no copy: pointer, shape and
  strides become MLIR's memref descriptor fields), or a contiguous numpy
  array (page-locked and mapped for the launch, which then waits: host
  arrays are synchronous);
- a `!tile.tma_desc<...>` takes a tensor as well: the runtime encodes its
  CUtensorMap with every precondition checked, and the 128 bytes are passed
  by value in the kernel's parameters. Maps are cached by what they encode
  (address, shape, strides; the descriptor type fixes the rest), so a
  freed-and-reused address with the same geometry reuses a map that is
  still right, and a steady-state launch encodes nothing;
- `index`/integers take a Python int, `f32`/`f64` a Python float.

Launches are stream-ordered and return at once: on `stream` (a
torch.cuda.Stream, a raw CUstream int, or None for PyTorch's current stream
when PyTorch is imported, else the legacy default stream). They allocate
nothing and copy nothing, so they can be captured in CUDA graphs. As with
any asynchronous launch, the caller keeps the arrays alive and ordered with
the launch's stream until the kernel is done (PyTorch's allocator does this
for tensors used on their current stream; on another stream, as in PyTorch,
`tensor.record_stream(stream)`; arrays of other frameworks: synchronize their
producer's stream first).
`synchronize(timeout=...)` waits with a watchdog. Runtime failures raise
TileRuntimeError with the runtime's message (the CUDA error, the call, the
kernel; after an error that leaves the context unusable, every later call
says so and names the first failure)."""
import ctypes
import os
import struct
import sys
import threading
from typing import Optional

# Memref element types: bytes, numpy typestr.
_TYPES = {"f16": (2, "<f2"), "bf16": (2, None), "f32": (4, "<f4"), "f64": (8, "<f8"),
          "i8": (1, "|i1"), "i16": (2, "<i2"), "i32": (4, "<i4"), "i64": (8, "<i8"),
          "f8E4M3FN": (1, None), "f8E5M2": (1, None)}
# Scalar parameters: struct format of their kernel-parameter bytes.
_SCALARS = {"index": "q", "i64": "q", "i32": "i", "i16": "h", "i8": "b", "i1": "?",
            "f32": "f", "f64": "d"}
_MAP_BYTES = 128
# runtime/include/tile/Runtime.h's TileRtLaunchConfig: function, grid[3],
# block[3], cluster[3], sharedBytes, stream, params, paramCount.
_LAUNCH_CONFIG = struct.Struct("<Q3q3q3qqQQq")
# The watchdog of synchronize() and of synchronous (host-array) launches.
DEFAULT_TIMEOUT = float(os.environ.get("TILE_TIMEOUT", "120"))


class TileRuntimeError(RuntimeError):
    """libtile_runtime reported a failure (CUDA error, bad launch, bad tensor
    map, a watchdog timeout)."""


class Runtime:
    """libtile_runtime, loaded once: its errors raise TileRuntimeError instead
    of ending the process."""

    _instance = None

    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(str(path))
        self._errors = threading.local()  # the runtime reports on the failing thread
        handler_type = ctypes.CFUNCTYPE(None, ctypes.c_char_p)
        self._handler = handler_type(self._on_error)  # kept alive
        lib.tileRtSetErrorHandler(self._handler)
        vp, u32 = ctypes.c_void_p, ctypes.c_uint32
        size_t = ctypes.c_size_t
        lib.tileRtProbe.argtypes = [ctypes.c_char_p, size_t]
        lib.mgpuModuleLoadJIT.argtypes = [vp, ctypes.c_int]
        lib.mgpuModuleLoadJIT.restype = vp
        lib.mgpuModuleGetFunction.argtypes = [vp, ctypes.c_char_p]
        lib.mgpuModuleGetFunction.restype = vp
        lib.mgpuMemHostRegister.argtypes = [vp, ctypes.c_uint64]
        lib.mgpuMemHostUnregister.argtypes = [vp]
        lib.tileRtTensorMapEncodeTiled.argtypes = [
            vp, ctypes.c_int, ctypes.c_uint, vp, vp, vp, vp, vp, ctypes.c_int, ctypes.c_int,
            ctypes.c_int, ctypes.c_int, ctypes.c_char_p, size_t]
        lib.tileRtTensorMapEncodeIm2col.argtypes = [
            vp, ctypes.c_int, ctypes.c_uint, vp, vp, vp, vp, vp, u32, u32, vp,
            ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_char_p, size_t]
        lib.tileRtLaunch.argtypes = [vp]
        lib.tileRtStreamSynchronize.argtypes = [vp, ctypes.c_double]
        lib.tileRtMemoryInfo.argtypes = [ctypes.POINTER(ctypes.c_uint64)] * 2
        lib.tileRtLastKernelName.restype = ctypes.c_char_p

    def _on_error(self, message: bytes) -> None:
        if getattr(self._errors, "message", None) is None:
            self._errors.message = message.decode(errors="replace")

    def check(self) -> None:
        """Raises the first error the runtime reported on this thread since
        its last check."""
        message = getattr(self._errors, "message", None)
        if message is not None:
            self._errors.message = None
            raise TileRuntimeError(message)

    def probe(self) -> Optional[str]:
        """None when a CUDA device is usable, else why not."""
        buffer = ctypes.create_string_buffer(1024)
        return None if self.lib.tileRtProbe(buffer, len(buffer)) == 0 else buffer.value.decode()

    def memory_info(self):
        """(free, total) device memory in bytes, as the driver reports it."""
        free, total = ctypes.c_uint64(), ctypes.c_uint64()
        self.lib.tileRtMemoryInfo(ctypes.byref(free), ctypes.byref(total))
        self.check()
        return free.value, total.value

    @classmethod
    def get(cls, toolchain=None) -> "Runtime":
        if cls._instance is None:
            from .tools import find_toolchain
            tools = toolchain or find_toolchain()
            if tools.runtime is None:
                raise FileNotFoundError("libtile_runtime.so not found: set TILE_RUNTIME_LIB")
            cls._instance = cls(tools.runtime)
        return cls._instance


#===------------------------------------------------------------------------===#
# Streams
#===------------------------------------------------------------------------===#

_torch_stream = None  # PyTorch's current-stream query, once PyTorch has CUDA


def _current_torch_stream() -> Optional[int]:
    """PyTorch's current stream on its current device, when PyTorch is loaded
    and has initialized CUDA."""
    global _torch_stream
    if _torch_stream is None:
        torch = sys.modules.get("torch")
        if torch is None or not torch.cuda.is_initialized():
            return None
        raw, device = getattr(torch._C, "_cuda_getCurrentRawStream", None), torch._C._cuda_getDevice
        _torch_stream = ((lambda: raw(device())) if raw is not None
                         else (lambda: torch.cuda.current_stream().cuda_stream))
    return _torch_stream()


def stream_handle(stream) -> Optional[int]:
    """The CUstream of `stream`: None (PyTorch's current stream if PyTorch is
    in use, else the legacy default stream), an int, or an object with
    `cuda_stream` (torch.cuda.Stream) or `ptr` (CuPy)."""
    if stream is None:
        return _current_torch_stream()
    if isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise TypeError(f"expected a CUDA stream (torch.cuda.Stream, int), got {type(stream).__name__}")


def synchronize(stream=None, timeout: Optional[float] = None) -> None:
    """Waits for the work on `stream` (see stream_handle). A stream still
    busy after `timeout` seconds (default DEFAULT_TIMEOUT, $TILE_TIMEOUT;
    0 waits forever) raises TileRuntimeError naming the kernel launched
    last: a kernel that never finishes no longer hangs the process. It may
    still occupy the GPU, so such a process should exit."""
    runtime = Runtime.get()
    runtime.lib.tileRtStreamSynchronize(stream_handle(stream),
                                        DEFAULT_TIMEOUT if timeout is None else timeout)
    runtime.check()


#===------------------------------------------------------------------------===#
# Arrays
#===------------------------------------------------------------------------===#

class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DL_CUDA = 2
# DLPack type codes (int, uint, float, bfloat) by MLIR element type.
_DL_CODES = {"i8": 0, "i16": 0, "i32": 0, "i64": 0, "f16": 2, "f32": 2, "f64": 2, "bf16": 4,
             "f8E4M3FN": 10, "f8E5M2": 12}  # DLPack's kFloat8_e4m3fn, kFloat8_e5m2


def _contiguous_strides(shape):
    strides, step = [], 1
    for extent in reversed(shape):
        strides.insert(0, step)
        step *= extent
    return strides


def _dlpack(value, element: str, keep: list):
    """(pointer, shape, strides) of a CUDA array exported through DLPack
    (`__dlpack__`); the capsule is kept alive in `keep` for the launch."""
    capsule = value.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    tensor = _DLTensor.from_address(get(capsule, b"dltensor"))  # DLManagedTensor starts so
    keep.append(capsule)
    if tensor.device.device_type != _DL_CUDA:
        raise TypeError(f"expected a CUDA array, got DLPack device type {tensor.device.device_type}")
    if (tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes) != (
            _DL_CODES[element], _TYPES[element][0] * 8, 1):
        raise TypeError(f"expected elements {element}, got DLPack type code "
                        f"{tensor.dtype.code}, {tensor.dtype.bits} bits")
    shape = tuple(tensor.shape[i] for i in range(tensor.ndim))
    strides = (tuple(tensor.strides[i] for i in range(tensor.ndim)) if tensor.strides
               else tuple(_contiguous_strides(shape)))
    return tensor.data + tensor.byte_offset, shape, strides


_TORCH_DTYPES = {}


def _torch_dtype(element: str):
    if not _TORCH_DTYPES:
        import torch
        _TORCH_DTYPES.update({"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
                              "f64": torch.float64, "i8": torch.int8, "i16": torch.int16,
                              "i32": torch.int32, "i64": torch.int64,
                              "f8E4M3FN": torch.float8_e4m3fn, "f8E5M2": torch.float8_e5m2})
    return _TORCH_DTYPES[element]


def _array(value, element: str, host: Optional[list] = None, keep: Optional[list] = None):
    """(pointer, shape, strides in elements) of a CUDA array without copying;
    a host array (numpy, `__array_interface__`) is accepted when `host` is a
    list, which collects (pointer, bytes) for the caller to page-lock and map
    (the kernel then reads and writes host memory over the bus)."""
    if getattr(value, "is_cuda", False) and hasattr(value, "data_ptr"):  # torch, bf16 too
        if value.dtype is not _torch_dtype(element):
            raise TypeError(f"expected elements {element}, got {value.dtype}")
        return value.data_ptr(), tuple(value.shape), tuple(value.stride())
    size = _TYPES[element][0]
    # Types numpy does not name (bf16, 8-bit floats) come only through DLPack.
    interface = (getattr(value, "__cuda_array_interface__", None) if _TYPES[element][1]
                 else None)
    if interface is None and host is not None and hasattr(value, "__array_interface__"):
        interface = value.__array_interface__
        if interface.get("strides") is not None or not value.flags.writeable:
            raise TypeError("host arrays must be contiguous and writable")
        if getattr(value, "itemsize", size) != size or (
                _TYPES[element][1] is None and getattr(value.dtype, "name", "") != element):
            raise TypeError(f"expected elements {element}, got {value.dtype}")
        host.append((interface["data"][0], value.nbytes))
    if interface is not None:
        if _TYPES[element][1] and interface["typestr"] != _TYPES[element][1]:
            raise TypeError(f"expected elements {element}, got {interface['typestr']}")
        shape = tuple(interface["shape"])
        strides = interface.get("strides")
        strides = (tuple(_contiguous_strides(shape)) if strides is None
                   else tuple(s // size for s in strides))
        return interface["data"][0], shape, strides
    if hasattr(value, "__dlpack__") and keep is not None:
        return _dlpack(value, element, keep)
    raise TypeError("expected a CUDA array (__cuda_array_interface__ or __dlpack__), a torch "
                    f"CUDA tensor or a contiguous host array, got {type(value).__name__}")


#===------------------------------------------------------------------------===#
# Parameters
#===------------------------------------------------------------------------===#

class _Params:
    """The kernel-parameter bytes of one kernel: a buffer with a slot per
    kernel parameter (each field of a memref descriptor, a 128-byte aligned
    tensor map, a scalar), consecutive where the parameters are, and the
    array of their addresses that the launch passes. Filled in place on each
    launch (cuLaunchKernel copies them)."""

    def __init__(self, sizes_and_alignments):
        offsets, end = [], 0
        for size, alignment in sizes_and_alignments:
            end = -(-end // alignment) * alignment
            offsets.append(end)
            end += size
        self.bytes = bytearray(end + _MAP_BYTES)
        base = ctypes.addressof((ctypes.c_char * len(self.bytes)).from_buffer(self.bytes))
        self.shift = -base % _MAP_BYTES  # the buffer's first 128-byte aligned byte
        self.offsets = [self.shift + offset for offset in offsets]
        self.pointers = (ctypes.c_void_p * max(1, len(offsets)))(
            *[base + offset for offset in self.offsets])
        self.address = ctypes.addressof(self.pointers)


class _TensorMapParam:
    """A `!tile.tma_desc` parameter: its manifest entry and the maps encoded
    for it, by (address, shape, strides)."""

    _CAPACITY = 1024

    def __init__(self, entry: dict, runtime: Runtime):
        self.entry = entry
        self.runtime = runtime
        self.element = entry["element"]
        self.rank = entry["rank"]
        self.maps = {}

    def describe(self) -> str:
        e = self.entry
        return (f"!tile.tma_desc<{e['element']}, box = {e['box']}, swizzle {e['swizzle']}, "
                f"oob {e['oob_fill']}>")

    def encode(self, pointer: int, shape, strides) -> bytes:
        """The map of the tensor at `pointer` (cached)."""
        key = (pointer, shape, strides)
        found = self.maps.get(key)
        if found is not None:
            return found
        if len(shape) != self.rank:
            raise TypeError(f"{self.describe()} takes a rank-{self.rank} tensor, got shape {shape}")
        e, rank = self.entry, self.rank
        size = _TYPES[self.element][0]
        u64, u32 = ctypes.c_uint64, ctypes.c_uint32
        # The driver's order: dimension 0 innermost; strides in bytes.
        if strides[-1] != 1:
            raise TileRuntimeError(
                f"cannot encode tensor map: the innermost stride is {strides[-1]}, TMA needs 1 "
                f"(T-TMA-9); {self.describe()}")
        dims = (u64 * rank)(*reversed(shape))
        global_strides = (u64 * max(1, rank - 1))(*[s * size for s in reversed(strides[:-1])])
        element_strides = (u32 * rank)(*([1] * rank))
        message = ctypes.create_string_buffer(1024)
        map_buffer = ctypes.create_string_buffer(_MAP_BYTES + _MAP_BYTES)
        address = ctypes.addressof(map_buffer)
        address += -address % _MAP_BYTES
        lib = self.runtime.lib
        if "im2col_lower" in e:
            lower = (ctypes.c_int * 3)(*reversed(e["im2col_lower"]))
            upper = (ctypes.c_int * 3)(*reversed(e["im2col_upper"]))
            failed = lib.tileRtTensorMapEncodeIm2col(
                address, e["data_type"], rank, pointer, dims, global_strides, lower, upper,
                e["box"][1], e["box"][0], element_strides, e["interleave"], e["swizzle"],
                e["l2_promotion"], e["oob_fill"], message, len(message))
        else:
            box = (u32 * rank)(*reversed(e["box"]))
            failed = lib.tileRtTensorMapEncodeTiled(
                address, e["data_type"], rank, pointer, dims, global_strides, box,
                element_strides, e["interleave"], e["swizzle"], e["l2_promotion"],
                e["oob_fill"], message, len(message))
        self.runtime.check()
        if failed:
            raise TileRuntimeError(message.value.decode(errors="replace"))
        encoded = ctypes.string_at(address, _MAP_BYTES)
        if len(self.maps) >= self._CAPACITY:
            self.maps.clear()
        self.maps[key] = encoded
        return encoded


class Kernel:
    """A kernel of a CompiledModule, loaded into the current CUDA context.
    Calling it launches it (see the module docstring)."""

    def __init__(self, module, name: str, runtime: Optional[Runtime] = None):
        kernels = module.manifest["kernels"]
        if name not in kernels:
            raise ValueError(f"no kernel '{name}' in the module (kernels: {sorted(kernels)})")
        self.runtime = runtime or Runtime.get()
        self.name = name
        self.manifest = manifest = kernels[name]
        self.params = manifest["params"]
        self.types = [_describe(p) for p in self.params]
        self._block = tuple(manifest["block"]) if "block" in manifest else None
        self._shared = manifest["dynamic_shared_bytes"]
        cluster = manifest.get("cluster")
        self._cluster = tuple(cluster) if cluster and cluster != [1, 1, 1] else None
        slots = []  # (size, alignment) of each kernel parameter (LLVM argument)
        firsts = []  # the first slot of each manifest parameter
        for entry in self.params:
            firsts.append(len(slots))
            kind = entry["kind"]
            if kind == "memref":
                # MLIR's memref descriptor fields, each a kernel parameter:
                # allocated and aligned pointers, offset, sizes, strides.
                slots += [(8, 8)] * (3 + 2 * entry["rank"])
            elif kind == "tensor_map":
                slots.append((entry["bytes"], entry["alignment"]))
            elif entry["type"] in _SCALARS:
                size = struct.calcsize(_SCALARS[entry["type"]])
                slots.append((size, size))
            else:
                raise TypeError(f"kernel '{name}': parameter type {entry['type']} is not "
                                "supported from Python")
        self._count = len(slots)
        self._params = _Params(slots)
        self._packers = [_packer(entry, self._params, self._params.offsets[first], self.runtime)
                         for entry, first in zip(self.params, firsts)]
        self._lock = threading.Lock()
        self._config = bytearray(_LAUNCH_CONFIG.size)
        self._config_address = ctypes.addressof(
            (ctypes.c_char * len(self._config)).from_buffer(self._config))
        ptx = ctypes.create_string_buffer(module.ptx.encode())
        self._module = self.runtime.lib.mgpuModuleLoadJIT(ptx, 3)
        self.runtime.check()
        self._function = self.runtime.lib.mgpuModuleGetFunction(self._module, name.encode())
        self.runtime.check()

    def __call__(self, *args, grid=(1, 1, 1), block=None, shared: Optional[int] = None,
                 cluster=None, stream=None, synchronize: bool = False):
        """Launches on `stream` and returns at once (with `synchronize`, waits
        with the watchdog). `block`, `shared` (dynamic shared memory bytes)
        and `cluster` default to the manifest's values where it has them;
        with a cluster, `grid` counts blocks."""
        if len(args) != len(self._packers):
            raise TypeError(f"kernel '{self.name}' takes {len(self._packers)} arguments "
                            f"({', '.join(self.types)}), got {len(args)}")
        block = block or self._block
        if block is None:
            raise TypeError(f"kernel '{self.name}' has no fixed block shape (known_block_size "
                            "or constant launches): pass block=")
        shared = self._shared if shared is None else shared
        cluster = cluster or self._cluster
        handle = (_current_torch_stream() if stream is None else stream_handle(stream)) or 0
        host: list = []  # host arrays to page-lock for this launch
        keep: list = []  # DLPack capsules, alive until the launch is queued
        runtime = self.runtime
        with self._lock:
            for pack, value in zip(self._packers, args):
                pack(value, host, keep)
            _LAUNCH_CONFIG.pack_into(self._config, 0, self._function, *grid, *block,
                                     *(cluster or (0, 0, 0)), shared, handle,
                                     self._params.address, self._count)
            if host:
                self._launch_with_host_arrays(host, handle)
                return
            runtime.lib.tileRtLaunch(self._config_address)
            runtime.check()
        if synchronize:
            runtime.lib.tileRtStreamSynchronize(handle, DEFAULT_TIMEOUT)
            runtime.check()

    def _launch_with_host_arrays(self, host, handle):
        """Launches the packed config with the host arrays page-locked and
        mapped (on unified addressing the device uses their host pointers)
        and released after it, so such a launch waits for the kernel."""
        lib, runtime = self.runtime.lib, self.runtime
        registered = []
        try:
            for pointer, size in dict(host).items():
                lib.mgpuMemHostRegister(pointer, size)
                runtime.check()
                registered.append(pointer)
            lib.tileRtLaunch(self._config_address)
            runtime.check()
            lib.tileRtStreamSynchronize(handle, DEFAULT_TIMEOUT)
            runtime.check()
        finally:
            for pointer in registered:
                lib.mgpuMemHostUnregister(pointer)


def _packer(entry: dict, params: _Params, offset: int, runtime: Runtime):
    """A function (value, host, keep) that writes one argument's kernel
    parameters at `offset`, with a fast path for torch CUDA tensors."""
    data, kind = params.bytes, entry["kind"]
    if kind == "scalar":
        fmt = struct.Struct("<" + _SCALARS[entry["type"]])
        pack_into = fmt.pack_into

        def pack_scalar(value, host, keep):
            pack_into(data, offset, value)
        return pack_scalar

    element = entry["element"]
    if kind == "memref":
        rank = entry["rank"]
        pack_into = struct.Struct(f"<{3 + 2 * rank}q").pack_into
        dtypes = []  # the torch dtype, once torch is in use

        static = [(i, extent) for i, extent in enumerate(entry["shape"]) if extent >= 0]

        def pack_memref(value, host, keep):
            if dtypes and getattr(value, "dtype", None) is dtypes[0] and value.is_cuda:
                pointer, shape, strides = value.data_ptr(), value.shape, value.stride()
            else:
                pointer, shape, strides = _array(value, element, host, keep)
                if hasattr(value, "data_ptr") and not dtypes:
                    dtypes.append(_torch_dtype(element))
            if len(shape) != rank or any(shape[i] != extent for i, extent in static):
                raise TypeError(f"{_describe(entry)} takes an array of that shape, "
                                f"got shape {tuple(shape)}")
            pack_into(data, offset, pointer, pointer, 0, *shape, *strides)
        return pack_memref

    tensor_map = _TensorMapParam(entry, runtime)
    maps, end = tensor_map.maps, offset + _MAP_BYTES
    written = [None]  # the key of the map in the slot now

    def pack_tensor_map(value, host, keep):
        # A torch tensor's map by (address, shape, strides, dtype): a hit
        # needs no other check, a miss validates and encodes.
        try:
            key = (value.data_ptr(), value.shape, value.stride(), value.dtype)
        except AttributeError:
            key = None
        if key is None or key not in maps:
            pointer, shape, strides = _array(value, element, None, keep)
            encoded = tensor_map.encode(pointer, tuple(shape), tuple(strides))
            if key is not None and getattr(value, "is_cuda", False):
                maps[key] = encoded
            else:
                key = None
        else:
            encoded = maps[key]
        if key is None or key != written[0]:
            data[offset:end] = encoded
            written[0] = key
    return pack_tensor_map


def _describe(entry: dict) -> str:
    """A manifest parameter in MLIR-like words, for messages."""
    if entry["kind"] == "memref":
        dims = "x".join("?" if d < 0 else str(d) for d in entry["shape"])
        return f"memref<{dims}x{entry['element']}>"
    if entry["kind"] == "tensor_map":
        return f"!tile.tma_desc<{entry['element']}, box = {entry['box']}>"
    return entry["type"]
