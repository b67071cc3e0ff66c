"""Launching compiled kernels through libtile_runtime.

A kernel's parameters come from the module's kernel manifest (written by the
pipeline, printed by `tile-translate --kernel-manifest`), not from its IR:
- a memref takes an array (tile.arrays: a PyTorch CUDA tensor, an object
  with `__cuda_array_interface__` or `__dlpack__`, or a contiguous numpy
  array, page-locked and mapped for the launch, which then waits); its
  pointer, shape and strides become MLIR's memref descriptor fields. The
  type's layout is what the compiled code assumes, so it decides which
  strides are taken (tile.core.layouts.descriptor_fields, else
  OperandError): the identity layout (`memref<?x64xf16>`) takes packed
  row-major arrays only (`x.t()`, `x[:, :64]`, `x[:, ::2]`, an expanded
  view are errors: pass `.contiguous()`); a strided layout
  (`memref<?x?xf16, strided<[?, ?], offset: ?>>`) takes any non-negative
  strides where it has `?` and the same strides where it has numbers, and
  overlapping views (zero strides: broadcasts) only for parameters the
  kernel does not write (the manifest's `written`); the base address must
  have the alignment the kernel's accesses assume (the manifest's
  `alignment`: 16 for a 16-byte cp.async, say), else OperandError rather
  than a misaligned-address fault that kills the CUDA context;
- a `!tile.tma_desc<...>` takes an array as well: the runtime's tensor-map
  encoder, the one the lowering of tile.tma_create_descriptor calls, checks
  every precondition (a unit innermost stride, 16-byte multiple strides:
  T-TMA-9) and encodes its CUtensorMap (negative and zero strides are an
  OperandError first), and the 128 bytes are
  passed by value in the kernel's parameters. Maps are cached by what they
  encode (address, shape, strides; the descriptor type fixes the rest), so a
  freed-and-reused address with the same geometry reuses a map that is
  still right, and a steady-state launch encodes nothing;
- `index`/integers take a Python int, `f32`/`f64` a Python float.

Devices: a Kernel runs on the device of its array arguments (all on one
device; else a TypeError), or `device=` when none says, or PyTorch's current
device. It loads its module on each device the first time it runs there.

A call shape an op makes again (the same shapes, strides, dtypes and
device) takes a prepared launch (`Kernel.prepare`): its own parameter
bytes and launch record with the fixed arguments packed once; a call packs
the varying arrays by address (maps encoded once per address, a memref's
descriptor fields reused with its alignment checked) and scalars, and makes
one foreign call.

A kernel whose manifest has `dependent_launch` (it waits for the grids
before it: tile.grid_dependency_wait) is launched as a programmatic
dependent of the previous kernel of its stream: the driver prepares its
launch while that kernel runs and starts it once that kernel triggers (its
completion, for tile's kernels), without the launch gap; its CTAs set up
shared memory before they wait. `TILE_DEPENDENT_LAUNCH=0` in the
environment launches every kernel in plain stream order instead.

Launches are stream-ordered and return at once: on `stream` (a
torch.cuda.Stream, a raw CUstream int, or None for PyTorch's current stream
on the kernel's device when PyTorch is imported, else the legacy default
stream). They allocate nothing and copy nothing, so they can be captured in
CUDA graphs. As with any asynchronous launch, the caller keeps the arrays
alive and ordered with the launch's stream until the kernel is done
(PyTorch's allocator does this for tensors used on their current stream; on
another stream, as in PyTorch, `tensor.record_stream(stream)`; arrays of other
frameworks: synchronize their producer's stream first). Runtime failures
raise TileRuntimeError with the runtime's message (the CUDA error, the call,
the kernel; after an error that leaves the context unusable, every later
call on that device says so and names the first failure)."""
import ctypes
import math
import operator
import os
import struct
import threading
from typing import Optional

from .arrays import array_view
from .core import devices, streams
from .core.elements import ELEMENTS, check_against_contract, element as element_type, torch_dtype
from .core.errors import OperandError, TileRuntimeError
from .core.layouts import describe as describe_memref, descriptor_fields, packed_strides
from .runtime import DEFAULT_TIMEOUT, LAUNCH_CONFIG, Runtime, ordinal

