"""tile.reduce over warps, warpgroups and blocks against PyTorch (GPU), and
the same kernels compiled to PTX and assembled by ptxas (CPU)."""
import os
import re
import shutil
import subprocess

import pytest

import tile

# Each thread loads x[i] (i: the block's offset plus the thread's linear id
# tx + dx (ty + dy tz)), reduces it over the scope and stores the result at
# y[i]: every thread's copy of the result is checked.
_INDEX = """
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %tz = gpu.thread_id z
    %dx = gpu.block_dim x
    %dy = gpu.block_dim y
    %dz = gpu.block_dim z
    %bid = gpu.block_id x
    %p = arith.muli %dy, %tz : index
    %q = arith.addi %ty, %p : index
    %r = arith.muli %dx, %q : index
    %t = arith.addi %tx, %r : index
    %n0 = arith.muli %dx, %dy : index
    %n = arith.muli %n0, %dz : index
    %base = arith.muli %bid, %n : index
    %i = arith.addi %base, %t : index
"""


def _attrs(block):
    """known_block_size, or none (the lowering then counts warps at run time)."""
    if block is None:
        return ""
    return f" attributes {{known_block_size = array<i32: {block[0]}, {block[1]}, {block[2]}>}}"


def reduce_kernel(kind, scope, type_, block, lanes=None):
    """A kernel @k(%x, %y) with y[i] = tile.reduce(kind, x[i]) over scope."""
    lanes_text = f", lanes {lanes}" if lanes else ""
    return f"""
gpu.module @m {{
  gpu.func @k(%x: memref<?x{type_}>, %y: memref<?x{type_}>) kernel{_attrs(block)} {{
{_INDEX}
    %v = memref.load %x[%i] : memref<?x{type_}>
    %s = tile.reduce {kind} %v over {scope}{lanes_text} : {type_}
    memref.store %s, %y[%i] : memref<?x{type_}>
    gpu.return
  }}
}}
"""


def loop_kernel(scope, block, iters, second_scope=None):
    """A kernel @k(%x, %sum, %max) reducing `iters` slices of x in a loop,
    two reductions an iteration (add, then maximumf over `second_scope`,
    default `scope`): each reuses the scratch of the one before it."""
    second = second_scope or scope
    return f"""
gpu.module @m {{
  gpu.func @k(%x: memref<?xf32>, %sum: memref<?xf32>, %max: memref<?xf32>) kernel{_attrs(block)} {{
{_INDEX}
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %iters = arith.constant {iters} : index
    %gx = gpu.grid_dim x
    %total = arith.muli %gx, %n : index
    scf.for %it = %c0 to %iters step %c1 {{
      %off = arith.muli %it, %total : index
      %j = arith.addi %off, %i : index
      %v = memref.load %x[%j] : memref<?xf32>
      %s = tile.reduce add %v over {scope} : f32
      %m = tile.reduce maximumf %v over {second} : f32
      memref.store %s, %sum[%j] : memref<?xf32>
      memref.store %m, %max[%j] : memref<?xf32>
    }}
    gpu.return
  }}
}}
"""


def _threads(block):
    return block[0] * block[1] * block[2]


# (scope, lanes, block shape, known_block_size given): warps of a 64-thread
# block and quads; two warpgroups; blocks of 1, 3, 5, 8 and 32 warps, a
# 2-D block and one whose size is only known at run time.
CASES = [
    ("warp", None, (64, 1, 1), True),
    ("warp", 4, (64, 1, 1), True),
    ("warpgroup", None, (256, 1, 1), True),
    ("block", None, (256, 1, 1), True),
    ("block", None, (96, 1, 1), True),
    ("block", None, (160, 1, 1), True),
    ("block", None, (32, 1, 1), True),
    ("block", None, (1024, 1, 1), True),
    ("block", None, (32, 3, 1), True),
    ("block", None, (160, 1, 1), False),
]
KINDS = [("add", "f32"), ("maximumf", "f32"), ("maxnumf", "f32"), ("minimumf", "f32"),
         ("maxsi", "i32"), ("add", "i32")]


