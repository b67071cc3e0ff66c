"""Compiling tile IR to PTX from Python (no GPU needed)."""
import subprocess

import pytest

import tile


def test_example_to_ptx(examples):
    module = tile.compile(examples / "cp_async_copy.mlir", chip="sm_90a")
    assert module.kernels == ["copy_tile"]
    assert ".target sm_90a" in module.ptx
    assert "cp.async.cg.shared.global" in module.ptx
    assert "gpu.binary @kernels" in module.lowered


def test_gemm_examples_to_ptx(examples, kernels):
    hopper = tile.compile((kernels / "gemm_sm90.mlir").read_text(), chip="sm_90a")
    assert sorted(hopper.kernels) == ["gemm_nn", "gemm_nt"]
    assert "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16" in hopper.ptx
    assert "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" in hopper.ptx
    ampere = tile.compile(examples / "hgemm_sm80.mlir", chip="sm_80")
    assert ".target sm_80" in ampere.ptx
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ampere.ptx


def test_pipeline_options_change_the_result(examples):
    ir = (examples / "cp_async_copy.mlir").read_text()
    sm80 = tile.compile(ir, chip="sm_80")
    sm90 = tile.compile(ir, chip="sm_90a")
    assert ".target sm_80" in sm80.ptx and ".target sm_90a" in sm90.ptx
    assert sm80.directory != sm90.directory


def test_cache_reuses_the_compilation(examples):
    ir = (examples / "cp_async_copy.mlir").read_text()
    first = tile.compile(ir)
    stamp = (first.directory / "kernels.ptx").stat().st_mtime_ns
    second = tile.compile(ir)
    assert second.directory == first.directory
    assert (second.directory / "kernels.ptx").stat().st_mtime_ns == stamp
    assert second.ptx == first.ptx


WGMMA_N12 = """func.func @n_range(%d: i64, %acc: vector<4xf32>) {
  %r = tile.wgmma %d, %d, %acc {n = 12 : i64, inputType = f16} : vector<4xf32>
  return
}
"""


def test_verifier_error_is_an_exception_with_its_location():
    with pytest.raises(tile.CompileError) as failure:
        tile.compile(WGMMA_N12)
    error = failure.value
    assert len(error.diagnostics) == 1
    diagnostic = error.diagnostics[0]
    assert (diagnostic.line, diagnostic.column) == (2, 8)
    assert diagnostic.severity == "error"
    assert "N must be a multiple of 8 in [8, 256], got 12 (T-WGMMA-2)" in diagnostic.message
    assert "T-WGMMA-2" in str(error) and "tile-opt" in error.command
    # The command reproduces the failure with tile-opt.
    rerun = subprocess.run(error.command, shell=True, capture_output=True, text=True)
    assert rerun.returncode != 0 and "T-WGMMA-2" in rerun.stderr


def test_pass_error_carries_its_note():
    ir = """gpu.module @k {
  gpu.func @f(%b: !tile.mbarrier) kernel {
    %c0 = arith.constant 0 : index
    %t = tile.mbarrier_arrive %b[%c0] : !tile.mbarrier -> !tile.mbarrier_token
    gpu.return
  }
}
"""
    with pytest.raises(tile.CompileError) as failure:
        tile.compile(ir)
    [error] = failure.value.diagnostics
    assert error.severity == "error" and (error.line, error.column) == (4, 10)
    assert "before it is initialized with tile.mbarrier_init (T-PROTO-4)" in error.message
    assert [note.severity for note in error.notes] == ["note"]
    assert "tile.mbarrier_arrive" in error.notes[0].message


def test_parse_error():
    with pytest.raises(tile.CompileError) as failure:
        tile.compile("func.func @f() {\n  %x = tile.not_an_op\n  return\n}\n")
    assert failure.value.diagnostics[0].line == 2


