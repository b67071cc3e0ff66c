"""Building tile IR from Python.

A small builder in the spirit of MLIR's NVDSL: values are SSA names with
their types, index arithmetic uses Python operators, regions are `with`
blocks, and the result is IR text that `tile.compile` lowers (so every
builder program also reproduces with tile-opt). Example (the Ampere hgemm's
main loop, `python/examples/hgemm.py` has the whole kernel):

    module = Module()
    with module.kernel("scale", a=memref("?", "f32"), n="index", block=(128, 1, 1)) as k:
        i = k.block_id() * 128 + k.thread_id()
        with k.if_(i.lt(k.arg("n"))):
            k.store(k.load(k.arg("a"), [i]) * 2.0, k.arg("a"), [i])
    compiled = module.compile(chip="sm_90a")
"""
import contextlib
from typing import Dict, List, Optional, Sequence, Tuple

from .compiler import CompiledModule, compile as compile_ir


def memref(shape: str, dtype: str, space: Optional[int] = None) -> str:
    """`memref<shape x dtype[, space]>`, shape as "?x64" (empty for rank 0)."""
    body = f"{shape}x{dtype}" if shape else dtype
    return f"memref<{body}, {space}>" if space is not None else f"memref<{body}>"


def tma_desc(tensor: str, box: Sequence[int], swizzle: str = "none") -> str:
    """`!tile.tma_desc<tensor, box = [...], swizzle = ...>` (tensor a memref type)."""
    return (f"!tile.tma_desc<{tensor}, box = [{', '.join(map(str, box))}]"
            + (f", swizzle = {swizzle}>" if swizzle != "none" else ">"))


def mbarrier(count: int = 1, scope: Optional[str] = None) -> str:
    """`!tile.mbarrier<count = N[, scope = cluster]>`."""
    parts = ([f"count = {count}"] if count != 1 else []) + ([f"scope = {scope}"] if scope else [])
    return f"!tile.mbarrier<{', '.join(parts)}>" if parts else "!tile.mbarrier"


def layout(text: str) -> str:
    """A CuTe layout attribute, e.g. layout("(32,4):(4,1)")."""
    return f"#tile.layout<{text}>"


class Value:
    """An SSA value of the builder's kernel: its name and type. Index and
    integer values combine with Python operators (ints become constants);
    floats with +, -, * (arith.addf/subf/mulf)."""

    def __init__(self, builder: "KernelBuilder", name: str, type_: str):
        self.builder, self.name, self.type = builder, name, type_

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Value({self.name} : {self.type})"

    def _binary(self, other, integer_op: str, float_op: Optional[str] = None) -> "Value":
        other = self.builder.coerce(other, self.type)
        is_float = self.type.startswith(("f", "bf"))
        op = float_op if is_float else integer_op
        if op is None:
            raise TypeError(f"no {integer_op} on {self.type}")
        return self.builder.op(f"arith.{op} {self}, {other} : {self.type}", self.type)

    def __add__(self, other): return self._binary(other, "addi", "addf")
    def __radd__(self, other): return self.builder.coerce(other, self.type) + self
    def __sub__(self, other): return self._binary(other, "subi", "subf")
    def __mul__(self, other): return self._binary(other, "muli", "mulf")
    def __rmul__(self, other): return self.builder.coerce(other, self.type) * self
    def __floordiv__(self, other): return self._binary(other, "divui")
    def __mod__(self, other): return self._binary(other, "remui")
    def __and__(self, other): return self._binary(other, "andi")
    def __xor__(self, other): return self._binary(other, "xori")

    def _compare(self, predicate: str, other) -> "Value":
        other = self.builder.coerce(other, self.type)
        return self.builder.op(f"arith.cmpi {predicate}, {self}, {other} : {self.type}", "i1")

    def lt(self, other): return self._compare("ult", other)
    def le(self, other): return self._compare("ule", other)
    def eq(self, other): return self._compare("eq", other)
    def ne(self, other): return self._compare("ne", other)
    def gt(self, other): return self._compare("ugt", other)

    def min(self, other): return self._binary(other, "minui")


