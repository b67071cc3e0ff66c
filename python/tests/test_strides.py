"""Array strides at launch: a memref parameter of the identity layout takes
packed rows only, a strided layout takes the array's strides where it has
`?`, and every base has the alignment the kernel's accesses assume
(tile.core.layouts.descriptor_fields); tensor-map parameters go through
the runtime's encoder. The rules and the descriptor fields are tested
everywhere, the launches where PyTorch sees a CUDA GPU."""
import pytest

import tile
from tile import OperandError, TileRuntimeError
from tile.core.layouts import describe, descriptor_fields, overlapping, packed_strides
from tile.testing import relative_error

# Copy kernels, one thread an element: dst[i, j] = src[i, j].
STRIDED = "memref<?x?xf16, strided<[?, ?], offset: ?>>"
ROWS = "memref<?x?xf16, strided<[?, 1], offset: ?>>"
PACKED = "memref<?x64xf16>"
OFFSET = "memref<?x?xf16, strided<[?, 1], offset: 8>>"  # element (0, 0) at aligned + 8


def _copy(name: str, src: str, dst: str) -> str:
    return f"""
    gpu.func @{name}(%src: {src}, %dst: {dst}) kernel {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %rows = memref.dim %src, %c0 : {src}
      %cols = memref.dim %src, %c1 : {src}
      %n = arith.muli %rows, %cols : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %inside = arith.cmpi ult, %i, %n : index
      scf.if %inside {{
        %r = arith.divui %i, %cols : index
        %c = arith.remui %i, %cols : index
        %v = memref.load %src[%r, %c] : {src}
        memref.store %v, %dst[%r, %c] : {dst}
      }}
      gpu.return
    }}"""


COPIES = f"""
module attributes {{gpu.container_module}} {{
  gpu.module @kernels {{{_copy("copy_strided", STRIDED, STRIDED)}
{_copy("copy_rows", ROWS, STRIDED)}
{_copy("copy_packed", PACKED, PACKED)}
{_copy("copy_offset", OFFSET, STRIDED)}
  }}
}}
"""

WHERE = "kernel 'k', argument 0"


def _entry(shape, strides=None, offset=0, written=True, alignment=2):
    """A manifest memref entry of f16s (strides None: the identity) whose
    accesses assume a base `alignment` (more than the element's: a 16-byte
    cp.async's)."""
    entry = {"kind": "memref", "rank": len(shape), "element": "f16", "shape": list(shape),
             "strides": list(strides or packed_strides([max(d, 1) for d in shape])),
             "offset": offset, "identity": strides is None, "written": written,
             "alignment": alignment}
    if alignment > 2:
        entry["alignment_for"] = f"a {alignment}-byte cp.async (tile.async_copy)"
    return entry


# -- The rules, on plain data ------------------------------------------------

def test_packed_strides_and_types_in_words():
    assert packed_strides((256, 64)) == (64, 1)
    assert packed_strides((2, 3, 4)) == (12, 4, 1)
    assert packed_strides(()) == ()
    assert describe(_entry((-1, 64))) == "memref<?x64xf16>"
    assert describe(_entry((-1, -1), (-1, 1), -1)) == (
        "memref<?x?xf16, strided<[?, 1], offset: ?>>")
    assert describe(_entry((4, 4), (8, 1), 0)) == "memref<4x4xf16, strided<[8, 1]>>"
    assert describe(_entry((4,), (2,), 3)) == "memref<4xf16, strided<[2], offset: 3>>"


def test_identity_layout_takes_packed_arrays():
    entry = _entry((-1, 64))
    assert descriptor_fields(entry, 0x1000, (256, 64), (64, 1), 2, WHERE) == (
        0x1000, 0, (64, 1))
    # Dims of extent 1 (or an empty array) address one element at most:
    # any stride there, and the descriptor gets the packed one.
    assert descriptor_fields(entry, 0x1000, (1, 64), (999, 1), 2, WHERE) == (0x1000, 0, (64, 1))
    assert descriptor_fields(_entry((-1, -1)), 0x1000, (4, 1), (1, 7), 2, WHERE) == (
        0x1000, 0, (1, 1))
    assert descriptor_fields(entry, 0x1000, (0, 64), (5, 3), 2, WHERE)[2] == (64, 1)