def test_kernel_manifest(examples, kernels):
    """Kernels' parameters come from tile-translate's manifest, not from IR."""
    module = tile.compile(kernels / "gemm_sm90.mlir", chip="sm_90a")
    assert "gemm_nt" in module.kernels and "gemm_nn" in module.kernels
    gemm = module.manifest["kernels"]["gemm_nt"]
    kinds = [p["kind"] for p in gemm["params"]]
    # A, B, C; M, N, K; the split tiles' workspace and counters; the fused
    # epilogue's bias and residual, an FP8 C's scale and amax, and C's rows
    # for stores without TMA (read by none as written).
    assert kinds == ["tensor_map"] * 3 + ["scalar"] * 3 + ["memref"] * 7
    a = gemm["params"][0]
    assert (a["element"], a["data_type"], a["box"], a["swizzle"]) == ("f16", 6, [128, 64], 3)
    assert (a["bytes"], a["alignment"], a["oob_fill"], a["l2_promotion"]) == (128, 128, 0, 0)
    assert [p["type"] for p in gemm["params"][3:6]] == ["index"] * 3
    assert [(p["rank"], p["element"], p["shape"]) for p in gemm["params"][6:]] == [
        (2, "f32", [-1, 128]), (1, "i32", [-1]), (2, "f16", [-1, -1]), (2, "f16", [-1, -1]),
        (1, "f32", [-1]), (1, "i32", [-1]), (2, "f16", [-1, -1])]
    assert gemm["block"] == [384, 1, 1]
    hgemm = tile.compile(examples / "hgemm_sm80.mlir", chip="sm_80").manifest["kernels"]
    assert [(p["kind"], p["rank"], p["element"], p["shape"])
            for p in hgemm["hgemm_nn"]["params"]] == [("memref", 2, "f16", [-1, -1])] * 3


def test_manifest_carries_every_descriptor_parameter():
    ir = """
!d = !tile.tma_desc<memref<?x?xf32>, box = [32, 32], l2promo = b128, oob = nan>
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f(%d: !d, %x: i32, %y: f32) kernel { gpu.return }
  }
}
"""
    params = tile.compile(ir).manifest["kernels"]["f"]["params"]
    assert (params[0]["oob_fill"], params[0]["l2_promotion"], params[0]["shape"]) == (
        1, 2, [-1, -1])
    assert [p["type"] for p in params[1:]] == ["i32", "f32"]


def test_unknown_kernel_is_reported(examples):
    module = tile.compile(examples / "cp_async_copy.mlir")
    with pytest.raises(ValueError, match="no kernel 'nope'"):
        module.kernel("nope")


def test_a_rebuilt_tool_recompiles(examples, tmp_path):
    """The cache key covers the tools themselves, not only their version."""
    import os
    import shutil
    from tile.toolchain import find_toolchain
    tools = find_toolchain()
    opt = tmp_path / "tile-opt"
    shutil.copy(tools.tile_opt, opt)
    copied = tile.Toolchain(opt, tools.tile_translate, tools.runtime)
    ir = (examples / "cp_async_copy.mlir").read_text()
    first = tile.compile(ir, toolchain=copied)
    os.utime(opt, ns=(1, 1))  # "rebuilt": another modification time
    second = tile.compile(ir, toolchain=copied)
    assert first.directory != second.directory


def test_manifest_carries_the_tensor_map_contract(kernels):
    """The manifest's `contract` section is the C++ contract's: the map's
    size and alignment, the encoders' symbols and parameter kinds (from
    which tile.runtime types them), and the element types, which the
    package's one element table must agree with."""
    from tile.core.elements import BY_NAME, check_against_contract
    contract = tile.compile(kernels / "gemm_sm90.mlir", chip="sm_90a").manifest["contract"]
    assert contract["tensor_map"] == {"bytes": 128, "alignment": 128}
    tiled = contract["encoders"]["tiled"]
    assert tiled["symbol"] == "tileRtTensorMapEncodeTiledMemref"
    assert tiled["abi"] == ["pointer", "i64", "pointer"] + ["i64"] * 5 + ["pointer"]
    assert len(contract["encoders"]["im2col"]["abi"]) == 12
    assert contract["element_types"]["bf16"] == {"bytes": 2, "data_type": 9}
    assert set(contract["element_types"]) <= set(BY_NAME)
    check_against_contract(contract)
    with pytest.raises(tile.TileError, match="f16: the tensor-map contract says 4 bytes"):
        check_against_contract({"element_types": {"f16": {"bytes": 4, "data_type": 6}}})
