"""libtile_runtime from Python (ctypes): loaded once, its errors raised as
TileRuntimeError instead of ending the process.

Devices: every call runs on a device, a CUDA ordinal as in PyTorch's
`cuda:N`, in that device's primary context (the one PyTorch uses). Kernels
load per device (tile.launch.Kernel) and launch in the context they were
loaded into; `Runtime.on_device(n)` brackets other calls for device n.
"""
import contextlib
import ctypes
import os
import struct
import threading
from typing import Optional

from .core import devices, streams
from .core.errors import TileRuntimeError
from .toolchain import Toolchain, find_toolchain

#: runtime/include/tile/Runtime.h's TileRtLaunchConfig: function, grid[3],
#: block[3], cluster[3], sharedBytes, stream, params, paramCount,
#: dependentLaunch (checked against tileRtLaunchConfigBytes when the library
#: loads).
LAUNCH_CONFIG = struct.Struct("<Q3q3q3qqQQqq")
#: The watchdog of synchronize() and of synchronous (host-array) launches.
DEFAULT_TIMEOUT = float(os.environ.get("TILE_TIMEOUT", "120"))

_CTYPES_OF_ABI = {"pointer": ctypes.c_void_p, "i64": ctypes.c_int64}


class Runtime:
    """libtile_runtime, loaded once per process (`Runtime.get()`)."""

    _instance = None
    _instance_lock = threading.Lock()

    def __init__(self, path):
        self.path = path
        self.lib = lib = ctypes.CDLL(str(path))
        self._errors = threading.local()  # the runtime reports on the failing thread
        handler_type = ctypes.CFUNCTYPE(None, ctypes.c_char_p)
        self._handler = handler_type(self._on_error)  # kept alive
        lib.tileRtSetErrorHandler(self._handler)
        vp, size_t = ctypes.c_void_p, ctypes.c_size_t
        lib.tileRtProbe.argtypes = [ctypes.c_char_p, size_t]
        lib.tileRtDeviceCount.restype = ctypes.c_int
        lib.tileRtPushDevice.argtypes = [ctypes.c_int]
        lib.tileRtPointerDevice.argtypes = [vp]
        lib.tileRtDeviceDescription.argtypes = [ctypes.c_char_p, size_t]
        lib.mgpuModuleLoadJIT.argtypes = [vp, ctypes.c_int]
        lib.mgpuModuleLoadJIT.restype = vp
        lib.mgpuModuleGetFunction.argtypes = [vp, ctypes.c_char_p]
        lib.mgpuModuleGetFunction.restype = vp
        lib.mgpuMemHostRegister.argtypes = [vp, ctypes.c_uint64]
        lib.mgpuMemHostUnregister.argtypes = [vp]
        lib.tileRtLaunch.argtypes = [vp]
        lib.tileRtLaunchConfigBytes.restype = size_t
        lib.tileRtStreamSynchronize.argtypes = [vp, ctypes.c_double]
        lib.tileRtMemoryInfo.argtypes = [ctypes.POINTER(ctypes.c_uint64)] * 2
        lib.tileRtLastKernelName.restype = ctypes.c_char_p
        if lib.tileRtLaunchConfigBytes() != LAUNCH_CONFIG.size:
            raise TileRuntimeError(
                f"{path}: TileRtLaunchConfig is {lib.tileRtLaunchConfigBytes()} bytes, "
                f"tile.runtime lays out {LAUNCH_CONFIG.size}: the library and the package "
                "are from different versions")
        self._encoders = {}

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

    @classmethod
    def get(cls, toolchain: Optional[Toolchain] = None) -> "Runtime":
        if cls._instance is None:
            with cls._instance_lock:
                if cls._instance is None:
                    tools = toolchain or find_toolchain()
                    if tools.runtime is None:
                        raise FileNotFoundError(
                            "libtile_runtime.so not found: set TILE_RUNTIME_LIB")
                    cls._instance = cls(tools.runtime)
        return cls._instance

    # --- devices -------------------------------------------------------------

    def probe(self) -> Optional[str]:
        """None when a CUDA device is usable, else why not."""
        buffer = ctypes.create_string_buffer(1024)
        return None if self.lib.tileRtProbe(buffer, len(buffer)) == 0 else buffer.value.decode()

    def device_count(self) -> int:
        return self.lib.tileRtDeviceCount()

    @contextlib.contextmanager
    def on_device(self, device: int):
        """Runs the body with device `device`'s primary context current on
        this thread (the previous context is current again after it)."""
        self.check()  # nothing pending from before: the push's own errors
        if self.lib.tileRtPushDevice(device):
            self.check()
            raise TileRuntimeError(f"cannot make cuda:{device}'s context current")
        try:
            yield
        finally:
            self.lib.tileRtPopDevice()
        self.check()

    def pointer_device(self, pointer: int) -> Optional[int]:
        """The device whose memory `pointer` points into (None: host memory,
        or no driver)."""
        device = self.lib.tileRtPointerDevice(pointer)
        return None if device < 0 else device

    def describe_device(self, device: int) -> str:
        """"<name> (sm_XY, N SMs)" of `device`."""
        buffer = ctypes.create_string_buffer(256)
        with self.on_device(device):
            self.lib.tileRtDeviceDescription(buffer, len(buffer))
        return buffer.value.decode()

    def memory_info(self, device: Optional[int] = None):
        """(free, total) memory of `device` (default: PyTorch's current one)
        in bytes, as the driver reports it."""
        free, total = ctypes.c_uint64(), ctypes.c_uint64()
        with self.on_device(devices.current_index() if device is None else ordinal(device)):
            self.lib.tileRtMemoryInfo(ctypes.byref(free), ctypes.byref(total))
        return free.value, total.value

    # --- modules and tensor maps ---------------------------------------------

    def load_function(self, ptx: bytes, name: str, device: int) -> int:
        """The CUfunction `name` of the PTX module `ptx`, loaded on `device`."""
        with self.on_device(device):
            module = self.lib.mgpuModuleLoadJIT(ctypes.create_string_buffer(ptx), 3)
            self.check()
            function = self.lib.mgpuModuleGetFunction(module, name.encode())
            self.check()
        return function

    def encoder(self, contract: dict, mode: str):
        """The runtime's tensor-map encoder of `mode` ("tiled" or "im2col"):
        the function the lowering of tile.tma_create_descriptor calls, typed
        from the contract a kernel manifest carries (its symbol and parameter
        kinds)."""
        found = self._encoders.get(mode)
        if found is None:
            entry = contract["encoders"][mode]
            found = getattr(self.lib, entry["symbol"])
            found.argtypes = [_CTYPES_OF_ABI[kind] for kind in entry["abi"]]
            found.restype = None
            self._encoders[mode] = found
        return found