@pytest.mark.parametrize("what, shape, strides", [
    ("transposed", (256, 64), (1, 256)),
    ("sliced", (256, 64), (128, 1)),
    ("step-sliced", (256, 64), (128, 2)),
    ("expanded", (256, 64), (0, 1)),
    ("padded rows", (256, 64), (72, 1)),
    ("reversed", (256, 64), (-64, 1)),
])
def test_identity_layout_rejects_other_strides(what, shape, strides):
    with pytest.raises(OperandError) as error:
        descriptor_fields(_entry((-1, 64)), 0x1000, shape, strides, 2, WHERE)
    message = str(error.value)
    assert message.startswith("kernel 'k', argument 0: memref<?x64xf16> ")
    assert f"shape {shape} with strides {strides}" in message
    if strides[0] >= 0:
        assert "the type requires strides (64, 1)" in message
        assert "`.contiguous()`" in message and "strided<[?, 1], offset: ?>" in message
    else:
        assert "takes no negative strides" in message


def test_wrong_shape_is_an_operand_error():
    with pytest.raises(OperandError, match=r"memref<\?x64xf16> takes an array of shape "
                                           r"\[\?, 64\] \(\? any extent\), got shape "
                                           r"\(256, 32\)"):
        descriptor_fields(_entry((-1, 64)), 0x1000, (256, 32), (32, 1), 2, WHERE)
    with pytest.raises(OperandError, match=r"got shape \(64,\)"):
        descriptor_fields(_entry((-1, 64)), 0x1000, (64,), (1,), 2, WHERE)


def test_misaligned_elements_are_rejected():
    with pytest.raises(OperandError, match="2-byte aligned addresses.*0x1001"):
        descriptor_fields(_entry((-1, 64)), 0x1001, (2, 64), (64, 1), 2, WHERE)


def test_base_alignment_the_kernel_assumes():
    """T-LAUNCH-5: the aligned pointer has the manifest's `alignment`."""
    packed = _entry((-1, 64), alignment=16)
    assert descriptor_fields(packed, 0x1010, (256, 64), (64, 1), 2, WHERE) == (
        0x1010, 0, (64, 1))
    with pytest.raises(OperandError) as error:
        descriptor_fields(packed, 0x1012, (256, 64), (64, 1), 2, WHERE)
    assert str(error.value) == (
        "kernel 'k', argument 0: memref<?x64xf16> is accessed by a 16-byte cp.async "
        "(tile.async_copy), so the compiled code assumes a 16-byte aligned base address "
        "(T-LAUNCH-5); got an array whose first element is at 0x1012, only 2-byte aligned. "
        "Pass a copy (`.clone()`: a fresh allocation, 256-byte aligned; `.contiguous()` "
        "copies only non-contiguous arrays) or a view that starts 16-byte aligned.")
    # Strided layouts: a dynamic offset puts the base at the first element,
    # a static one k elements before it (T-LAUNCH-3).
    rows = _entry((-1, -1), (-1, 1), -1, alignment=8)
    assert descriptor_fields(rows, 0x1008, (4, 4), (8, 1), 2, WHERE)[0] == 0x1008
    with pytest.raises(OperandError, match=r"8-byte aligned base.*at 0x1004, only 4-byte"):
        descriptor_fields(rows, 0x1004, (4, 4), (8, 1), 2, WHERE)
    static = _entry((-1, -1), (-1, 1), 4, alignment=16)
    assert descriptor_fields(static, 0x1008, (4, 4), (8, 1), 2, WHERE)[0] == 0x1000
    with pytest.raises(OperandError, match=r"first element is at 0x1010 and aligned pointer "
                                           r"\(the first element - 4 elements, T-LAUNCH-3\) "
                                           r"at 0x1008, only 8-byte aligned"):
        descriptor_fields(static, 0x1010, (4, 4), (8, 1), 2, WHERE)
    # An empty array addresses nothing.
    assert descriptor_fields(packed, 0x1002, (0, 64), (64, 1), 2, WHERE)[0] == 0x1002
    # Manifests before `alignment`: the element's, as before.
    old = {k: v for k, v in packed.items() if not k.startswith("alignment")}
    assert descriptor_fields(old, 0x1002, (256, 64), (64, 1), 2, WHERE)[0] == 0x1002