class _Loop:
    """An scf.for being built: `with loop as (iv, *carried)`, then
    `loop.yield_(...)` inside; `loop.results` after."""

    def __init__(self, builder, lower, upper, step, init, attributes):
        self.builder = builder
        self.bounds = [builder.coerce(v, "index") for v in (lower, upper, step)]
        self.init = list(init)
        self.attributes = attributes
        self.results: List[Value] = []
        self._yielded = not self.init

    def __enter__(self):
        b = self.builder
        iv = Value(b, b.fresh("i"), "index")
        carried = [Value(b, b.fresh("arg"), v.type) for v in self.init]
        lower, upper, step = self.bounds
        head = f"scf.for {iv} = {lower} to {upper} step {step}"
        if self.init:
            name = b.fresh("loop")
            self.results = [Value(b, f"{name}#{i}" if len(self.init) > 1 else name, v.type)
                            for i, v in enumerate(self.init)]
            pairs = ", ".join(f"{c} = {v}" for c, v in zip(carried, self.init))
            types = ", ".join(v.type for v in self.init)
            prefix = f"{name}:{len(self.init)}" if len(self.init) > 1 else name
            b.emit(f"{prefix} = {head} iter_args({pairs}) -> ({types}) {{")
        else:
            b.emit(f"{head} {{")
        b.open_region()
        return (iv, *carried)

    def yield_(self, *values):
        values = [self.builder.coerce(v, i.type) for v, i in zip(values, self.init)]
        self.builder.emit(f"scf.yield {', '.join(map(str, values))} : "
                          f"{', '.join(v.type for v in values)}")
        self._yielded = True

    def __exit__(self, kind, error, trace):
        if kind is not None:
            return False
        if not self._yielded:
            raise ValueError("a loop with iter_args must end with loop.yield_(...)")
        self.builder.close_region()
        attributes = " {" + ", ".join(f"{k} = {v}" for k, v in self.attributes.items()) + "}" \
            if self.attributes else ""
        self.builder.emit("}" + attributes)
        return False