def synchronize(stream=None, timeout: Optional[float] = None,
                device: Optional[int] = None) -> None:
    """Waits for the work on `stream` of `device` (default: the stream's
    device, else PyTorch's current one; stream None: that device's current
    stream, see tile.core.streams). A stream
    still busy after `timeout` seconds (default DEFAULT_TIMEOUT,
    $TILE_TIMEOUT; 0 waits forever) raises TileRuntimeError naming the
    kernel launched last: a kernel that never finishes no longer hangs the
    process. It may still occupy the GPU, so such a process should exit."""
    runtime = Runtime.get()
    if device is None:
        on = streams.device_of_stream(stream)
        device = devices.current_index() if on is None else on
    device = ordinal(device)
    with runtime.on_device(device):
        runtime.lib.tileRtStreamSynchronize(streams.stream_handle(stream, device),
                                            DEFAULT_TIMEOUT if timeout is None else timeout)
        runtime.check()


def ordinal(device) -> int:
    """The CUDA ordinal of `device`: an int, "cuda:N" or a torch.device."""
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        index = int(device[5:]) if device.startswith("cuda:") and device[5:].isdigit() else None
    else:
        index = getattr(device, "index", None)
    if index is None:
        raise TypeError(f"expected a CUDA device (an int, 'cuda:N', torch.device('cuda', N)), "
                        f"got {device!r}")
    return index
