"""Building tile IR in Python (tile.builder)."""
import sys
from pathlib import Path

import pytest

import tile
from tile.builder import Module, memref
from tile.testing import relative_error

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import hgemm  # noqa: E402
import hopper_gemm  # noqa: E402
import pipeline  # noqa: E402
import swizzle  # noqa: E402


def scale_module() -> Module:
    module = Module()
    with module.kernel("scale", a=memref("?", "f32"), n="index", block=(128, 1, 1)) as k:
        i = k.block_id() * 128 + k.thread_id()
        with k.if_(i.lt(k.arg("n"))):
            k.store(k.load(k.arg("a"), [i]) * 2.0, k.arg("a"), [i])
    return module


def test_values_and_regions_become_ir():
    text = scale_module().text()
    assert "gpu.func @scale(%a: memref<?xf32>, %n: index) kernel" in text
    assert "known_block_size = array<i32: 128, 1, 1>" in text
    assert "arith.cmpi ult" in text and "scf.if" in text
    assert "arith.mulf" in text and "arith.constant 2.0 : f32" in text


def test_scale_compiles():
    compiled = scale_module().compile(chip="sm_80")
    assert compiled.kernels == ["scale"]
    # a * 2.0 (LLVM makes it a + a), loaded and stored under the bound.
    for instruction in ("setp.", "ld.global.b32", "add.rn.f32", "st.global.b32"):
        assert instruction in compiled.ptx, instruction


def test_hgemm_built_in_python_compiles_to_the_pipelined_kernel():
    module = hgemm.build()
    text = module.text()
    assert "{tile.pipeline_stages = 3 : i64}" in text
    compiled = module.compile(chip="sm_80")
    assert compiled.kernels == ["hgemm"]
    for instruction in ("cp.async.cg.shared.global", "ldmatrix.sync.aligned.m8n8.x4.trans",
                        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "st.global.v4.b32"):
        assert instruction in compiled.ptx, instruction


def test_builder_errors_point_into_the_generated_ir():
    module = Module()
    with module.kernel("bad", a=memref("?x?", "f16"), block=(128, 1, 1)) as k:
        s = k.shared([32, 128], "f16")
        k.copy(k.arg("a"), [0, 0], s, [], threads="(2,64):(64,1)", values="(1,8)")
    with pytest.raises(tile.CompileError) as failure:
        module.compile()
    [error] = failure.value.diagnostics
    assert "is not a whole number of 2x512 tilers (T-TILE-1)" in error.message
    assert module.text().splitlines()[error.line - 1].strip().startswith("tile.copy")


def test_loop_with_carried_values_must_yield():
    module = Module()
    with pytest.raises(ValueError, match="must end with loop.yield_"):
        with module.kernel("k", block=(32, 1, 1)) as k:
            loop = k.loop(0, 4, 1, init=[k.const(0)])
            with loop as (i, total):
                pass


def test_scale_runs(torch_cuda):
    torch = torch_cuda
    kernel = scale_module().compile(chip="sm_80").kernel("scale")
    a = torch.arange(1000, device="cuda", dtype=torch.float32)
    kernel(a, 1000, grid=(8, 1, 1), block=(128, 1, 1))
    assert torch.equal(a, 2 * torch.arange(1000, device="cuda", dtype=torch.float32))