@pytest.mark.parametrize("shape, strides", [
    ((256, 64), (128, 1)), ((256, 64), (128, 2)), ((256, 64), (1, 256)),
    ((256, 64), (72, 1)), ((256, 64), (64, 1))])
def test_dynamic_strides_are_passed_through(shape, strides):
    entry = _entry((-1, -1), (-1, -1), -1)
    assert descriptor_fields(entry, 0x1000, shape, strides, 2, WHERE) == (0x1000, 0, strides)


def test_static_strides_must_match_where_they_count():
    entry = _entry((-1, -1), (-1, 1), -1)
    assert descriptor_fields(entry, 0x1000, (256, 64), (128, 1), 2, WHERE) == (
        0x1000, 0, (128, 1))
    # A column: dim 1 has extent 1, its stride is the type's.
    assert descriptor_fields(entry, 0x1000, (256, 1), (128, 5), 2, WHERE)[2] == (128, 1)
    with pytest.raises(OperandError) as error:
        descriptor_fields(entry, 0x1000, (256, 64), (1, 256), 2, WHERE)
    assert str(error.value) == (
        "kernel 'k', argument 0: memref<?x?xf16, strided<[?, 1], offset: ?>> has static "
        "strides [?, 1] baked into the compiled code (T-LAUNCH-3); got an array of shape "
        "(256, 64) with strides (1, 256) (in elements), which must match them on dims of "
        "extent > 1. Pass an array of those strides (`.contiguous()` has packed ones), or "
        "declare the differing strides dynamic (`?`).")


def test_offsets():
    # A dynamic offset: the descriptor's offset is 0 and its aligned pointer
    # the first element. A static one is baked into the code, which reads
    # element (0, 0) at aligned + offset elements: the pointer moves back.
    dynamic = _entry((-1, -1), (-1, 1), -1)
    assert descriptor_fields(dynamic, 0x1000, (4, 4), (8, 1), 2, WHERE) == (0x1000, 0, (8, 1))
    static = _entry((-1, -1), (-1, 1), 6)
    assert descriptor_fields(static, 0x1000, (4, 4), (8, 1), 2, WHERE) == (0x1000 - 12, 6, (8, 1))
    assert descriptor_fields(_entry((4, 4), (8, 1), 6), 0x1000, (4, 4), (8, 1), 4, WHERE) == (
        0x1000 - 24, 6, (8, 1))


def test_overlapping_views_only_where_the_kernel_only_reads():
    assert overlapping((256, 64), (0, 1)) and overlapping((4, 4), (1, 1))
    assert overlapping((4, 8), (4, 1))  # rows of 8 at a pitch of 4
    assert not overlapping((256, 64), (64, 1)) and not overlapping((256, 64), (1, 256))
    assert not overlapping((1, 64), (0, 1)) and not overlapping((4, 8), (1, 4))
    broadcast = (256, 64), (0, 1)
    read = _entry((-1, -1), (-1, -1), -1, written=False)
    assert descriptor_fields(read, 0x1000, *broadcast, 2, WHERE) == (0x1000, 0, (0, 1))
    with pytest.raises(OperandError, match=r"may write through it \(the kernel manifest's "
                                           r"`written`\).*strides \(0, 1\).*overlap"):
        descriptor_fields(_entry((-1, -1), (-1, -1), -1), 0x1000, *broadcast, 2, WHERE)
    with pytest.raises(OperandError, match="takes no negative strides"):
        descriptor_fields(read, 0x1000, (4, 4), (-4, 1), 2, WHERE)


