"""Arrays a launch takes, without copies: PyTorch CUDA tensors, objects with
`__cuda_array_interface__` or `__dlpack__`, and contiguous numpy arrays (host
memory the kernel reads and writes over the bus). Each becomes (pointer,
shape, strides in elements, device ordinal or None where unknown); whether
a kernel parameter takes those strides is tile.core.layouts' question."""
import ctypes
from typing import Optional

from .core.elements import BY_NAME, element as element_type, torch_dtype
from .core.errors import OperandError
from .core.layouts import packed_strides


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DL_CUDA = 2


#: The strides (in elements) of a packed row-major array of a shape.
contiguous_strides = packed_strides


def _dlpack(value, element: str, keep: list):
    """(pointer, shape, strides, device) of a CUDA array exported through
    DLPack; the capsule is kept alive in `keep` for the launch."""
    capsule = value.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    tensor = _DLTensor.from_address(get(capsule, b"dltensor"))  # DLManagedTensor starts so
    keep.append(capsule)
    if tensor.device.device_type != _DL_CUDA:
        raise TypeError(f"expected a CUDA array, got DLPack device type {tensor.device.device_type}")
    if (tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes) != (
            *BY_NAME[element].dlpack, 1):
        raise TypeError(f"expected elements {element}, got DLPack type code "
                        f"{tensor.dtype.code}, {tensor.dtype.bits} bits")
    shape = tuple(tensor.shape[i] for i in range(tensor.ndim))
    strides = (tuple(tensor.strides[i] for i in range(tensor.ndim)) if tensor.strides
               else contiguous_strides(shape))
    return tensor.data + tensor.byte_offset, shape, strides, tensor.device.device_id


def array_view(value, element: str, host: Optional[list] = None, keep: Optional[list] = None):
    """(pointer, shape, strides in elements, device) of an array of
    `element`s without copying. A host array (numpy, `__array_interface__`)
    is accepted when `host` is a list, which collects (pointer, bytes) for
    the caller to page-lock and map; its device is None."""
    if getattr(value, "is_cuda", False) and hasattr(value, "data_ptr"):  # torch, bf16 too
        if value.dtype is not torch_dtype(element):
            raise TypeError(f"expected elements {element}, got {value.dtype}")
        return value.data_ptr(), tuple(value.shape), tuple(value.stride()), value.get_device()
    row = element_type(element)
    # Types numpy does not name (bf16, 8-bit floats) come only through DLPack.
    interface = getattr(value, "__cuda_array_interface__", None) if row.numpy else None
    device = None
    if interface is None and host is not None and hasattr(value, "__array_interface__"):
        interface = value.__array_interface__
        if interface.get("strides") is not None or not value.flags.writeable:
            # Page-locking maps the bytes from the pointer on: C order only.
            raise OperandError(
                f"host arrays must be C-contiguous and writable (they are mapped for the "
                f"launch as they are), got shape {tuple(interface['shape'])} with strides "
                f"{interface.get('strides')} bytes (None: C-contiguous), writable "
                f"{bool(value.flags.writeable)}: pass numpy.ascontiguousarray(a) (a copy) "
                "or a CUDA array")
        if getattr(value, "itemsize", row.bytes) != row.bytes or (
                row.numpy is None and getattr(value.dtype, "name", "") != element):
            raise TypeError(f"expected elements {element}, got {value.dtype}")
        host.append((interface["data"][0], value.nbytes))
    if interface is not None:
        if row.numpy and interface["typestr"] != row.numpy:
            raise TypeError(f"expected elements {element}, got {interface['typestr']}")
        shape = tuple(interface["shape"])
        strides = interface.get("strides")
        if strides is not None and any(s % row.bytes for s in strides):
            raise OperandError(f"array strides {tuple(strides)} bytes are not multiples of the "
                               f"{row.bytes}-byte {element} elements: pass a copy")
        strides = (contiguous_strides(shape) if strides is None
                   else tuple(s // row.bytes for s in strides))
        return interface["data"][0], shape, strides, device
    if hasattr(value, "__dlpack__") and keep is not None:
        return _dlpack(value, element, keep)
    raise TypeError("expected a CUDA array (__cuda_array_interface__ or __dlpack__), a torch "
                    f"CUDA tensor or a contiguous host array, got {type(value).__name__}")
