"""Launching compiled kernels through libtile_runtime (ctypes).

Arguments follow the kernel's signature in the IR: a memref takes any object
with `__cuda_array_interface__` or a torch CUDA tensor (no copy; its pointer,
shape and strides become MLIR's memref descriptor fields) or a contiguous
numpy array (no copy either: page-locked and mapped for the launch, so the
kernel works on host memory over the bus) or any CUDA array with `__dlpack__`
(JAX, CuPy...), an
`!tile.tma_desc<...>` a tensor as well (the runtime encodes the tensor map,
with every TMA precondition checked), `index`/integers a Python int, `f32`
a Python float. Runtime failures raise TileRuntimeError with the runtime's
message (the CUDA error, the call and the kernel)."""
import ctypes
import re
from typing import List, Optional, Sequence

_SIGNATURE = r"gpu\.func @{name}\((?P<args>[^)]*(?:\([^)]*\)[^)]*)*)\)\s*kernel"
_TYPES = {"f16": (2, "<f2"), "bf16": (2, None), "f32": (4, "<f4"), "f64": (8, "<f8"),
          "i8": (1, "|i1"), "i16": (2, "<i2"), "i32": (4, "<i4"), "i64": (8, "<i8")}
_TMA_DATA_TYPE = {"i8": 0, "i16": 1, "i32": 3, "i64": 5, "f16": 6, "f32": 7,
                  "f64": 8, "bf16": 9}
_TMA_SWIZZLE = {"none": 0, "b32": 1, "b64": 2, "b128": 3}


class TileRuntimeError(RuntimeError):
    """libtile_runtime reported a failure (CUDA error, bad launch, bad tensor map)."""


class Runtime:
    """libtile_runtime, loaded once: its errors raise TileRuntimeError instead
    of ending the process."""

    _instance = None

    def __init__(self, path):
        self.lib = ctypes.CDLL(str(path))
        self._error: Optional[str] = None
        handler_type = ctypes.CFUNCTYPE(None, ctypes.c_char_p)
        self._handler = handler_type(self._on_error)  # kept alive
        self.lib.tileRtSetErrorHandler(self._handler)
        vp, i64, i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32
        self.lib.tileRtProbe.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        self.lib.mgpuModuleLoadJIT.argtypes = [vp, ctypes.c_int]
        self.lib.mgpuModuleLoadJIT.restype = vp
        self.lib.mgpuModuleGetFunction.argtypes = [vp, ctypes.c_char_p]
        self.lib.mgpuModuleGetFunction.restype = vp
        self.lib.mgpuLaunchKernel.argtypes = [vp] + [ctypes.c_ssize_t] * 6 + [
            i32, vp, ctypes.POINTER(vp), ctypes.POINTER(vp), ctypes.c_size_t]
        self.lib.mgpuLaunchClusterKernel.argtypes = [vp] + [ctypes.c_ssize_t] * 9 + [
            i32, vp, ctypes.POINTER(vp), ctypes.POINTER(vp), ctypes.c_size_t]
        self.lib.mgpuTensorMapEncodeTiledMemref.argtypes = [
            i64, vp, i64, i64, i64, i64, i64, ctypes.POINTER(i64)]
        self.lib.mgpuTensorMapEncodeTiledMemref.restype = vp

    def _on_error(self, message: bytes) -> None:
        if self._error is None:
            self._error = message.decode(errors="replace")

    def check(self) -> None:
        """Raises the first error the runtime reported since the last check."""
        if self._error is not None:
            message, self._error = self._error, None
            raise TileRuntimeError(message)

    def probe(self) -> Optional[str]:
        """None when a CUDA device is usable, else why not."""
        buffer = ctypes.create_string_buffer(1024)
        return None if self.lib.tileRtProbe(buffer, len(buffer)) == 0 else buffer.value.decode()

    @classmethod
    def get(cls, toolchain=None) -> "Runtime":
        if cls._instance is None:
            from .tools import find_toolchain
            tools = toolchain or find_toolchain()
            if tools.runtime is None:
                raise FileNotFoundError("libtile_runtime.so not found: set TILE_RUNTIME_LIB")
            cls._instance = cls(tools.runtime)
        return cls._instance