def test_manifests_without_layouts_are_identity():
    old = {"kind": "memref", "rank": 2, "element": "f16", "shape": [-1, 64]}
    assert describe(old) == "memref<?x64xf16>"
    with pytest.raises(OperandError, match="requires strides"):
        descriptor_fields(old, 0x1000, (4, 64), (128, 1), 2, WHERE)


# -- The test kernels compile, and their manifests say their layouts ---------

def test_copy_kernels_compile_with_their_layouts():
    module = tile.compile(COPIES, chip="sm_90a")
    assert ".entry copy_strided" in module.ptx and ".entry copy_packed" in module.ptx
    kernels = module.manifest["kernels"]
    src, dst = kernels["copy_strided"]["params"]
    assert (src["identity"], src["strides"], src["offset"], src["written"]) == (
        False, [-1, -1], -1, False)
    assert (dst["identity"], dst["written"]) == (False, True)
    rows = kernels["copy_rows"]["params"][0]
    assert (rows["strides"], rows["offset"]) == ([-1, 1], -1)
    packed = kernels["copy_packed"]["params"][0]
    assert (packed["identity"], packed["shape"], packed["strides"], packed["offset"]) == (
        True, [-1, 64], [64, 1], 0)
    offset = kernels["copy_offset"]["params"][0]
    assert (offset["identity"], offset["strides"], offset["offset"]) == (False, [-1, 1], 8)
    # Element loads and stores assume element-aligned bases only.
    assert {p["alignment"] for k in kernels.values() for p in k["params"]} == {2}
    assert tile.compile(COPIES, chip="sm_80").ptx


def test_non_strided_layouts_are_compile_errors():
    ir = """
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f(%a: memref<8xf32, affine_map<(d0) -> (d0 mod 4)>>) kernel { gpu.return }
  }
}
"""
    with pytest.raises(tile.CompileError, match="kernel parameter 0 has type .* whose layout "
                                                "is not strided"):
        tile.compile(ir)


# -- Through Kernel, before any driver call ----------------------------------

class StridedCudaArray:
    """An f16 array that says it is on the GPU with byte `strides`; nothing
    reads its address (the checks fail before the driver is asked)."""

    def __init__(self, shape, strides, address=0x7f0000000000, typestr="<f2"):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr,
                                         "strides": strides, "data": (address, False),
                                         "version": 3}


def test_launch_rejects_strided_arrays_for_packed_parameters():
    kernel = tile.compile(COPIES).kernel("copy_packed")
    step_sliced = StridedCudaArray((256, 64), (256, 4))  # x[:, ::2] of 256 x 128
    with pytest.raises(OperandError) as error:
        kernel(step_sliced, step_sliced, grid=(64, 1, 1), block=(256, 1, 1))
    assert str(error.value) == (
        "kernel 'copy_packed', argument 0: memref<?x64xf16> has the identity layout, packed "
        "row-major rows, which the compiled code assumes (T-LAUNCH-2); got an array of shape "
        "(256, 64) with strides (128, 2) (in elements), the type requires strides (64, 1). "
        "Pass `.contiguous()` (a copy), or declare the parameter with a strided layout, e.g. "
        "`strided<[?, 1], offset: ?>`, to take the array's strides.")
    with pytest.raises(OperandError, match=r"argument 0: .*strides \(0, 1\)"):
        expanded = StridedCudaArray((256, 64), (0, 2))
        kernel(expanded, expanded, grid=(64, 1, 1), block=(256, 1, 1))
    with pytest.raises(OperandError, match=r"not multiples of the 2-byte f16 elements"):
        odd = StridedCudaArray((256, 64), (129, 2))
        kernel(odd, odd, grid=(64, 1, 1), block=(256, 1, 1))