@pytest.mark.parametrize("shape", [(256, 384, 320), (200, 296, 200)])
def test_hgemm_built_in_python_matches_torch(torch_cuda, shape):
    torch = torch_cuda
    m, n, k = shape
    kernel = hgemm.build().compile(chip="sm_80").kernel("hgemm")
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    kernel(a, b, c, grid=(-(-n // 128), -(-m // 128), 1), block=(128, 1, 1), shared=32768)
    want = a @ b
    assert not c.isnan().any()
    assert relative_error(c, want) < 2e-3


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_pipeline_built_in_python_becomes_a_tma_ring(stages):
    module = pipeline.build(stages)
    assert f"{{tile.pipeline_stages = {stages} : i64}}" in module.text()
    compiled = module.compile(chip="sm_90a")
    assert ("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
            in compiled.ptx)
    assert "mbarrier.try_wait.parity" in compiled.ptx
    # The ring: `stages` full and `stages` empty barriers are initialized.
    assert compiled.ptx.count("mbarrier.init.shared.b64") >= 2


def test_constants_are_shared_in_scope():
    module = pipeline.build(2)
    text = module.text()
    # One `0 : index` for every barrier index in the loop (the pipeliner
    # compares the barrier operands).
    loop = text[text.index("scf.for"):]
    assert loop.count("arith.constant 0 : index") == 0


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_pipeline_built_in_python_matches_torch(torch_cuda, stages):
    torch = torch_cuda
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("needs sm_90")
    a = torch.randn(512, 32, device="cuda")
    b = torch.randn(512, 32, device="cuda")
    out = torch.full((128,), float("nan"), device="cuda")
    pipeline.build(stages).compile(chip="sm_90a").kernel("dot")(a, b, out, block=(128, 1, 1))
    want = (a * b).view(16, 32, 4, 8).sum(dim=(0, 3)).reshape(128)
    assert relative_error(out, want) < 1e-5


def test_hopper_gemm_built_in_python_compiles():
    compiled = hopper_gemm.build().compile(chip="sm_90a")
    ptx = " ".join(compiled.ptx.split())  # tabs and runs of spaces as one space
    for instruction in ("setmaxnreg.dec.sync.aligned.u32 40", "setmaxnreg.inc.sync.aligned.u32 232",
                        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16",
                        "stmatrix.sync.aligned.m8n8.x4.shared.b16",
                        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"):
        assert instruction in ptx, instruction


@pytest.mark.parametrize("shape", [(256, 512, 512), (200, 296, 200)])
def test_hopper_gemm_built_in_python_matches_torch(torch_cuda, shape):
    torch = torch_cuda
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("needs sm_90a")
    m, n, k = shape
    gemm = hopper_gemm.build().compile(chip="sm_90a").kernel("gemm")
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(n, k, device="cuda", dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    gemm(a, b, c, k, grid=(-(-n // 256), -(-m // 128), 1), block=(384, 1, 1),
         shared=hopper_gemm.SHARED_BYTES)
    want = a @ b.t()
    assert not c.isnan().any()
    assert relative_error(c, want) < 2e-3


def tma_swizzle(offset: int, span: int) -> int:
    """TMA's swizzle of a byte offset (CuTe Swizzle<log2(span / 16), 4, 3>):
    the 16-byte chunk index XOR the 128-byte row index, modulo the span."""
    bits = (span // 16).bit_length() - 1
    return offset ^ (((offset >> 7) & ((1 << bits) - 1)) << 4)


@pytest.mark.parametrize("name", ["b32", "b64", "b128"])
def test_swizzle_demo_compiles(name):
    compiled = swizzle.build(name).compile(chip="sm_90a")
    assert "cp.async.bulk.global.shared::cta.bulk_group" in compiled.ptx
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile" in compiled.ptx


@pytest.mark.parametrize("name", ["b32", "b64", "b128"])
def test_swizzle_demo_matches_the_tma_swizzle_patterns(torch_cuda, name):
    torch = torch_cuda
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("needs sm_90")
    columns = swizzle.SPANS[name]
    matrix = torch.arange(1024, device="cuda", dtype=torch.float32).repeat(1024, 1).contiguous()
    physical = torch.full((16 * columns,), -1.0, device="cuda")
    logical = torch.full((16 * columns,), -1.0, device="cuda")
    swizzle.build(name).compile(chip="sm_90a").kernel("table")(
        matrix, physical, logical, block=(128, 1, 1))
    span = columns * 4
    want = [(tma_swizzle(4 * e, span) % span) // 4 for e in range(16 * columns)]
    assert physical.int().tolist() == want
    assert logical.int().tolist() == [e % columns for e in range(16 * columns)]
    if name == "b32":  # the 32B swizzle pattern: rows 4..7 read 4 5 6 7 0 1 2 3
        assert physical.view(16, 8)[4].int().tolist() == [4, 5, 6, 7, 0, 1, 2, 3]
