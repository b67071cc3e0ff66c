"""Every GPU of a machine: kernels and ops run on the device their tensors
are on (each device's primary context, the one PyTorch uses), with modules,
tensor maps, plans and workspaces per device; operands (or a stream) on
different devices are an error; CUDA graphs capture on any device; PyTorch's
current device is left as it was, and a process that works on cuda:1 only
never makes a context on cuda:0. Needs two sm_90 GPUs (skipped otherwise)."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tile
from tile.testing import relative_error


def randn(torch, *shape, device, dtype=None, seed=0):
    generator = torch.Generator(device=device).manual_seed(seed)
    return torch.randn(*shape, device=device, dtype=dtype or torch.bfloat16,
                       generator=generator)


def test_ops_run_on_the_second_gpu(two_hopper_gpus):
    """matmul (persistent, decode with split-K, staged), FP8, grouped and
    attention on cuda:1 while PyTorch's current device is cuda:0."""
    torch = two_hopper_gpus
    from tile.core.devices import device
    from tile.core.operands import operand_of
    from tile.ops.matmul import plan_matmul
    from tile.testing import quantize_fp8
    assert torch.cuda.current_device() == 0
    one = torch.device("cuda", 1)
    a, b = randn(torch, 512, 1024, device=one), randn(torch, 768, 1024, device=one, seed=1)
    x, w7 = randn(torch, 16, 7168, device=one, seed=6), randn(torch, 4096, 7168, device=one, seed=7)
    plan = plan_matmul(operand_of(x), operand_of(w7.t()), None, device(1))
    assert plan.decode is not None and plan.decode.split_k and plan.grid[1] > 1
    checks = [(tile.matmul(a, b, transpose_b=True), a.float() @ b.float().t()),
              (tile.matmul(x, w7, transpose_b=True), x.float() @ w7.float().t()),
              (tile.matmul(a[:, :1020].contiguous(), b[:, :1020].t().contiguous()),
               a[:, :1020].float() @ b[:, :1020].float().t())]  # K = 1020: staged copies
    qa, sa = quantize_fp8(a.float(), (1, 1024))
    qb, sb = quantize_fp8(b.float(), (1, 1024))
    checks.append((tile.matmul(qa, qb.t(), scale_a=sa, scale_b=sb),
                   (qa.float() * sa) @ (qb.float() * sb).t()))
    offsets = torch.tensor([100, 100, 512], device=one, dtype=torch.int32)
    w = randn(torch, 3, 256, 1024, device=one, seed=2)
    grouped = tile.grouped_matmul(a, w.transpose(-2, -1), offsets)
    bounds = [0, 100, 100, 512]
    want = torch.cat([a[bounds[g]:bounds[g + 1]].float() @ w[g].float().t() for g in range(3)])
    checks.append((grouped, want))
    q, k, v = (randn(torch, 2, 4, 300, 128, device=one, seed=s) for s in (3, 4, 5))
    checks.append((tile.attention(q, k, v, causal=True),
                   torch.nn.functional.scaled_dot_product_attention(
                       q.float(), k.float(), v.float(), is_causal=True)))
    tile.synchronize(device=1)
    for got, want in checks:
        assert got.device == one
        assert relative_error(got, want) < 2e-2
    assert torch.cuda.current_device() == 0


def test_the_same_kernel_runs_on_both_devices(two_hopper_gpus):
    """One Kernel, loaded on each device it ran on; alternating devices
    gives the right results on both (per-device functions, workspaces and
    tensor maps)."""
    torch = two_hopper_gpus
    from tile.ops.matmul import GEMM
    inputs = {d: (randn(torch, 300, 512, device=f"cuda:{d}", seed=d),
                  randn(torch, 1024, 512, device=f"cuda:{d}", seed=10 + d)) for d in (0, 1)}
    for _ in range(3):
        for d in (1, 0):
            a, b = inputs[d]
            c = tile.matmul(a, b, transpose_b=True)
            torch.cuda.synchronize(d)
            assert c.device.index == d
            assert relative_error(c, a.float() @ b.float().t()) < 1e-2
    assert GEMM.kernel(("bf16",), "gemm_nt").devices == [0, 1]


def test_operands_on_different_devices_are_an_error(two_hopper_gpus):
    torch = two_hopper_gpus
    a = randn(torch, 256, 512, device="cuda:0")
    b = randn(torch, 256, 512, device="cuda:1")
    with pytest.raises(tile.OperandError, match="a on cuda:0, b on cuda:1"):
        tile.matmul(a, b, transpose_b=True)
    with pytest.raises(tile.OperandError, match="operands on different devices"):
        tile.attention(a[None, None], b[None, None], b[None, None])
    from tile.testing import quantize_fp8
    a8, sa = quantize_fp8(a.float(), (1, 512))
    b8, sb = quantize_fp8(b.float(), (1, 512))
    with pytest.raises(tile.OperandError, match="scale_b on cuda:1"):
        tile.matmul(a8, a8.t(), scale_a=sa, scale_b=sb)  # one scale on the other GPU
    offsets = torch.tensor([256], device="cuda:1", dtype=torch.int32)
    with pytest.raises(tile.OperandError, match="operands on different devices"):
        tile.grouped_matmul(a, b[None].transpose(-2, -1), offsets)
    with pytest.raises(tile.OperandError, match="the stream is on cuda:0, the operands on cuda:1"):
        tile.matmul(b, b, transpose_b=True, stream=torch.cuda.Stream(device=0))
    from tile.ops.matmul import GEMM
    kernel = GEMM.kernel(("bf16",), "gemm_nt")
    c = torch.empty(256, 256, device="cuda:1", dtype=torch.bfloat16)
    counters = torch.zeros(132, device="cuda:1", dtype=torch.int32)
    unread = torch.zeros(1, device="cuda:1", dtype=torch.float32)
    unread = (unread, unread.view(torch.int32))  # no FP8 C: not read
    workspace = torch.empty(2 * 132 * 128, 128, device="cuda:1", dtype=torch.float32)
    with pytest.raises(TypeError, match="arguments on different devices: cuda:0 and cuda:1"):
        kernel(a, b, c, 256, 256, 512, workspace, counters, c, c, *unread, c, grid=(132, 1, 1))


