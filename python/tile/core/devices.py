"""GPUs: the facts the planners use, per device.

A device is its CUDA ordinal, as in PyTorch's `cuda:N`; the runtime runs
every kernel in that device's primary context (the one PyTorch uses).
"""
import sys
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from .errors import OperandError


@dataclass(frozen=True)
class Device:
    """The GPU: SM count, compute capability and the shared memory a block
    may opt into (None when unknown)."""
    sms: int
    capability: Tuple[int, int]
    shared_optin: Optional[int] = None

    @property
    def is_hopper(self) -> bool:
        """sm_90 (H100, H200): the chips of the sm_90a kernels."""
        return self.capability == (9, 0)

    @property
    def arch(self) -> str:
        return f"sm_{self.capability[0]}{self.capability[1]}"


def require_hopper(what: str, device: Device) -> None:
    """OperandError unless `device` is an sm_90 (the sm_90a kernels' chips);
    `what` names the call."""
    if not device.is_hopper:
        raise OperandError(f"{what} runs Hopper kernels (sm_90a: H100, H200); this GPU is "
                           f"{device.arch}")


_DEVICES: Dict[int, Device] = {}


def device(index: int) -> Device:
    """The facts of CUDA device `index` (from PyTorch), cached."""
    found = _DEVICES.get(index)
    if found is None:
        import torch
        props = torch.cuda.get_device_properties(index)
        found = _DEVICES[index] = Device(props.multi_processor_count,
                                         (props.major, props.minor),
                                         getattr(props, "shared_memory_per_block_optin", None))
    return found


def current_index() -> int:
    """PyTorch's current CUDA device once PyTorch has initialized CUDA, else
    0."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_initialized():
        return 0
    return torch.cuda.current_device()
