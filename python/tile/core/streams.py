"""CUDA streams: raw handles for launches, PyTorch streams for the copies an
op makes around them. A stream belongs to a device; `None` means PyTorch's
current stream on the device of the operands (the legacy default stream
where PyTorch is not in use)."""
import contextlib
import sys
from typing import Optional

from .errors import OperandError

_current_raw_stream = None  # PyTorch's query of its current stream, by device


def current_stream_handle(device: int) -> Optional[int]:
    """PyTorch's current stream on `device`, when PyTorch is loaded and has
    initialized CUDA (else None: the legacy default stream)."""
    global _current_raw_stream
    if _current_raw_stream is None:
        torch = sys.modules.get("torch")
        if torch is None or not torch.cuda.is_initialized():
            return None
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        _current_raw_stream = raw if raw is not None else (
            lambda index: torch.cuda.current_stream(index).cuda_stream)
    return _current_raw_stream(device)


def device_of_stream(stream) -> Optional[int]:
    """The device a stream says it is on (a torch.cuda.Stream does; a raw
    CUstream cannot: None)."""
    return getattr(getattr(stream, "device", None), "index", None)


def require_stream_on(stream, device: int) -> None:
    """OperandError when `stream` says it is on another device than
    `device`."""
    on = device_of_stream(stream)
    if on is not None and on != device:
        raise OperandError(f"the stream is on cuda:{on}, the operands on cuda:{device}")


def stream_handle(stream, device: int) -> Optional[int]:
    """The CUstream of `stream`: None (PyTorch's current stream on `device`),
    an int, or an object with `cuda_stream` (torch.cuda.Stream, which must be
    on `device`) or `ptr` (CuPy)."""
    if stream is None:
        return current_stream_handle(device)
    if isinstance(stream, int):
        return stream
    require_stream_on(stream, device)
    for attribute in ("cuda_stream", "ptr"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise TypeError(f"expected a CUDA stream (torch.cuda.Stream, int), got {type(stream).__name__}")


def torch_stream(torch, stream, device: int):
    """`stream` (None, a torch.cuda.Stream or a raw CUstream of `device`) as a
    torch stream to run an op's copies and launch on."""
    if stream is None:
        return torch.cuda.current_stream(device)
    if isinstance(stream, torch.cuda.Stream):
        require_stream_on(stream, device)
        return stream
    return torch.cuda.ExternalStream(int(stream), device=device)


def running_on(torch, stream):
    """A context that makes torch stream `stream` current for an op's copies
    and allocations; nothing for None (the current one already is:
    torch.cuda.stream(None) does the same, but asks for the device index on
    every call of an op's hot path)."""
    return contextlib.nullcontext() if stream is None else torch.cuda.stream(stream)


def new_output(torch, shape, like, stream, index: int, dtype=None):
    """An empty tensor of `shape` on like's device, of `dtype` (default:
    like's), for an op's output; recorded on `stream` if it is a side
    stream (allocated here, written there)."""
    out = like.new_empty(shape) if dtype is None else like.new_empty(shape, dtype=dtype)
    if stream is not None:
        launch_stream = torch_stream(torch, stream, index)
        if launch_stream != torch.cuda.current_stream(index):
            out.record_stream(launch_stream)
    return out
