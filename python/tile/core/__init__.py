"""What every op of the package shares, and what an engineer adding one
builds on:

- `tile.core.errors`: the exceptions (TileError and its kinds);
- `tile.core.elements`: the element types, one table (MLIR, PyTorch, numpy
  and DLPack names, bytes), checked against the tensor-map contract that the
  kernel manifest carries;
- `tile.core.devices`: a GPU's facts (SMs, compute capability, shared
  memory), per device;
- `tile.core.operands`: operands as plain data (shape, strides, dtype,
  address, device) for the planners, and the checks on PyTorch tensors;
- `tile.core.layouts`: memref layouts at launch: which arrays a kernel's
  memref parameter takes (its manifest strides, offset and base
  alignment) and the descriptor fields they get;
- `tile.core.streams`: CUDA streams (PyTorch's current stream per device);
- `tile.core.caches`: bounded caches (plans, checks, scratch buffers);
- `tile.core.routing`: when an entry point's call goes through PyTorch's
  operators (torch.compile, autograd; tile.library defines them).

The core depends on nothing else of the package: the compiler, the runtime,
the launcher and the kernel families (`tile.family`) build on it.
"""
