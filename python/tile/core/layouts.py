"""Memref layouts at launch: which arrays a kernel's memref parameter takes,
and the memref descriptor fields it gets.

A memref type fixes the layout the compiled code assumes: the identity
layout (`memref<?x64xf16>`) means packed row-major rows, with its static
strides baked into the code, and a strided layout
(`memref<?x?xf16, strided<[?, 1], offset: ?>>`) takes what it leaves dynamic
from the descriptor. The kernel manifest records each parameter's strides
and offset (-1 where dynamic) and whether the kernel may write through it;
`descriptor_fields` checks an array against them (pure data: testable
without a GPU) and raises OperandError rather than let a kernel read or
write the wrong elements, or fault on a base address less aligned than its
accesses assume (the manifest's `alignment`: a misaligned address is
CUDA_ERROR_MISALIGNED_ADDRESS, which leaves the CUDA context unusable).
Dims of extent 0 or 1 address one element at most: their strides are not
checked (the descriptor gets the type's static stride or the packed one).
"""
from typing import Sequence, Tuple

from .errors import OperandError

DYNAMIC = -1  # a dynamic extent, stride or offset in the manifest


def packed_strides(shape: Sequence[int]) -> Tuple[int, ...]:
    """The strides (in elements) of a packed row-major array of `shape`."""
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def describe(entry: dict) -> str:
    """A manifest memref parameter as MLIR writes its type."""
    spell = lambda n: "?" if n == DYNAMIC else str(n)  # noqa: E731
    dims = "".join(f"{spell(d)}x" for d in entry["shape"])
    layout = ""
    if not entry.get("identity", True):
        offset = entry.get("offset", DYNAMIC)
        layout = (f", strided<[{', '.join(spell(s) for s in entry['strides'])}]"
                  f"{'' if offset == 0 else ', offset: ' + spell(offset)}>")
    return f"memref<{dims}{entry['element']}{layout}>"


def overlapping(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """Whether two indices of an array may share memory (a sufficient test
    for not: each stride, ascending, exceeds the span of the dims before)."""
    span = 0
    for stride, extent in sorted((s, e) for s, e in zip(strides, shape) if e > 1):
        if stride <= span:
            return True
        span += (extent - 1) * stride
    return False


def descriptor_fields(entry: dict, pointer: int, shape: Sequence[int],
                      strides: Sequence[int], itemsize: int, where: str):
    """(aligned pointer, offset, strides) of the memref descriptor that
    passes the array at `pointer` (shape, strides in elements) for the
    manifest memref parameter `entry`, or OperandError. `where` names the
    kernel and argument for the message."""
    shape, strides = tuple(shape), tuple(strides)
    rank = entry["rank"]
    want = entry["shape"]
    if len(shape) != rank or any(w not in (DYNAMIC, n) for w, n in zip(want, shape)):
        dims = ", ".join("?" if w == DYNAMIC else str(w) for w in want)
        raise OperandError(f"{where}: {describe(entry)} takes an array of shape "
                           f"[{dims}] (? any extent), got shape {shape}")
    identity = entry.get("identity", True)  # manifests before layouts: identity
    packed = packed_strides(shape)

    def fail(rule: str, required: str, fix: str):
        raise OperandError(
            f"{where}: {describe(entry)} {rule}; got an array of shape {shape} with strides "
            f"{strides} (in elements), {required}. {fix}")

    if pointer % itemsize:
        fail(f"takes {itemsize}-byte elements at {itemsize}-byte aligned addresses (T-LAUNCH-2)",
             f"whose first element is at {pointer:#x}", "Pass an aligned array.")
    large = [n > 1 for n in shape]
    if 0 in shape:  # nothing is addressed
        large = [False] * rank
    if any(s < 0 for s, big in zip(strides, large) if big):
        fail("takes no negative strides (T-LAUNCH-2)",
             "whose strides must be non-negative on dims of extent > 1",
             "Pass a copy (`.contiguous()`, `numpy.ascontiguousarray`).")
    if identity:
        if any(s != p for s, p, big in zip(strides, packed, large) if big):
            fail("has the identity layout, packed row-major rows, which the compiled code "
                 "assumes (T-LAUNCH-2)", f"the type requires strides {packed}",
                 "Pass `.contiguous()` (a copy), or declare the parameter with a strided "
                 "layout, e.g. `strided<[?, 1], offset: ?>`, to take the array's strides.")
        return check_alignment(entry, pointer, 0, shape, itemsize, where), 0, packed
    declared = entry["strides"]
    if any(d not in (DYNAMIC, s) for d, s, big in zip(declared, strides, large) if big):
        required = ", ".join("?" if d == DYNAMIC else str(d) for d in declared)
        fail(f"has static strides [{required}] baked into the compiled code (T-LAUNCH-3)",
             "which must match them on dims of extent > 1",
             "Pass an array of those strides (`.contiguous()` has packed ones), or declare "
             "the differing strides dynamic (`?`).")
    passed = tuple(d if d != DYNAMIC else (s if big else p)
                   for d, s, p, big in zip(declared, strides, packed, large))
    if entry.get("written", True) and overlapping(shape, passed):
        fail("belongs to a kernel that may write through it (the kernel manifest's "
             "`written`), so its elements must not share memory (T-LAUNCH-4)",
             "whose elements may overlap (a zero stride, as in a broadcast or expanded "
             "view, or strides that do not nest: tile accepts strides where each, "
             "ascending, exceeds the span of the dims before it)",
             "Pass a copy (`.contiguous()`); only parameters the kernel only reads take "
             "overlapping views.")
    offset = entry["offset"]
    if offset == DYNAMIC:  # the descriptor's offset locates the first element
        return check_alignment(entry, pointer, 0, shape, itemsize, where), 0, passed
    # A static offset is baked in: the first element is aligned + offset.
    return (check_alignment(entry, pointer - offset * itemsize, offset, shape, itemsize, where),
            offset, passed)


def check_alignment(entry: dict, aligned: int, offset: int, shape: Sequence[int],
                    itemsize: int, where: str) -> int:
    """`aligned` (the descriptor's aligned pointer, `offset` static elements
    before the first element) if it has the base alignment the manifest
    memref parameter `entry` says the kernel's accesses assume (none in
    manifests before `alignment`: the element's), else OperandError."""
    alignment = entry.get("alignment", itemsize)
    if not aligned % alignment or 0 in shape:  # an empty array: nothing is addressed
        return aligned
    base = f"whose first element is at {aligned + offset * itemsize:#x}"
    if offset:
        base += f" and aligned pointer (the first element - {offset} elements, T-LAUNCH-3)"
        base += f" at {aligned:#x}"
    access = entry.get("alignment_for") or f"accesses that need {alignment}-byte alignment"
    raise OperandError(
        f"{where}: {describe(entry)} is accessed by {access}, so the compiled code assumes a "
        f"{alignment}-byte aligned base address (T-LAUNCH-5); got an array {base}, only "
        f"{aligned & -aligned}-byte aligned. Pass a copy (`.clone()`: a fresh allocation, "
        f"256-byte aligned; `.contiguous()` copies only non-contiguous arrays) or a view that "
        f"starts {alignment}-byte aligned.")
