"""The element types tile kernels take, one table.

Each row: the MLIR spelling (what manifests and IR say), the bytes of one
element, the PyTorch dtype name, the numpy typestr (None where numpy has no
such type), the DLPack (type code, bits) and the `struct` format of a
scalar kernel parameter of the type (None where Python has no such scalar). The tensor-map contract (the
`contract` section of every kernel manifest) lists the bytes of each type a
tensor map can describe; `check_against_contract` compares (a test runs it).
"""
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from .errors import TileError


@dataclass(frozen=True)
class Element:
    """One element type."""

    name: str
    bytes: int
    torch: str
    numpy: Optional[str]
    dlpack: Tuple[int, int]
    scalar: Optional[str]

    @property
    def is_fp8(self) -> bool:
        return self.name.startswith("f8")


# DLPack type codes: 0 int, 2 float, 4 bfloat, 10 float8_e4m3fn, 12 float8_e5m2.
ELEMENTS: Tuple[Element, ...] = (
    Element("f16", 2, "float16", "<f2", (2, 16), None),
    Element("bf16", 2, "bfloat16", None, (4, 16), None),
    Element("f32", 4, "float32", "<f4", (2, 32), "f"),
    Element("f64", 8, "float64", "<f8", (2, 64), "d"),
    Element("i8", 1, "int8", "|i1", (0, 8), "b"),
    Element("i16", 2, "int16", "<i2", (0, 16), "h"),
    Element("i32", 4, "int32", "<i4", (0, 32), "i"),
    Element("i64", 8, "int64", "<i8", (0, 64), "q"),
    Element("f8E4M3FN", 1, "float8_e4m3fn", None, (10, 8), None),
    Element("f8E5M2", 1, "float8_e5m2", None, (12, 8), None),
)

BY_NAME: Dict[str, Element] = {e.name: e for e in ELEMENTS}
BY_TORCH: Dict[str, Element] = {e.torch: e for e in ELEMENTS}
#: The largest finite magnitude of each 8-bit float type (OCP 8-bit
#: floating point formats: E4M3FN's S.1111.110, E5M2's S.11110.11).
FP8_MAX: Dict[str, float] = {"f8E4M3FN": 448.0, "f8E5M2": 57344.0}
#: The 16-bit float types (PyTorch's names) of the f16/bf16 kernels.
FLOAT16_TYPES: Tuple[str, ...] = ("float16", "bfloat16")


def element(name: str) -> Element:
    """The element type MLIR spells `name`."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise TileError(f"element type {name} is not one tile launches "
                        f"({', '.join(BY_NAME)})") from None


def dtype_name(dtype) -> str:
    """A PyTorch dtype's name without the module ("float16")."""
    return str(dtype).rsplit(".", 1)[-1]


def of_torch(dtype) -> Optional[Element]:
    """The element type of a PyTorch dtype, or None."""
    return BY_TORCH.get(dtype_name(dtype))


def torch_dtype(name: str):
    """The PyTorch dtype of the element type MLIR spells `name`."""
    import torch
    return getattr(torch, element(name).torch)


def check_against_contract(contract: dict) -> None:
    """Raises TileError where this table and a manifest's tensor-map contract
    (its `element_types`) disagree on a type's bytes, or where the contract
    names a type this table lacks."""
    for name, entry in contract["element_types"].items():
        row = BY_NAME.get(name)
        if row is None or row.bytes != entry["bytes"]:
            raise TileError(f"element type {name}: the tensor-map contract says "
                            f"{entry['bytes']} bytes, tile.core.elements "
                            f"{'lacks it' if row is None else row.bytes}")
