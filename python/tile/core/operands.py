"""Operands as the planners see them, and the checks on PyTorch tensors.

The planners decide on plain data (shapes, strides, dtypes, addresses: no
PyTorch, no GPU), so they are tested on any machine; `operand_of` turns a
tensor into that data.
"""
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

from .elements import dtype_name
from .errors import OperandError

#: TMA reads and writes rows at 16-byte aligned global addresses with
#: 16-byte multiple strides (T-TMA-9, T-TMA-10).
TMA_ALIGNMENT = 16


@dataclass(frozen=True)
class Operand:
    """What a planner needs of an array: shape and strides in elements, the
    element type as PyTorch names it ("float16", ...), the address of its
    first element and its device ("cuda:0")."""
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    dtype: str
    address: int
    device: str


def operand_of(tensor) -> Operand:
    """The Operand of a PyTorch tensor."""
    return Operand(tuple(tensor.shape), tuple(tensor.stride()), dtype_name(tensor.dtype),
                   tensor.data_ptr(), str(tensor.device))


def cdiv(a: int, b: int) -> int:
    """a / b rounded up."""
    return -(-a // b)


def rows_contiguous(operand: Operand) -> bool:
    """Row-major with contiguous rows (the row pitch may exceed the width)."""
    rows, columns = operand.shape
    return operand.strides[1] == 1 and (operand.strides[0] >= columns or rows == 1)


def columns_contiguous(operand: Operand) -> bool:
    """The transpose of a matrix with contiguous rows."""
    rows, columns = operand.shape
    return operand.strides[0] == 1 and (operand.strides[1] >= rows or columns == 1)


def require_vector_rows(what: str, name: str, operand: Operand, pitch: int,
                        vector: int) -> None:
    """OperandError unless the rows of `operand`, `pitch` elements apart,
    are whole vectors of `vector` elements (16 bytes) from a 16-byte
    aligned start: the layout of kernels that move 16-byte vectors."""
    shape, strides = tuple(operand.shape), tuple(operand.strides)
    if pitch < 0 or pitch % vector:
        raise OperandError(f"{what}: {name}'s row stride must be a non-negative multiple of "
                           f"{vector} elements (the kernel moves 16-byte vectors), got {pitch} "
                           f"(shape {shape}, strides {strides})")
    if operand.address % 16:
        raise OperandError(f"{what}: {name} must start at a 16-byte aligned address (the kernel "
                           f"moves 16-byte vectors), got {operand.address:#x}")


def require_one_device(what: str, *operands: Optional[Operand]) -> None:
    """OperandError unless the operands (None: absent) are on one device."""
    on = sorted({operand.device for operand in operands if operand is not None})
    if len(on) > 1:
        raise OperandError(f"{what}: operands on different devices: {on}")


def require_alike(what: str, named: Sequence[Tuple[str, Optional[Operand]]],
                  dtypes: Sequence[str]) -> None:
    """OperandError unless the named operands (None: absent) are CUDA arrays
    on one device, the first of one of `dtypes` (PyTorch's names) and the
    others of the first's; `what` names the call."""
    present = [(name, operand) for name, operand in named if operand is not None]
    for name, operand in present:
        if not operand.device.startswith("cuda"):
            raise OperandError(f"{what}: {name} must be a CUDA tensor, got one on "
                               f"{operand.device}")
    if len({operand.device for _, operand in present}) > 1:
        raise OperandError(f"{what}: operands on different devices: " + ", ".join(
            f"{name} on {operand.device}" for name, operand in present))
    first, lead = named[0]
    if lead.dtype not in dtypes:
        raise OperandError(f"{what} takes {' or '.join(dtypes)} {first}, got {lead.dtype}")
    for name, operand in present[1:]:
        if operand.dtype != lead.dtype:
            raise OperandError(f"{what}: {name} must have {first}'s dtype {lead.dtype}, got "
                               f"{operand.dtype}")


def signature(tensor):
    """What an op's plan depends on of a PyTorch tensor (None: absent):
    shape, strides, dtype, device and the address's 16-byte alignment."""
    if tensor is None:
        return None
    return (tensor.shape, tensor.stride(), tensor.dtype, tensor.get_device(),
            tensor.data_ptr() % TMA_ALIGNMENT)


def require_cuda_tensors(torch, what: str, **tensors) -> int:
    """The CUDA ordinal of the named tensors (None: absent), or OperandError
    unless every one is a PyTorch CUDA tensor and all are on one device;
    `what` names the call."""
    device: Optional[int] = None
    first = ""
    for name, tensor in tensors.items():
        if tensor is None:
            continue
        if not isinstance(tensor, torch.Tensor) or not tensor.is_cuda:
            where = f" on {tensor.device}" if isinstance(tensor, torch.Tensor) else ""
            raise OperandError(f"{what}: {name} must be a CUDA tensor, got "
                               f"{type(tensor).__name__}{where}")
        index = tensor.get_device()
        if device is None:
            device, first = index, name
        elif index != device:
            raise OperandError(f"{what}: operands on different devices: {first} on "
                               f"cuda:{device}, {name} on cuda:{index}")
    if device is None:
        raise OperandError(f"{what}: no CUDA tensor among the operands")
    return device