def _case_id(case):
    scope, lanes, block, known = case
    name = f"{scope}{'-lanes' + str(lanes) if lanes else ''}-{'x'.join(map(str, block))}"
    return name + ("" if known else "-dynamic")


def _group(scope, lanes, block):
    """Threads whose values one result combines."""
    if scope == "warp":
        return lanes or 32
    if scope == "warpgroup":
        return 128
    return _threads(block)


def _reference(torch, x, kind, group):
    """The reduction of each group of `group` consecutive elements of x, one
    per element (what every thread of the group must hold)."""
    g = x.view(-1, group)
    if kind == "add" and x.dtype == torch.int32:
        r = g.long().sum(dim=1)
        r = ((r + 2**31) % 2**32 - 2**31).int()  # two's complement wrap, as add.s32
    elif kind == "add":
        r = g.double().sum(dim=1).float()
    elif kind in ("maximumf", "maxsi"):
        r = g.amax(dim=1)  # propagates NaN, like maximumf
    elif kind == "maxnumf":
        # NaN ignored unless the whole group is NaN.
        r = torch.where(g.isnan(), torch.full_like(g, float("-inf")), g).amax(dim=1)
        r = torch.where(g.isnan().all(dim=1), torch.full_like(r, float("nan")), r)
    elif kind == "minimumf":
        r = g.amin(dim=1)
    else:
        raise AssertionError(kind)
    return r.repeat_interleave(group)


def _inputs(torch, type_, count):
    if type_ == "i32":
        return torch.randint(-2**31, 2**31 - 1, (count,), device="cuda", dtype=torch.int32)
    x = torch.randn(count, device="cuda", dtype=torch.float32)
    return x


def _assert_matches(torch, out, x, kind, group):
    want = _reference(torch, x, kind, group)
    if kind == "add" and out.dtype == torch.float32:
        # Another summation order: within a few ulps of the group's size.
        scale = x.view(-1, group).abs().sum(dim=1).repeat_interleave(group)
        assert ((out - want).abs() <= 1e-6 * scale + 1e-6).all()
    else:
        ok = out == want
        if out.is_floating_point():
            ok |= out.isnan() & want.isnan()
        assert ok.all(), (out[~ok][:8], want[~ok][:8])
    # Every thread of a group holds the same bits.
    bits = out.view(torch.int32).view(-1, group)
    assert torch.equal(bits, bits[:, :1].expand_as(bits))


@pytest.mark.parametrize("kind, type_", KINDS, ids=[f"{k}-{t}" for k, t in KINDS])
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_reduce_matches_torch(torch_cuda, case, kind, type_):
    torch = torch_cuda
    scope, lanes, block, known = case
    module = tile.compile(reduce_kernel(kind, scope, type_, block if known else None, lanes),
                          chip="sm_80" if scope == "warp" and lanes else "sm_90a")
    kernel = module.kernel("k")
    blocks = 7
    count = blocks * _threads(block)
    x = _inputs(torch, type_, count)
    if type_ == "f32" and kind != "add":
        x[5] = float("nan")           # one NaN in the first group
        x[-_group(scope, lanes, block):] = float("nan")  # a group of NaNs only
    y = torch.zeros_like(x)
    kernel(x, y, grid=(blocks, 1, 1), block=block, synchronize=True)
    _assert_matches(torch, y, x, kind, _group(scope, lanes, block))


LOOPS = [("warp", (96, 1, 1), None), ("warpgroup", (384, 1, 1), None),
         ("block", (160, 1, 1), None), ("block", (256, 1, 1), None),
         ("block", (256, 1, 1), "warpgroup"), ("warpgroup", (256, 1, 1), "block")]


@pytest.mark.parametrize("scope, block, second", LOOPS,
                         ids=[f"{s}-{b[0]}-{t or s}" for s, b, t in LOOPS])