def parse_signature(ir: str, name: str) -> List[str]:
    """The argument types of kernel `name` in `ir`."""
    match = re.search(_SIGNATURE.format(name=re.escape(name)), ir)
    if not match:
        raise ValueError(f"no gpu.func @{name} ... kernel in the module")
    types, depth, current = [], 0, ""
    for char in match["args"]:
        if char in "<([":
            depth += 1
        elif char in ">)]":
            depth -= 1
        if char == "," and depth == 0:
            types.append(current)
            current = ""
        else:
            current += char
    if current.strip():
        types.append(current)
    aliases = dict(re.findall(r"^(![\w.]+)\s*=\s*(.+)$", ir, re.MULTILINE))
    result = []
    for entry in types:
        type_ = entry.split(":", 1)[1].strip()
        result.append(aliases.get(type_, type_).strip())
    return result


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
_DL_CODES = {"i8": 0, "i16": 0, "i32": 0, "i64": 0, "f16": 2, "f32": 2, "f64": 2, "bf16": 4}


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
    shape = [tensor.shape[i] for i in range(tensor.ndim)]
    if tensor.strides:
        strides = [tensor.strides[i] for i in range(tensor.ndim)]
    else:
        strides, step = [], 1
        for extent in reversed(shape):
            strides.insert(0, step)
            step *= extent
    return tensor.data + tensor.byte_offset, tuple(shape), strides