# Scalar parameters: the struct format of their kernel-parameter bytes, from
# the element table, and index (64-bit in the host's launches) and i1.
_SCALARS = {e.name: e.scalar for e in ELEMENTS if e.scalar}
_SCALARS.update(index="q", i1="?")
#: Whether kernels that wait for the grids before them are launched as
#: programmatic dependents: TILE_DEPENDENT_LAUNCH at import (0, false, off or
#: no: plain stream order); a Kernel takes the setting when it is made.
DEPENDENT_LAUNCH = os.environ.get("TILE_DEPENDENT_LAUNCH", "1").strip().lower() not in (
    "0", "false", "off", "no")
# Whether this process compared the element table with a manifest's contract.
_CONTRACT_CHECKED = []


class _Params:
    """The kernel-parameter bytes of one kernel: a buffer with a slot per
    kernel parameter (each field of a memref descriptor, an aligned tensor
    map, a scalar), consecutive where the parameters are, and the array of
    their addresses that the launch passes. Filled in place on each launch
    (cuLaunchKernel copies them)."""

    def __init__(self, sizes_and_alignments, alignment: int):
        offsets, end = [], 0
        for size, align in sizes_and_alignments:
            end = -(-end // align) * align
            offsets.append(end)
            end += size
        self.bytes = bytearray(end + alignment)
        base = ctypes.addressof((ctypes.c_char * len(self.bytes)).from_buffer(self.bytes))
        self.shift = -base % alignment  # the buffer's first aligned byte
        self.offsets = [self.shift + offset for offset in offsets]
        self.pointers = (ctypes.c_void_p * max(1, len(offsets)))(
            *[base + offset for offset in self.offsets])
        self.address = ctypes.addressof(self.pointers)


class _TensorMapParam:
    """A `!tile.tma_desc` parameter: its manifest entry, the contract's
    encoder and the maps encoded for it, by (address, shape, strides)."""

    _CAPACITY = 1024

    def __init__(self, entry: dict, contract: dict, runtime: Runtime, where: str,
                 capacity: int = _CAPACITY):
        self.capacity = capacity
        self.entry = entry
        self.where = where  # "kernel 'k', argument i", for messages
        self.runtime = runtime
        self.element = entry["element"]
        self.rank = entry["rank"]
        self.bytes = contract["tensor_map"]["bytes"]
        self.alignment = contract["tensor_map"]["alignment"]
        self.im2col = "im2col_lower" in entry
        self.encoder = runtime.encoder(contract, "im2col" if self.im2col else "tiled")
        rank = self.rank
        self._descriptor = struct.Struct(f"<QQq{rank}q{rank}q")  # MLIR's memref descriptor
        if self.im2col:
            self._lower = (ctypes.c_int64 * (rank - 2))(*entry["im2col_lower"])
            self._upper = (ctypes.c_int64 * (rank - 2))(*entry["im2col_upper"])
        else:
            self._box = (ctypes.c_int64 * rank)(*entry["box"])
        self.maps = {}

    def describe(self) -> str:
        e = self.entry
        return (f"!tile.tma_desc<{e['element']}, box = {e['box']}, swizzle {e['swizzle']}, "
                f"oob {e['oob_fill']}>")

    def encode(self, pointer: int, shape, strides) -> bytes:
        """The map of the array at `pointer` (cached)."""
        key = (pointer, shape, strides)
        found = self.maps.get(key)
        if found is not None:
            return found
        if len(shape) != self.rank:
            raise TypeError(f"{self.describe()} takes a rank-{self.rank} tensor, got shape {shape}")
        if any(s <= 0 for s, n in zip(strides, shape) if n > 1):
            # The encoder takes unsigned strides; a zero stride's map (a
            # broadcast) would let TMA stores overlap.
            raise OperandError(f"{self.where}: {self.describe()} takes positive strides on dims "
                               f"of extent > 1; got an array of shape {shape} with strides "
                               f"{strides} (in elements). Pass `.contiguous()` (a copy) "
                               "(T-LAUNCH-4).")
        descriptor = ctypes.create_string_buffer(self._descriptor.size)
        self._descriptor.pack_into(descriptor, 0, pointer, pointer, 0, *shape, *strides)
        map_buffer = ctypes.create_string_buffer(2 * self.bytes)
        address = ctypes.addressof(map_buffer)
        address += -address % self.alignment
        e = self.entry
        common = (address, self.rank, ctypes.addressof(descriptor), e["data_type"],
                  e["interleave"], e["swizzle"], e["l2_promotion"], e["oob_fill"])
        if self.im2col:  # box = [pixels per column, channels per pixel]
            self.encoder(*common, ctypes.addressof(self._lower), ctypes.addressof(self._upper),
                         e["box"][1], e["box"][0])
        else:
            self.encoder(*common, ctypes.addressof(self._box))
        try:
            self.runtime.check()
        except TileRuntimeError as error:
            raise TileRuntimeError(f"{self.where} ({self.describe()}): {error}") from None
        encoded = ctypes.string_at(address, self.bytes)
        if len(self.maps) >= self.capacity:
            self.maps.clear()
        self.maps[key] = encoded
        return encoded


class Kernel:
    """A kernel of a CompiledModule, launchable on any device (its module
    loads on a device the first time it runs there). Calling it launches it
    (see the module docstring)."""

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
        self._dependent = int(bool(manifest.get("dependent_launch")) and DEPENDENT_LAUNCH)
        contract = module.manifest.get("contract")
        if contract is not None and not _CONTRACT_CHECKED:
            check_against_contract(contract)  # the element table is the contract's
            _CONTRACT_CHECKED.append(True)
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
                if contract is None:
                    raise TypeError(f"kernel '{name}': the module's manifest has no tensor-map "
                                    "contract (compiled by an older tile-translate)")
                slots.append((entry["bytes"], entry["alignment"]))
            elif entry["type"] in _SCALARS:
                size = struct.calcsize(_SCALARS[entry["type"]])
                slots.append((size, size))
            else:
                raise TypeError(f"kernel '{name}': parameter type {entry['type']} is not "
                                "supported from Python")
        alignment = max([align for _, align in slots] + [8])
        self._count = len(slots)
        self._layout = (slots, alignment, firsts, contract)
        self._params = _Params(slots, alignment)
        self._packers = self._packers_for(self._params)
        self._lock = threading.Lock()
        self._config = bytearray(LAUNCH_CONFIG.size)
        self._config_address = ctypes.addressof(
            (ctypes.c_char * len(self._config)).from_buffer(self._config))
        self._ptx = module.ptx.encode()
        self._functions = {}  # CUfunction by device ordinal

    def _packers_for(self, params: "_Params", by_address=()) -> list:
        """A packer per parameter writing into `params` (the arrays at
        positions `by_address` taken by address: _address_packer)."""
        _, _, firsts, contract = self._layout
        return [(_address_packer if i in by_address else _packer)(
                    entry, contract, params, params.offsets[first], self.runtime,
                    f"kernel '{self.name}', argument {i}")
                for i, (entry, first) in enumerate(zip(self.params, firsts))]

    def prepare(self, device: int, args, grid, stream=None, varying=()) -> "PreparedLaunch":
        """A launch of this kernel on `device`, `grid` and `stream` with
        `args` packed once: calling it packs only the arguments at the
        positions `varying` (given in that order) and launches, one foreign
        call. For ops that plan a call once per shape: the varying arrays
        are PyTorch CUDA tensors on `device` with the dtypes, shapes and
        strides of those in `args` (the plan's key; not checked again) and
        are taken by their address (data_ptr: a tensor stands for its views
        that start where it does), a tensor map encoded once per address.
        The launch keeps the fixed arrays alive; `stream` None is PyTorch's
        current stream on `device` now, when prepared."""
        return PreparedLaunch(self, ordinal(device), tuple(args), grid, stream, tuple(varying))

    @property
    def devices(self):
        """The devices the kernel's module is loaded on."""
        return sorted(self._functions)

    def function(self, device: int) -> int:
        """The kernel's CUfunction on `device` (its module loaded there on
        first use)."""
        function = self._functions.get(device)
        if function is None:
            function = self._functions[device] = self.runtime.load_function(
                self._ptx, self.name, device)
        return function

    def __call__(self, *args, grid=(1, 1, 1), block=None, shared: Optional[int] = None,
                 cluster=None, stream=None, synchronize: bool = False,
                 device: Optional[int] = None):
        """Launches on `stream` and returns at once (with `synchronize`, waits
        with the watchdog). `block`, `shared` (dynamic shared memory bytes)
        and `cluster` default to the manifest's values where it has them;
        with a cluster, `grid` counts blocks. `device` is the device when no
        array argument names one."""
        self._launch(args, grid, block, shared, cluster, stream, synchronize, device, False)

    def launch_on(self, device: int, args, grid, stream=None) -> None:
        """Launches on `device` with the manifest's block, shared memory and
        cluster, for callers that have checked that every array argument is
        a tensor on `device` (the ops of tile.ops, when they plan a call):
        the arrays' devices are not asked again, which a launch from the
        host's hot path saves."""
        self._launch(args, grid, None, None, None, stream, False, device, True)

    def _launch(self, args, grid, block, shared, cluster, stream, synchronize: bool,
                device: Optional[int], trusted: bool) -> None:
        if len(args) != len(self._packers):
            raise TypeError(f"kernel '{self.name}' takes {len(self._packers)} arguments "
                            f"({', '.join(self.types)}), got {len(args)}")
        block = block or self._block
        if block is None:
            raise TypeError(f"kernel '{self.name}' has no fixed block shape (known_block_size "
                            "or constant launches): pass block=")
        shared = self._shared if shared is None else shared
        cluster = cluster or self._cluster
        device = None if device is None else ordinal(device)
        host: list = []  # host arrays to page-lock for this launch
        keep: list = []  # DLPack capsules, alive until the launch is queued
        runtime = self.runtime
        with self._lock:
            on = device if trusted else None  # the device the arrays are on
            for pack, value in zip(self._packers, args):
                at = pack(value, host, keep, not trusted)
                if at is not None and at != on:
                    if on is not None:
                        raise TypeError(f"kernel '{self.name}': arguments on different "
                                        f"devices: cuda:{on} and cuda:{at}")
                    on = at
            if on is None:
                on = devices.current_index() if device is None else device
            elif device is not None and device != on:
                raise TypeError(f"kernel '{self.name}': device={device}, but the arrays are "
                                f"on cuda:{on}")
            function = self._functions.get(on) or self.function(on)
            handle = (streams.current_stream_handle(on) if stream is None
                      else streams.stream_handle(stream, on)) or 0
            LAUNCH_CONFIG.pack_into(self._config, 0, function, *grid, *block,
                                    *(cluster or (0, 0, 0)), shared, handle,
                                    self._params.address, self._count, self._dependent)
            if host:
                self._launch_with_host_arrays(host, handle, on)
                return
            runtime.lib.tileRtLaunch(self._config_address)
            runtime.check()
        if synchronize:
            with runtime.on_device(on):
                runtime.lib.tileRtStreamSynchronize(handle, DEFAULT_TIMEOUT)
                runtime.check()

    def _launch_with_host_arrays(self, host, handle, device):
        """Launches the packed config with the host arrays page-locked and
        mapped (on unified addressing the device uses their host pointers)
        and released after it, so such a launch waits for the kernel."""
        lib, runtime = self.runtime.lib, self.runtime
        registered = []
        with runtime.on_device(device):
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
            runtime.check()  # the unregistrations


class PreparedLaunch:
    """Kernel.prepare's launch: its own parameter bytes and launch record,
    the fixed arguments packed once, the varying ones on each call."""

    def __init__(self, kernel: Kernel, device: int, args: tuple, grid, stream, varying):
        if len(args) != len(kernel._packers):
            raise TypeError(f"kernel '{kernel.name}' takes {len(kernel._packers)} arguments "
                            f"({', '.join(kernel.types)}), got {len(args)}")
        slots, alignment, _, _ = kernel._layout
        self.kernel = kernel
        self._params = _Params(slots, alignment)
        arrays = {i for i in varying if kernel.params[i]["kind"] != "scalar"}
        packers = kernel._packers_for(self._params, arrays)
        host, keep = [], []
        for i, (pack, value) in enumerate(zip(packers, args)):
            at = pack(value, host, keep, True)
            if i in arrays:
                at = value.get_device()
            if host or (at is not None and at != device):
                raise TypeError(f"kernel '{kernel.name}', argument {i}: a prepared launch takes "
                                f"arrays on cuda:{device}")
        self._varying = [packers[i] for i in varying]
        self._host, self._keep = host, keep
        # The fixed arrays' memory is the launch's to keep alive: their
        # addresses are in its parameters.
        self._fixed = tuple(value for i, value in enumerate(args) if i not in varying)
        block = kernel._block
        if block is None:
            raise TypeError(f"kernel '{kernel.name}' has no fixed block shape")
        handle = streams.stream_handle(stream, device) or 0
        self._config = bytearray(LAUNCH_CONFIG.size)
        LAUNCH_CONFIG.pack_into(self._config, 0, kernel.function(device), *grid, *block,
                                *(kernel._cluster or (0, 0, 0)), kernel._shared, handle,
                                self._params.address, kernel._count, kernel._dependent)
        self._config_address = ctypes.addressof(
            (ctypes.c_char * len(self._config)).from_buffer(self._config))
        self._launch = kernel.runtime.lib.tileRtLaunch
        self._check = kernel.runtime.check
        self._lock = threading.Lock()

    def __call__(self, *values) -> None:
        host, keep = self._host, self._keep
        with self._lock:
            for pack, value in zip(self._varying, values):
                pack(value, host, keep, False)
            self._launch(self._config_address)
            self._check()


def _address_packer(entry: dict, contract: Optional[dict], params: _Params, offset: int,
                    runtime: Runtime, where: str):
    """An array parameter's packer for arrays of one geometry, the first's
    (a prepared launch's varying argument): later arrays give only their
    address (data_ptr), so a view and its base are alike. Tensor maps are
    encoded once per address; a memref's descriptor takes the first's
    fields at the new address, whose alignment is checked (T-LAUNCH-5)."""
    data, element = params.bytes, entry["element"]
    geometry = []  # the first array's (shape, strides)
    if entry["kind"] == "memref":
        pack_into = struct.Struct(f"<{3 + 2 * entry['rank']}q").pack_into
        itemsize = element_type(element).bytes
        alignment = math.lcm(itemsize, entry.get("alignment", itemsize))
        fields = [0, 0, ()]  # bytes back to the aligned pointer, offset, strides passed

        def pack_memref_address(value, host, keep, ask):
            pointer = value.data_ptr()
            if not geometry or (pointer - fields[0]) % alignment:
                if not geometry:
                    geometry.append(array_view(value, element, None, keep)[1:3])
                # Checks the alignment (OperandError naming the access).
                aligned, fields[1], fields[2] = descriptor_fields(entry, pointer, *geometry[0],
                                                                  itemsize, where)
                fields[0] = pointer - aligned
            aligned = pointer - fields[0]
            pack_into(data, offset, aligned, aligned, fields[1], *geometry[0][0], *fields[2])
        return pack_memref_address

    # A prepared launch's maps: the few addresses a call shape cycles through.
    tensor_map = _TensorMapParam(entry, contract, runtime, where, capacity=64)
    end = offset + tensor_map.bytes
    written = [None]  # the address whose map is in the slot

    def pack_map_address(value, host, keep, ask):
        pointer = value.data_ptr()
        if pointer != written[0]:
            if not geometry:
                geometry.append(array_view(value, element, None, keep)[1:3])
            data[offset:end] = tensor_map.encode(pointer, *geometry[0])  # cached there
            written[0] = pointer
    return pack_map_address


def _packer(entry: dict, contract: Optional[dict], params: _Params, offset: int,
            runtime: Runtime, where: str):
    """A function (value, host, keep, ask) -> device that writes one
    argument's kernel parameters at `offset` and returns the device its
    array is on (None for scalars and host arrays; for a PyTorch tensor only
    when `ask`), with a fast path for PyTorch CUDA tensors."""
    data, kind = params.bytes, entry["kind"]
    if kind == "scalar":
        pack_into = struct.Struct("<" + _SCALARS[entry["type"]]).pack_into

        def pack_scalar(value, host, keep, ask):
            pack_into(data, offset, value)
        return pack_scalar

    element = entry["element"]
    element_type(element)  # a type the launcher knows
    if kind == "memref":
        rank = entry["rank"]
        pack_into = struct.Struct(f"<{3 + 2 * rank}q").pack_into
        dtypes = []  # the torch dtype, once torch is in use
        itemsize = element_type(element).bytes
        # Old manifests have no layout: identity, as their launchers assumed;
        # nor a base alignment: the element's.
        identity = entry.get("identity", True)
        alignment = math.lcm(itemsize, entry.get("alignment", itemsize))
        fixed = [i for i, extent in enumerate(entry["shape"]) if extent >= 0]
        # The static extents of a shape, one C call (a tuple for several).
        extents = operator.itemgetter(*fixed) if fixed else (lambda shape: ())
        want = extents(entry["shape"])
        # (shape, strides) -> (bytes from the first element back to the
        # aligned pointer, offset, strides) of the arrays checked already.
        taken = {}

        def pack_memref(value, host, keep, ask):
            hosts = None
            if dtypes and getattr(value, "dtype", None) is dtypes[0] and value.is_cuda:
                pointer, shape, strides = value.data_ptr(), value.shape, value.stride()
                device = value.get_device() if ask else None
                # The fast path: PyTorch's contiguity is packed rows but for
                # dims of extent 0 or 1, whose strides the descriptor gets packed;
                # an aligned base (else descriptor_fields says why not).
                if (identity and not pointer % alignment and value.is_contiguous()
                        and len(shape) == rank and extents(shape) == want):
                    if 1 in shape or 0 in shape:
                        strides = packed_strides(shape)
                    pack_into(data, offset, pointer, pointer, 0, *shape, *strides)
                    return device
            else:
                hosts = len(host)
                pointer, shape, strides, device = array_view(value, element, host, keep)
            key = (shape, strides)
            found = taken.get(key)
            # A known layout needs the aligned pointer's alignment checked
            # only (the first element's, but for a static offset).
            if found is None or (pointer - found[0]) % alignment:
                aligned, start, passed = descriptor_fields(entry, pointer, shape, strides,
                                                           itemsize, where)
                if len(taken) >= 1024:
                    taken.clear()
                found = taken[key] = (pointer - aligned, start, passed)
            aligned = pointer - found[0]
            pack_into(data, offset, aligned, aligned, found[1], *shape, *found[2])
            if hosts is not None:  # checked before the driver is asked
                if device is None and len(host) == hosts:  # a CUDA array interface
                    device = runtime.pointer_device(pointer)
                if hasattr(value, "data_ptr") and not dtypes:
                    dtypes.append(torch_dtype(element))
            return device
        return pack_memref

    tensor_map = _TensorMapParam(entry, contract, runtime, where)
    maps, end = tensor_map.maps, offset + tensor_map.bytes
    written = [None]  # the key of the map in the slot now

    def pack_tensor_map(value, host, keep, ask):
        # A torch tensor's map by (address, shape, strides, dtype): a hit
        # needs no other check, a miss validates and encodes.
        try:
            key = (value.data_ptr(), value.shape, value.stride(), value.dtype)
        except AttributeError:
            key = None
        if key is None or key not in maps:
            pointer, shape, strides, device = array_view(value, element, None, keep)
            encoded = tensor_map.encode(pointer, tuple(shape), tuple(strides))
            if device is None:  # a CUDA array interface: ask the driver
                device = runtime.pointer_device(pointer)
            if key is not None and getattr(value, "is_cuda", False):
                maps[key] = encoded
            else:
                key = None
        else:
            encoded = maps[key]
            device = value.get_device() if ask else None
        if key is None or key != written[0]:
            data[offset:end] = encoded
            written[0] = key
        return device
    return pack_tensor_map


def _describe(entry: dict) -> str:
    """A manifest parameter in MLIR-like words, for messages."""
    if entry["kind"] == "memref":
        return describe_memref(entry)
    if entry["kind"] == "tensor_map":
        return f"!tile.tma_desc<{entry['element']}, box = {entry['box']}>"
    return entry["type"]