def test_a_cuda_graph_on_the_second_gpu(two_hopper_gpus):
    """tile.matmul and tile.attention captured in a CUDA graph on cuda:1 and
    replayed on new inputs."""
    torch = two_hopper_gpus
    with torch.cuda.device(1):
        a, b = randn(torch, 256, 1024, device="cuda"), randn(torch, 512, 1024, device="cuda")
        q = randn(torch, 1, 2, 128, 64, device="cuda")
        tile.matmul(a, b, transpose_b=True)  # compile, load and plan outside the capture
        tile.attention(q, q, q)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        # A capture stream of this device: torch.cuda.graph's default one is
        # made once per process, on the device current at the first capture.
        with torch.cuda.graph(graph, stream=torch.cuda.Stream()):
            c = tile.matmul(a, b, transpose_b=True)
            o = tile.attention(q, q, q)
        for seed in (7, 8):
            a.copy_(randn(torch, 256, 1024, device="cuda", seed=seed))
            q.copy_(randn(torch, 1, 2, 128, 64, device="cuda", seed=seed))
            graph.replay()
            torch.cuda.synchronize()
            assert c.device.index == 1
            assert relative_error(c, a.float() @ b.float().t()) < 1e-2
            want = torch.nn.functional.scaled_dot_product_attention(q.float(), q.float(),
                                                                    q.float())
            assert relative_error(o, want) < 2e-2


def test_a_side_stream_and_synchronize_on_the_second_gpu(two_hopper_gpus):
    torch = two_hopper_gpus
    stream = torch.cuda.Stream(device=1)
    a, b = randn(torch, 64, 2048, device="cuda:1"), randn(torch, 2048, 4096, device="cuda:1")
    with torch.cuda.stream(stream):
        c = tile.matmul(a, b)  # the current stream of cuda:1 is `stream`
    tile.synchronize(stream, device=1)
    assert relative_error(c, a.float() @ b.float()) < 1e-2
    d = tile.matmul(a, b, stream=stream)
    tile.synchronize(stream, device="cuda:1")
    assert relative_error(d, a.float() @ b.float()) < 1e-2
    assert torch.cuda.current_device() == 0


def test_work_on_the_second_gpu_makes_no_context_on_the_first(two_hopper_gpus):
    """A process that uses cuda:1 only (as a torchrun rank does) leaves
    cuda:0 without a context, also when a thread that has no current
    context launches (tile pushes the kernel's context, it adopts none)."""
    script = textwrap.dedent(f"""
        import ctypes, sys, threading
        sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
        import torch
        torch.cuda.set_device(1)
        cuda = ctypes.CDLL("libcuda.so.1")

        def active(ordinal):
            device, flags, state = ctypes.c_int(), ctypes.c_uint(), ctypes.c_int()
            cuda.cuDeviceGet(ctypes.byref(device), ordinal)
            cuda.cuDevicePrimaryCtxGetState(device, ctypes.byref(flags), ctypes.byref(state))
            return state.value

        a = torch.randn(256, 512, device="cuda:1", dtype=torch.bfloat16)
        b = torch.randn(1024, 512, device="cuda:1", dtype=torch.bfloat16)
        c = torch.empty(256, 1024, device="cuda:1", dtype=torch.bfloat16)
        worker = threading.Thread(target=lambda: torch.mm(a, b.t(), out=c))  # PyTorch alone
        worker.start(); worker.join(); torch.cuda.synchronize(1)
        before = active(0)
        import tile
        tile.matmul(a, b, out=c, transpose_b=True)
        q = a[None, None, :, :128]
        tile.attention(q, q, q)
        tile.synchronize(device=1)
        worker = threading.Thread(target=lambda: (tile.matmul(a, b, out=c, transpose_b=True),
                                                  tile.synchronize(device=1)))
        worker.start(); worker.join()
        torch.cuda.synchronize(1)
        error = ((c.float() - a.float() @ b.float().t()).norm() / (a.float() @ b.float().t()).norm()).item()
        print(before, active(0), torch.cuda.current_device(), f"{{error:.1e}}")
    """)
    environment = dict(os.environ, TILE_TIMEOUT="60")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=environment, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    before, after, current, error = done.stdout.split()
    if before != "0":
        pytest.skip("PyTorch itself made a context on cuda:0")
    assert (after, current) == ("0", "1") and float(error) < 1e-2