def test_launch_rejects_bases_less_aligned_than_the_kernel_assumes(examples):
    """copy_tile reads its source with 16-byte cp.asyncs: a source that
    starts one element into a buffer is an OperandError, not a misaligned
    address that leaves the CUDA context unusable (T-LAUNCH-5)."""
    module = tile.compile(examples / "cp_async_copy.mlir")
    src, dst = module.manifest["kernels"]["copy_tile"]["params"]
    assert (src["alignment"], src["alignment_for"]) == (
        16, "a 16-byte cp.async (tile.async_copy)")
    assert dst["alignment"] == 2 and "alignment_for" not in dst
    kernel = module.kernel("copy_tile")
    shifted = StridedCudaArray((256, 64), (128, 2), address=0x7f0000000002)
    aligned = StridedCudaArray((256, 64), (128, 2))
    with pytest.raises(OperandError) as error:
        kernel(shifted, aligned, grid=(4, 1, 1), block=(128, 1, 1))
    assert str(error.value) == (
        "kernel 'copy_tile', argument 0: memref<?x64xf16> is accessed by a 16-byte cp.async "
        "(tile.async_copy), so the compiled code assumes a 16-byte aligned base address "
        "(T-LAUNCH-5); got an array whose first element is at 0x7f0000000002, only 2-byte "
        "aligned. Pass a copy (`.clone()`: a fresh allocation, 256-byte aligned; "
        "`.contiguous()` copies only non-contiguous arrays) or a view that starts 16-byte "
        "aligned.")


def test_non_contiguous_host_arrays_are_rejected():
    np = pytest.importorskip("numpy")
    kernel = tile.compile(COPIES).kernel("copy_packed")
    x = np.zeros((256, 128), np.float16)
    with pytest.raises(OperandError, match=r"host arrays must be C-contiguous.*strides "
                                           r"\(256, 4\) bytes.*numpy.ascontiguousarray"):
        kernel(x[:, ::2], x[:, ::2], grid=(64, 1, 1), block=(256, 1, 1))


# -- On a GPU ----------------------------------------------------------------

def _views(torch):
    """(what, a 256 x 64 f16 view not packed) of each kind."""
    x = torch.randn(256, 128, device="cuda", dtype=torch.float16)
    y = torch.randn(64, 256, device="cuda", dtype=torch.float16)
    padded = torch.randn(256 * 72, device="cuda", dtype=torch.float16)
    return [("transposed", y.t()), ("sliced", x[:, :64]), ("step-sliced", x[:, ::2]),
            ("expanded", x[:1, :64].expand(256, 64)),
            ("padded rows", torch.as_strided(padded, (256, 64), (72, 1)))]