def test_reduce_in_a_loop(torch_cuda, scope, block, second):
    """Reductions one after another reuse their scratch (and a warpgroup's
    follows a block's): each result must still be its own slice's."""
    torch = torch_cuda
    iters, blocks = 5, 3
    kernel = tile.compile(loop_kernel(scope, block, iters, second)).kernel("k")
    total = blocks * _threads(block)
    x = torch.randn(iters * total, device="cuda", dtype=torch.float32)
    sums, maxes = torch.zeros_like(x), torch.zeros_like(x)
    kernel(x, sums, maxes, grid=(blocks, 1, 1), block=block, synchronize=True)
    _assert_matches(torch, sums, x, "add", _group(scope, None, block))
    _assert_matches(torch, maxes, x, "maximumf", _group(second or scope, None, block))


def _ptxas():
    for candidate in (os.environ.get("TILE_PTXAS"), shutil.which("ptxas"),
                      os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")):
        if candidate and os.path.isfile(candidate):
            return candidate
    return None


def _assemble(ptx, chip, tmp_path):
    ptxas = _ptxas()
    if ptxas is None:
        return
    source = tmp_path / "k.ptx"
    source.write_text(ptx)
    subprocess.run([ptxas, f"-arch={chip}", str(source), "-o", str(tmp_path / "k.cubin")],
                   check=True, capture_output=True, text=True)


@pytest.mark.parametrize("kind, type_", KINDS, ids=[f"{k}-{t}" for k, t in KINDS])
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_reduce_kernels_compile(case, kind, type_, tmp_path):
    """Without a GPU: the kernels the GPU tests launch lower to PTX that
    ptxas assembles (when there is a ptxas), with the expected instructions."""
    scope, lanes, block, known = case
    chip = "sm_80" if scope == "warp" and lanes else "sm_90a"
    module = tile.compile(reduce_kernel(kind, scope, type_, block if known else None, lanes),
                          chip=chip)
    single_warp = scope == "block" and known and _threads(block) == 32
    if type_ == "i32" and kind == "add" and (scope != "warp" or not lanes):
        assert "redux.sync.add.s32" in module.ptx
    elif type_ == "i32" and kind == "maxsi" and not lanes:
        assert "redux.sync.max.s32" in module.ptx
    else:
        assert "shfl.sync.bfly.b32" in module.ptx
    if scope == "block" and not single_warp:
        assert re.search(r"\bbar(rier)?\.sync\s+0;", module.ptx)
    if scope == "warpgroup":
        assert re.search(r"\bbar(rier)?\.sync\s+%r\d+, 128;", module.ptx)  # 1 + w, 128
    _assemble(module.ptx, chip, tmp_path)


@pytest.mark.parametrize("scope, block, second", LOOPS,
                         ids=[f"{s}-{b[0]}-{t or s}" for s, b, t in LOOPS])
def test_loop_kernels_compile(scope, block, second, tmp_path):
    module = tile.compile(loop_kernel(scope, block, 5, second))
    _assemble(module.ptx, "sm_90a", tmp_path)


def row_sum_module():
    """One block a row (128 columns, one a thread): each thread gets the sum
    of its row's squares (RMSNorm's reduction), from tile.builder."""
    from tile.builder import Module, memref
    module = Module()
    with module.kernel("row_sq_sum", x=memref("?", "f32"), y=memref("?", "f32"),
                       block=(128, 1, 1)) as k:
        i = k.block_id() * 128 + k.thread_id()
        v = k.load(k.arg("x"), [i])
        k.store(k.reduce("add", v * v, over="block"), k.arg("y"), [i])
    return module


def test_builder_reduce_compiles(tmp_path):
    module = row_sum_module()
    assert "tile.reduce add" in module.text() and "over block : f32" in module.text()
    compiled = module.compile()
    assert "shfl.sync.bfly.b32" in compiled.ptx
    _assemble(compiled.ptx, "sm_90a", tmp_path)


def test_builder_reduce_matches_torch(torch_cuda):
    torch = torch_cuda
    kernel = row_sum_module().compile().kernel("row_sq_sum")
    x = torch.randn(9 * 128, device="cuda", dtype=torch.float32)
    y = torch.zeros_like(x)
    kernel(x, y, grid=(9, 1, 1), synchronize=True)
    want = (x.double() ** 2).view(9, 128).sum(dim=1).float().repeat_interleave(128)
    assert ((y - want).abs() <= 1e-5 * want.abs() + 1e-6).all()