def _array(value, element: str, host: Optional[list] = None, keep: Optional[list] = None):
    """(pointer, shape, strides in elements) of a CUDA array without copying;
    a host array (numpy, `__array_interface__`) is accepted when `host` is a
    list, which collects (pointer, bytes) for the caller to page-lock and map
    (the kernel then reads and writes host memory over the bus)."""
    size = _TYPES[element][0]
    interface = getattr(value, "__cuda_array_interface__", None) if element != "bf16" else None
    if interface is None and host is not None and hasattr(value, "__array_interface__"):
        interface = value.__array_interface__
        if interface.get("strides") is not None or not value.flags.writeable:
            raise TypeError("host arrays must be contiguous and writable")
        host.append((interface["data"][0], value.nbytes))
    if interface is not None:
        if _TYPES[element][1] and interface["typestr"] != _TYPES[element][1]:
            raise TypeError(f"expected elements {element}, got {interface['typestr']}")
        shape = tuple(interface["shape"])
        strides = interface.get("strides")
        if strides is None:
            strides, step = [], 1
            for extent in reversed(shape):
                strides.insert(0, step)
                step *= extent
        else:
            strides = [s // size for s in strides]
        return interface["data"][0], shape, list(strides)
    if hasattr(value, "__dlpack__") and keep is not None and not hasattr(value, "data_ptr"):
        return _dlpack(value, element, keep)
    if hasattr(value, "data_ptr") and getattr(value, "is_cuda", False):  # torch, bf16 too
        if value.element_size() != size:
            raise TypeError(f"expected {element} elements, got {value.dtype}")
        return value.data_ptr(), tuple(value.shape), list(value.stride())
    raise TypeError("expected a CUDA array (__cuda_array_interface__ or __dlpack__), a torch "
                    f"CUDA tensor or a contiguous host array, got {type(value).__name__}")


def _argument_kind(type_: str):
    """How a kernel argument of MLIR type `type_` is passed: ("memref",
    (rank, element)), ("tma", (element, box, swizzle)) or ("scalar", the
    ctypes constructor); parsed once per kernel."""
    memref = re.match(r"memref<((?:[\d?]+x)*)(\w+)(?:,.*)?>$", type_)
    if memref:
        return "memref", (memref[1].count("x"), memref[2])
    tma = re.match(r"!tile\.tma_desc<memref<(?:[\d?]+x)*(\w+)>,\s*box\s*=\s*\[([\d,\s]+)\]"
                   r"(?:,\s*swizzle\s*=\s*(\w+))?", type_)
    if tma:
        return "tma", (tma[1], [int(b) for b in tma[2].split(",")],
                       _TMA_SWIZZLE[tma[3] or "none"])
    scalars = {"index": lambda v: ctypes.c_int64(int(v)), "i64": lambda v: ctypes.c_int64(int(v)),
               "i32": lambda v: ctypes.c_int32(int(v)), "f32": lambda v: ctypes.c_float(float(v))}
    if type_ in scalars:
        return "scalar", scalars[type_]
    raise TypeError(f"kernel argument type {type_} is not supported from Python")


class Kernel:
    """A kernel of a CompiledModule, loaded into the current CUDA context."""

    def __init__(self, module, name: str, runtime: Optional[Runtime] = None):
        if name not in module.kernels:
            raise ValueError(f"no kernel '{name}' in the PTX (kernels: {module.kernels})")
        self.runtime = runtime or Runtime.get()
        self.name = name
        self.types = parse_signature(module.source, name)
        self._kinds = [_argument_kind(t) for t in self.types]
        ptx = ctypes.create_string_buffer(module.ptx.encode())
        self._module = self.runtime.lib.mgpuModuleLoadJIT(ptx, 3)
        self.runtime.check()
        self._function = self.runtime.lib.mgpuModuleGetFunction(self._module, name.encode())
        self.runtime.check()

    def _pack(self, args: Sequence, host: list, keep: list) -> list:
        if len(args) != len(self.types):
            raise TypeError(f"kernel '{self.name}' takes {len(self.types)} arguments "
                            f"({', '.join(self.types)}), got {len(args)}")
        values = []
        for value, type_, (kind, info) in zip(args, self.types, self._kinds):
            if kind == "memref":
                rank, element = info
                pointer, shape, strides = _array(value, element, host, keep)
                if len(shape) != rank:
                    raise TypeError(f"{type_} takes a rank-{rank} array, got shape {shape}")
                values += [ctypes.c_void_p(pointer), ctypes.c_void_p(pointer), ctypes.c_int64(0)]
                values += [ctypes.c_int64(v) for v in list(shape) + strides]
            elif kind == "tma":
                values.append(ctypes.c_void_p(self._tensor_map(value, *info)))
            else:
                values.append(info(value))
        return values

    def _tensor_map(self, value, element: str, box: List[int], swizzle: int) -> int:
        pointer, shape, strides = _array(value, element)
        rank = len(shape)
        descriptor = (ctypes.c_int64 * (3 + 2 * rank))(
            pointer, pointer, 0, *shape, *strides)
        boxes = (ctypes.c_int64 * len(box))(*box)
        result = self.runtime.lib.mgpuTensorMapEncodeTiledMemref(
            rank, ctypes.cast(descriptor, ctypes.c_void_p), _TMA_DATA_TYPE[element],
            0, swizzle, 0, 0, boxes)
        self.runtime.check()
        return result

    def __call__(self, *args, grid=(1, 1, 1), block=(1, 1, 1), shared: int = 0,
                 cluster=None, synchronize: bool = True):
        """Launches on the default stream; with `cluster` (x, y, z) as a
        cluster launch (`grid` counts blocks). Waits for the kernel unless
        `synchronize` is False."""
        host: list = []
        keep: list = []  # DLPack capsules, alive until the launch is done
        values = self._pack(args, host, keep)
        params = (ctypes.c_void_p * len(values))(
            *[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
        lib = self.runtime.lib
        # Host arrays are page-locked and mapped for the launch (on unified
        # addressing the device uses their host pointers) and released after
        # it, so such a launch always waits for the kernel.
        registered = []
        try:
            for pointer, size in dict(host).items():
                lib.mgpuMemHostRegister(ctypes.c_void_p(pointer), ctypes.c_uint64(size))
                self.runtime.check()
                registered.append(pointer)
            if cluster:
                lib.mgpuLaunchClusterKernel(self._function, *cluster, *grid, *block, shared,
                                            None, params, None, len(values))
            else:
                lib.mgpuLaunchKernel(self._function, *grid, *block, shared, None, params,
                                     None, len(values))
            self.runtime.check()
            if synchronize or registered:
                lib.tileRtSynchronize()
                self.runtime.check()
        finally:
            for pointer in registered:
                lib.mgpuMemHostUnregister(ctypes.c_void_p(pointer))