def _grid(n, block=256):
    return ((n + block - 1) // block, 1, 1)


def test_gpu_packed_parameters_reject_strided_views(torch_cuda):
    torch = torch_cuda
    kernel = tile.compile(COPIES).kernel("copy_packed")
    for what, src in _views(torch):
        assert not src.is_contiguous(), what
        dst = torch.full((256, 64), float("nan"), device="cuda", dtype=torch.float16)
        with pytest.raises(OperandError, match=r"argument 0: memref<\?x64xf16> has the "
                                               r"identity layout.*\.contiguous\(\)"):
            kernel(src, dst, grid=_grid(src.numel()), block=(256, 1, 1))
        with pytest.raises(OperandError, match=r"argument 1: memref<\?x64xf16>"):
            kernel(dst, src, grid=_grid(src.numel()), block=(256, 1, 1))
        torch.cuda.synchronize()
        assert dst.isnan().all(), what  # nothing ran
        kernel(src.contiguous(), dst, grid=_grid(src.numel()), block=(256, 1, 1),
               synchronize=True)
        assert torch.equal(dst, src), what


def test_gpu_strided_parameters_take_strided_views(torch_cuda):
    torch = torch_cuda
    kernel = tile.compile(COPIES).kernel("copy_strided")
    for what, src in _views(torch):
        dst = torch.full((256, 64), float("nan"), device="cuda", dtype=torch.float16)
        kernel(src, dst, grid=_grid(src.numel()), block=(256, 1, 1), synchronize=True)
        assert torch.equal(dst, src), what
    # Strided destinations: every other column of a wider matrix, a
    # transposed one; the other elements are untouched.
    src = torch.randn(256, 64, device="cuda", dtype=torch.float16)
    wide = torch.full((256, 128), float("nan"), device="cuda", dtype=torch.float16)
    kernel(src, wide[:, 1::2], grid=_grid(src.numel()), block=(256, 1, 1), synchronize=True)
    assert torch.equal(wide[:, 1::2], src) and wide[:, ::2].isnan().all()
    transposed = torch.full((64, 256), float("nan"), device="cuda", dtype=torch.float16)
    kernel(src, transposed.t(), grid=_grid(src.numel()), block=(256, 1, 1), synchronize=True)
    assert torch.equal(transposed.t(), src)
    # Views that start inside their storage: the descriptor's offset is 0,
    # its pointer the view's first element.
    out = torch.full((260, 70), float("nan"), device="cuda", dtype=torch.float16)
    kernel(src[3:, 5:], out[7:, 9:68], grid=_grid(253 * 59), block=(256, 1, 1),
           synchronize=True)
    assert torch.equal(out[7:, 9:68], src[3:, 5:])
    assert int((~out.isnan()).sum()) == 253 * 59
    # A broadcast destination would be written by many threads at once.
    with pytest.raises(OperandError, match="argument 1: .*may write through it"):
        kernel(src, wide[:1, :64].expand(256, 64), grid=_grid(src.numel()), block=(256, 1, 1))


def test_gpu_unit_stride_rows_take_any_pitch(torch_cuda):
    torch = torch_cuda
    kernel = tile.compile(COPIES).kernel("copy_rows")  # strided<[?, 1], offset: ?>
    views = dict(_views(torch))
    for what in ("sliced", "padded rows", "expanded"):
        src = views[what]
        dst = torch.full((256, 64), float("nan"), device="cuda", dtype=torch.float16)
        kernel(src, dst, grid=_grid(src.numel()), block=(256, 1, 1), synchronize=True)
        assert torch.equal(dst, src), what
    dst = torch.full((256, 64), float("nan"), device="cuda", dtype=torch.float16)
    for what in ("transposed", "step-sliced"):
        with pytest.raises(OperandError, match=r"strided<\[\?, 1\], offset: \?>> has static "
                                               r"strides \[\?, 1\]"):
            kernel(views[what], dst, grid=(64, 1, 1), block=(256, 1, 1))
    torch.cuda.synchronize()
    assert dst.isnan().all()


def test_gpu_tensor_map_parameters_check_strides(torch_cuda, kernels):
    """A tensor map takes any 16-byte multiple row pitch with unit columns
    (a sliced A is read in place, correctly); a transposed A breaks T-TMA-9
    and an expanded one (zero stride) is an OperandError."""
    torch = torch_cuda
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("needs sm_90a")
    m, n, k = 256, 512, 512
    kernel = tile.compile(kernels / "gemm_sm90.mlir", chip="sm_90a").kernel("gemm_nt")
    wide = torch.randn(m, k + 64, device="cuda", dtype=torch.float16)
    a = wide[:, :k]  # rows of 512 at a pitch of 576 elements
    b = torch.randn(n, k, device="cuda", dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    grid = 132
    workspace = torch.empty((grid * 1024, 128), device="cuda", dtype=torch.float32)
    counters = torch.zeros(grid * 4, device="cuda", dtype=torch.int32)
    unread = torch.zeros(1, device="cuda", dtype=torch.float32)
    unread = (unread, unread.view(torch.int32))  # no FP8 C: not read (C's rows: C's)
    kernel(a, b, c, m, n, k, workspace, counters, c, c, *unread, c, grid=(grid, 1, 1),
           block=(384, 1, 1), synchronize=True)
    assert relative_error(c, a.float() @ b.float().t()) < 2e-3
    transposed = torch.randn(k, m, device="cuda", dtype=torch.float16).t()
    with pytest.raises(TileRuntimeError, match="T-TMA-9"):
        kernel(transposed, b, c, m, n, k, workspace, counters, c, c, *unread, c, grid=(grid, 1, 1),
               block=(384, 1, 1))
    with pytest.raises(OperandError, match=r"argument 0: .*positive strides.*\(0, 1\)"):
        kernel(a[:1].expand(m, k), b, c, m, n, k, workspace, counters, c, c, *unread, c,
               grid=(grid, 1, 1), block=(384, 1, 1))


def test_gpu_static_offsets_are_honoured(torch_cuda):
    """A static offset is baked into the code: the launch passes the aligned
    pointer 8 elements before the array's first element."""
    torch = torch_cuda
    kernel = tile.compile(COPIES).kernel("copy_offset")
    x = torch.randn(256, 128, device="cuda", dtype=torch.float16)
    for src in (x[:, :64], x[3:, 5:], x.contiguous()):
        dst = torch.full(src.shape, float("nan"), device="cuda", dtype=torch.float16)
        kernel(src, dst, grid=_grid(src.numel()), block=(256, 1, 1), synchronize=True)
        assert torch.equal(dst, src)


def test_gpu_misaligned_base_is_an_operand_error(torch_cuda, examples):
    """A contiguous view one element into a buffer is element-aligned but
    not 16-byte aligned: copy_tile's 16-byte cp.asyncs would fault with
    CUDA_ERROR_MISALIGNED_ADDRESS and leave the context unusable. The
    launch raises instead, writes nothing, and the device still works."""
    torch = torch_cuda
    kernel = tile.compile(examples / "cp_async_copy.mlir").kernel("copy_tile")
    src = torch.randn(256, 64, device="cuda", dtype=torch.float16)
    dst = torch.full((256, 64), float("nan"), device="cuda", dtype=torch.float16)
    for _ in range(2):  # the first launch takes the slow path, the second the fast one
        kernel(src, dst, grid=(4, 1, 1), block=(128, 1, 1), synchronize=True)
        assert torch.equal(dst, src)
    buffer = torch.randn(256 * 64 + 8, device="cuda", dtype=torch.float16)
    shifted = buffer[1:256 * 64 + 1].view(256, 64)
    assert shifted.is_contiguous() and shifted.data_ptr() % 16 == 2
    assert shifted.contiguous().data_ptr() == shifted.data_ptr()  # no copy: `.clone()`
    dst.fill_(float("nan"))
    with pytest.raises(OperandError) as error:
        kernel(shifted, dst, grid=(4, 1, 1), block=(128, 1, 1))
    assert str(error.value).startswith(
        "kernel 'copy_tile', argument 0: memref<?x64xf16> is accessed by a 16-byte cp.async "
        "(tile.async_copy), so the compiled code assumes a 16-byte aligned base address "
        f"(T-LAUNCH-5); got an array whose first element is at {shifted.data_ptr():#x}, "
        "only 2-byte aligned. Pass a copy (`.clone()`")
    torch.cuda.synchronize()
    assert dst.isnan().all()  # nothing ran
    # The context is fine: a copy of the view launches, and the destination
    # (stored element by element) may start anywhere element-aligned.
    kernel(shifted.clone(), dst, grid=(4, 1, 1), block=(128, 1, 1), synchronize=True)
    assert torch.equal(dst, shifted)
    out = torch.full((256 * 64 + 8,), float("nan"), device="cuda", dtype=torch.float16)
    kernel(src, out[1:256 * 64 + 1].view(256, 64), grid=(4, 1, 1), block=(128, 1, 1),
           synchronize=True)
    assert torch.equal(out[1:256 * 64 + 1].view(256, 64), src)
    assert out[0].isnan() and out[256 * 64 + 1:].isnan().all()
