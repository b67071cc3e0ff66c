"""The launch path as programs use it (skipped without a GPU): streams, CUDA
graphs, no growth over many launches, the watchdog, dead-context errors, and
descriptor parameters that reach the kernel from the manifest."""
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import tile
from tile.runtime import Runtime
from tile.testing import relative_error

REPO = Path(__file__).resolve().parents[2]
GPU_TESTS = REPO / "test" / "Integration" / "GPU"


def _hopper(torch):
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("needs sm_90a")


def test_launch_on_a_side_stream(torch_cuda, examples):
    """Launches are stream-ordered: on PyTorch's current stream by default,
    or on the stream given, after the work queued there."""
    torch = torch_cuda
    kernel = tile.compile(examples / "cp_async_copy.mlir").kernel("copy_tile")
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        src = torch.randn(256, 64, device="cuda", dtype=torch.float16)
        dst = torch.full_like(src, float("nan"))
        kernel(src, dst, grid=(4, 1, 1), block=(128, 1, 1))  # the current stream: side
    side.synchronize()
    assert torch.equal(dst, src)
    dst.fill_(float("nan"))
    torch.cuda.synchronize()
    kernel(src, dst, grid=(4, 1, 1), block=(128, 1, 1), stream=side.cuda_stream)
    tile.synchronize(side)
    assert torch.equal(dst, src)


def _gemm_nt(torch, kernels, m, n, k):
    """The Hopper GEMM's C = A B^T kernel, bound to the workspace and
    counters of its split tiles for up to 132 CTAs, with f16 inputs A (m x k), B (n x k)
    and a NaN-filled C."""
    _hopper(torch)
    kernel = tile.compile(kernels / "gemm_sm90.mlir", chip="sm_90a").kernel("gemm_nt")
    workspace = torch.empty((132 * 1024, 128), device="cuda", dtype=torch.float32)
    counters = torch.zeros(132 * 4, device="cuda", dtype=torch.int32)
    unread = torch.zeros(1, device="cuda", dtype=torch.float32)

    def gemm(*args, **launch):
        # C stands in for the epilogue's bias and residual, and `unread` for
        # an FP8 C's scale and amax (none read).
        kernel(*args, workspace, counters, args[2], args[2], unread, unread.view(torch.int32),
               args[2], **launch)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(n, k, device="cuda", dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    return gemm, a, b, c


def test_gemm_in_a_cuda_graph(torch_cuda, kernels):
    """A kernel with by-value tensor maps is captured and replayed: the maps
    are kernel parameters, so the graph holds them; new values in the same
    buffers give new products."""
    torch = torch_cuda
    m, n, k = 256, 512, 512
    gemm, a, b, c = _gemm_nt(torch, kernels, m, n, k)
    grid = (min(-(-m // 128) * -(-n // 256), 132), 1, 1)
    gemm(a, b, c, m, n, k, grid=grid)  # warm up outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    # A capture stream of this device: torch.cuda.graph's default one is made
    # once per process, on the device current at the first capture.
    with torch.cuda.graph(graph, stream=torch.cuda.Stream()):
        gemm(a, b, c, m, n, k, grid=grid)
    for _ in range(3):
        a.copy_(torch.randn_like(a))
        b.copy_(torch.randn_like(b))
        c.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert not c.isnan().any()
        assert relative_error(c, a @ b.t()) < 2e-3


def test_no_growth_over_10000_launches(torch_cuda, kernels):
    """Nothing is allocated per launch: device memory and host memory stay
    flat over 10,000 launches of the Hopper GEMM (three tensor maps)."""
    torch = torch_cuda
    m, n, k = 128, 256, 64
    gemm, a, b, c = _gemm_nt(torch, kernels, m, n, k)
    runtime = Runtime.get()

    def launches(count):
        for i in range(count):
            gemm(a, b, c, m, n, k, grid=(1, 1, 1))
            if i % 1000 == 999:
                tile.synchronize()
        tile.synchronize()

    launches(200)  # warm-up: caches, the kernel's shared-memory attribute
    free_before, _ = runtime.memory_info()
    rss_before = _rss_bytes()
    launches(10_000)
    free_after, _ = runtime.memory_info()
    rss_after = _rss_bytes()
    assert abs(free_before - free_after) <= 2 << 20
    assert rss_after - rss_before < 10 << 20
    assert relative_error(c, a @ b.t()) < 2e-3


def _rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def test_oob_nan_matches_host_ir(torch_cuda):
    """The descriptor's `oob = nan` reaches the tensor map from Python (through
    the manifest) as from host IR: tma-oob-nan.mlir's host code finds 448 NaN
    outside the 40x40 tensor, and so does this launch of the same kernel."""
    torch = torch_cuda
    _hopper(torch)
    kernel = tile.compile(GPU_TESTS / "tma-oob-nan.mlir", chip="sm_90a").kernel("load_box")
    a = torch.arange(40 * 40, device="cuda", dtype=torch.float32).reshape(40, 40)
    out = torch.zeros(32, 32, device="cuda", dtype=torch.float32)
    kernel(a, out, 16, 16)  # block from the manifest (known_block_size)
    torch.cuda.synchronize()
    assert int(out.isnan().sum()) == 448
    assert torch.equal(out[:24, :24], a[16:, 16:])


def _run_script(body: str, timeout: float = 120):
    """Runs `body` in a fresh Python (a dead or busy context must not outlive
    the test) and returns (exit code, output, seconds)."""
    script = textwrap.dedent("""
        import sys
        sys.path.insert(0, {python!r})
        import tile
        from tile import TileRuntimeError
    """).format(python=str(REPO / "python")) + textwrap.dedent(body)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ))
    return done.returncode, done.stdout + done.stderr, time.monotonic() - start


def test_a_kernel_that_never_finishes_times_out(torch_cuda):
    """synchronize(timeout=...) turns a hung kernel (an mbarrier wait that is
    never satisfied) into TileRuntimeError naming the kernel; the process
    then ends."""
    code, output, seconds = _run_script(f"""
        kernel = tile.compile({str(GPU_TESTS / "watchdog.mlir")!r}).kernel("never_done")
        kernel()
        try:
            tile.synchronize(timeout=2)
        except TileRuntimeError as error:
            print("raised:", error)
            sys.exit(3)
        print("no error")
    """)
    assert code == 3, output
    assert "raised: watchdog: the stream did not finish within 2 s" in output
    assert "last kernel launched: 'never_done'" in output
    assert seconds < 100


def test_dead_context_names_the_first_failure(torch_cuda):
    """After an illegal address every later call says the context is
    unusable and names the first failure."""
    code, output, _ = _run_script(f"""
        path = {str(GPU_TESTS / "device-error.mlir")!r}
        kernel = tile.compile(path).kernel("store_null")
        kernel()
        for step in ("synchronize", "launch", "load"):
            try:
                if step == "synchronize":
                    tile.synchronize()
                elif step == "launch":
                    kernel()
                    tile.synchronize()
                else:
                    tile.compile(path).kernel("store_null").function(0)  # loads the module
                print(step, "ok")
            except TileRuntimeError as error:
                print(step, "raised:", error)
    """)
    assert code == 0, output
    lines = dict(line.split(" ", 1) for line in output.splitlines() if " raised: " in line)
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in lines["synchronize"]
    assert "the CUDA context is now unusable" in lines["synchronize"]
    assert "store_null" in lines["synchronize"]
    for later in ("launch", "load"):
        assert "the CUDA context is unusable since an earlier failure" in lines[later], output
        assert "last kernel launched: 'store_null'" in lines[later], output