class KernelBuilder:
    """The body of one gpu.func kernel: emits ops, names values."""

    def __init__(self, name: str, arguments: Dict[str, str], block: Sequence[int]):
        self.name, self.block = name, tuple(block)
        self.arguments = {k: Value(self, f"%{k}", t) for k, t in arguments.items()}
        self.lines: List[str] = []
        self.depth = 3
        self._counter = 0
        # Constants by (text, type), one dict per open region: a constant is
        # reused wherever it is in scope (and ops comparing operands, such
        # as the pipeliner's barrier check, see one value).
        self._constants: List[Dict[Tuple[str, str], Value]] = [{}]

    # Plumbing.
    def fresh(self, prefix: str = "v") -> str:
        self._counter += 1
        return f"%{prefix}{self._counter}"

    def emit(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def op(self, text: str, type_: Optional[str] = None, prefix: str = "v") -> Optional[Value]:
        """Emits `text` (an op with its types); with `type_`, as the
        definition of a new value of that type."""
        if type_ is None:
            self.emit(text)
            return None
        value = Value(self, self.fresh(prefix), type_)
        self.emit(f"{value} = {text}")
        return value

    def coerce(self, value, type_: str) -> Value:
        if isinstance(value, Value):
            return value
        if isinstance(value, bool) or type_ == "i1":
            text, type_ = f"arith.constant {'true' if value else 'false'}", "i1"
        elif isinstance(value, float) or type_.startswith(("f", "bf")):
            text = f"arith.constant {float(value)!r} : {type_}"
        else:
            text = f"arith.constant {int(value)} : {type_}"
        for scope in reversed(self._constants):
            if (text, type_) in scope:
                return scope[(text, type_)]
        constant = self.op(text, type_, "c")
        self._constants[-1][(text, type_)] = constant
        return constant

    def open_region(self) -> None:
        self.depth += 1
        self._constants.append({})

    def close_region(self) -> None:
        self.depth -= 1
        self._constants.pop()

    def arg(self, name: str) -> Value:
        return self.arguments[name]

    def select(self, condition: Value, if_true, if_false) -> Value:
        """arith.select of two values of one type (ints become index constants)."""
        type_ = if_true.type if isinstance(if_true, Value) else getattr(if_false, "type", "index")
        a, b = self.coerce(if_true, type_), self.coerce(if_false, type_)
        return self.op(f"arith.select {condition}, {a}, {b} : {type_}", type_)

    def const(self, value, type_: str = "index") -> Value:
        return self.coerce(value, type_)

    def zeros(self, vector_type: str) -> Value:
        """A dense zero vector, e.g. zeros("vector<4x8x2x2xf32>")."""
        return self.op(f"arith.constant dense<0.0> : {vector_type}", vector_type, "zero")

    # GPU.
    def thread_id(self, dim: str = "x") -> Value:
        return self.op(f"gpu.thread_id {dim}", "index", "tid")

    def block_id(self, dim: str = "x") -> Value:
        return self.op(f"gpu.block_id {dim}", "index", "bid")

    def barrier(self) -> None:
        self.op("gpu.barrier")

    def reduce(self, kind: str, value: Value, over: str = "warp",
               lanes: Optional[int] = None) -> Value:
        """tile.reduce: the `kind` (add, maximumf, maxsi, ...) reduction of a
        scalar f32/i32 `value` over the warp (each group of `lanes`
        consecutive lanes), the warpgroup or the block; every thread of the
        scope gets the result."""
        group = f", lanes {lanes}" if lanes is not None else ""  # the verifier checks it
        return self.op(f"tile.reduce {kind} {value} over {over}{group} : {value.type}",
                       value.type, "red")

    def dim(self, memref_value: Value, index: int) -> Value:
        return self.op(f"memref.dim {memref_value}, {self.const(index)} : {memref_value.type}",
                       "index", "dim")

    def load(self, memref_value: Value, indices: Sequence) -> Value:
        element = memref_value.type.split("x")[-1].split(",")[0].rstrip(">")
        idx = ", ".join(str(self.coerce(i, "index")) for i in indices)
        return self.op(f"memref.load {memref_value}[{idx}] : {memref_value.type}", element)

    def store(self, value, memref_value: Value, indices: Sequence) -> None:
        idx = ", ".join(str(self.coerce(i, "index")) for i in indices)
        self.op(f"memref.store {value}, {memref_value}[{idx}] : {memref_value.type}")

    # Regions.
    def loop(self, lower, upper, step=1, init: Sequence[Value] = (),
             pipeline_stages: Optional[int] = None) -> _Loop:
        """scf.for; `pipeline_stages` marks it for tile-pipeline-async-copies."""
        attributes = {"tile.pipeline_stages": f"{pipeline_stages} : i64"} \
            if pipeline_stages else {}
        return _Loop(self, lower, upper, step, init, attributes)

    @contextlib.contextmanager
    def if_(self, condition: Value):
        self.emit(f"scf.if {condition} {{")
        self.open_region()
        yield
        self.close_region()
        self.emit("}")

    # Tile ops.
    def shared(self, shape: Sequence[int], dtype: str, swizzle: Optional[str] = None,
               dynamic: bool = False) -> Value:
        """tile.shared_alloc of a shared (address space 3) buffer; swizzle as
        "b128" or "3, 4, 4"."""
        type_ = memref("x".join(map(str, shape)), dtype, 3)
        attributes = f" {{swizzle = #tile.swizzle<{swizzle}>}}" if swizzle else ""
        return self.op(f"tile.shared_alloc{' dynamic' if dynamic else ''}{attributes} : {type_}",
                       type_, "smem")

    def copy(self, src: Value, src_indices: Sequence, dst: Value, dst_indices: Sequence,
             threads: str, values: str, bounds: Optional[Sequence] = None) -> None:
        """tile.copy (global <-> shared) with CuTe thread and value layouts."""
        def at(v, idx):
            return f"{v}[{', '.join(str(self.coerce(i, 'index')) for i in idx)}]" if idx else f"{v}"
        bound = f" bounds [{', '.join(str(self.coerce(b, 'index')) for b in bounds)}]" \
            if bounds else ""
        self.op(f"tile.copy {at(src, src_indices)} to {at(dst, dst_indices)}{bound} "
                f"{{threads = {layout(threads)}, values = {layout(values)}}} "
                f": {src.type} to {dst.type}")

    def commit_group(self) -> Value:
        return self.op("tile.async_commit_group", "!tile.async_group", "g")

    def wait_group(self, pending: int) -> None:
        self.op(f"tile.async_wait_group {pending}")

    def mma(self, a: Value, b: Value, acc: Value, warps: Tuple[int, int],
            transpose_b: bool = False) -> Value:
        """tile.mma (mma.sync m16n8k16 over the tiles)."""
        attributes = f"warps = array<i64: {warps[0]}, {warps[1]}>" + (", transpose_b"
                                                                     if transpose_b else "")
        return self.op(f"tile.mma {a}, {b}, {acc} {{{attributes}}} : "
                       f"{a.type}, {b.type}, {acc.type}", acc.type, "acc")

    def mma_store(self, acc: Value, dst: Value, indices: Sequence, warps: Tuple[int, int],
                  bounds: Optional[Sequence] = None) -> None:
        idx = ", ".join(str(self.coerce(i, "index")) for i in indices)
        bound = f" bounds [{', '.join(str(self.coerce(b, 'index')) for b in bounds)}]" \
            if bounds else ""
        self.op(f"tile.mma_store {acc}, {dst}[{idx}]{bound} "
                f"{{warps = array<i64: {warps[0]}, {warps[1]}>}} : {acc.type}, {dst.type}")

    def index_cast(self, value: Value, type_: str) -> Value:
        return self.op(f"arith.index_cast {value} : {value.type} to {type_}", type_)

    # mbarriers and TMA.
    def mbarriers(self, count: int = 1, scope: Optional[str] = None) -> Value:
        """tile.mbarrier_alloc of a group of `count` barriers."""
        type_ = mbarrier(count, scope)
        return self.op(f"tile.mbarrier_alloc : {type_}", type_, "bars")

    def mbarrier_init(self, bars: Value, index, count: int) -> None:
        self.op(f"tile.mbarrier_init {bars}[{self.coerce(index, 'index')}], "
                f"{self.coerce(count, 'i32')} : {bars.type}")

    def mbarrier_arrive(self, bars: Value, index) -> Value:
        return self.op(f"tile.mbarrier_arrive {bars}[{self.coerce(index, 'index')}] : "
                       f"{bars.type} -> !tile.mbarrier_token", "!tile.mbarrier_token", "tok")

    def wait_parity(self, bars: Value, index, parity) -> None:
        """tile.mbarrier_wait_parity (parity an i1 value or a bool)."""
        self.op(f"tile.mbarrier_wait_parity {bars}[{self.coerce(index, 'index')}], "
                f"{self.coerce(parity, 'i1')} : {bars.type}")

    def tma_copy(self, desc: Value, coordinates: Sequence, dst: Value, dst_indices: Sequence,
                 bars: Value, index) -> None:
        """tile.tma_copy: thread 0 announces the box bytes on bars[index]
        and starts the TMA load of the box at `coordinates` into dst."""
        coords = ", ".join(str(self.coerce(c, "index")) for c in coordinates)
        at = (f"{dst}[{', '.join(str(self.coerce(i, 'index')) for i in dst_indices)}]"
              if dst_indices else f"{dst}")
        self.op(f"tile.tma_copy {desc}[{coords}] to {at}, {bars}[{self.coerce(index, 'index')}] "
                f": {desc.type}, {dst.type}, {bars.type}")

    def arrive_expect_tx(self, bars: Value, index, bytes_: int) -> Value:
        """tile.mbarrier_arrive_expect_tx: arrive and expect `bytes_` of transactions."""
        return self.op(f"tile.mbarrier_arrive_expect_tx {bars}[{self.coerce(index, 'index')}], "
                       f"{self.coerce(bytes_, 'i32')} : {bars.type} -> !tile.mbarrier_token",
                       "!tile.mbarrier_token", "tok")

    def tma_load(self, desc: Value, coordinates: Sequence, dst: Value, bars: Value,
                 index) -> None:
        """tile.tma_load issued by the calling thread (see tma_copy for the
        block-level form)."""
        coords = ", ".join(str(self.coerce(c, "index")) for c in coordinates)
        self.op(f"tile.tma_load {desc}[{coords}] to {dst}, {bars}[{self.coerce(index, 'index')}]"
                f" : {desc.type}, {dst.type}, {bars.type}")

    def fence_proxy_async(self) -> None:
        """Generic shared-memory writes become visible to the async proxy."""
        self.op("tile.fence_proxy_async shared_cta")

    def bulk_copy_to_global(self, src: Value, dst: Value, bytes_: int) -> None:
        """tile.bulk_copy_shared_to_global of `bytes_` raw bytes (no swizzle)
        from the start of `src` to the start of `dst`; commit and wait with
        bulk_commit / bulk_wait."""
        zeros = ", ".join([str(self.const(0))] * len(src.type.split("x")[:-1]))
        self.op(f"tile.bulk_copy_shared_to_global {src}[{zeros}] to {dst}[{self.const(0)}], "
                f"{self.coerce(bytes_, 'i32')} : {src.type} to {dst.type}")

    def bulk_commit(self) -> None:
        self.op("tile.bulk_commit_group")

    # Hopper warpgroups.
    def warpgroup_mma(self, a: Value, a_indices: Sequence, b: Value, b_indices: Sequence,
                      acc: Value, shape: Tuple[int, int, int], wait: int = 1,
                      transpose_b: bool = False) -> Value:
        """tile.warpgroup_mma (wgmma m64nNk16 over the K tile)."""
        ai = ", ".join(str(self.coerce(i, "index")) for i in a_indices)
        bi = ", ".join(str(self.coerce(i, "index")) for i in b_indices)
        attributes = (f"shape = array<i64: {', '.join(map(str, shape))}>, wait = {wait} : i32"
                      + (", transpose_b" if transpose_b else ""))
        return self.op(f"tile.warpgroup_mma {a}[{ai}], {b}[{bi}], {acc} {{{attributes}}} : "
                       f"{a.type}, {b.type}, {acc.type}", acc.type, "acc")

    def wgmma_wait(self, pending: int) -> None:
        self.op(f"tile.wgmma_wait_group {pending}")

    def warpgroup_tma_store(self, acc: Value, staging: Value, indices: Sequence, desc: Value,
                            coordinates: Sequence, shape: Tuple[int, int]) -> None:
        """tile.warpgroup_tma_store: the epilogue through `staging` and TMA."""
        idx = (f"[{', '.join(str(self.coerce(i, 'index')) for i in indices)}]"
               if indices else "")
        coords = ", ".join(str(self.coerce(c, "index")) for c in coordinates)
        self.op(f"tile.warpgroup_tma_store {acc}, {staging}{idx} to {desc}[{coords}] "
                f"{{shape = array<i64: {shape[0]}, {shape[1]}>}} : {acc.type}, {staging.type}, "
                f"{desc.type}")

    def bulk_wait(self, pending: int, read: bool = False) -> None:
        self.op(f"tile.bulk_wait_group {pending}{' read' if read else ''}")

    @contextlib.contextmanager
    def producer(self, registers: int):
        """The producer region of a tile.warp_specialize; must be followed
        by `consumers`."""
        self.emit(f"tile.warp_specialize producer(registers = {registers}) {{")
        self.open_region()
        yield
        self.close_region()

    @contextlib.contextmanager
    def consumers(self, count: int, registers: int):
        """The consumer region (after `producer`); yields the consumer
        warpgroup's index."""
        warpgroup = Value(self, self.fresh("wg"), "index")
        self.emit(f"}} consumers({count}, registers = {registers}) {{")
        self.emit(f"^bb0({warpgroup}: index):")
        self.open_region()
        yield warpgroup
        self.close_region()
        self.emit("}")

    def text(self) -> str:
        args = ", ".join(f"{v}: {v.type}" for v in self.arguments.values())
        block = ", ".join(map(str, self.block))
        return "\n".join(
            [f"    gpu.func @{self.name}({args}) kernel",
             f"        attributes {{known_block_size = array<i32: {block}>}} {{"]
            + self.lines + ["      gpu.return", "    }"])


class Module:
    """A module of kernels built in Python."""

    def __init__(self):
        self.kernels: List[KernelBuilder] = []

    @contextlib.contextmanager
    def kernel(self, name: str, block: Sequence[int] = (128, 1, 1), **arguments: str):
        """A gpu.func kernel with the given (name=type) arguments; the block
        size becomes its known_block_size."""
        builder = KernelBuilder(name, arguments, block)
        yield builder
        self.kernels.append(builder)

    def text(self) -> str:
        body = "\n\n".join(k.text() for k in self.kernels)
        return ("module attributes {gpu.container_module} {\n  gpu.module @kernels {\n"
                f"{body}\n  }}\n}}\n")

    def compile(self, **options) -> CompiledModule:
        """tile.compile of the module's IR (same keyword arguments)."""
        return compile_ir(self.text(), **options)
