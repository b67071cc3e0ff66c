"""Helpers for examples, tests, benchmarks and the autotuner that run tile
kernels next to PyTorch: finding a usable GPU, timing with CUDA events and
by device time (CUPTI), comparing results, and whether ptxas spills a
kernel."""
import json
import os
import re
import subprocess
import tempfile
from typing import Callable, Dict, List, Optional, Tuple


def cuda_torch() -> Tuple[Optional[object], Optional[str]]:
    """(torch, None) when PyTorch sees a CUDA GPU and libtile_runtime can use
    it, else (None, why not)."""
    try:
        import torch
    except ImportError:
        return None, "needs PyTorch"
    if not torch.cuda.is_available():
        return None, "needs a CUDA GPU"
    from .runtime import Runtime
    reason = Runtime.get().probe()
    return (None, reason) if reason else (torch, None)


def median_ms(run: Callable[[], object], runs: int = 20, warmup: int = 5,
              batched: bool = False) -> float:
    """Milliseconds per call of `run` (which launches GPU work on the current
    stream) after `warmup` calls: the median of `runs` calls timed one by
    one with CUDA events, or with `batched` the mean of `runs` back-to-back
    calls between two events (short kernels without launch gaps)."""
    import torch
    for _ in range(warmup):
        run()
    torch.cuda.synchronize()
    event = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
    if batched:
        start, end = event(), event()
        start.record()
        for _ in range(runs):
            run()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / runs
    times = []
    for _ in range(runs):
        start, end = event(), event()
        start.record()
        run()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def device_records(run: Callable[[], object], repeats: int, warmup: int = 3,
                   kinds: Tuple[str, ...] = ("kernel",)) -> Tuple[List[dict], float]:
    """CUPTI's records of the kinds `kinds` ("kernel", "gpu_memcpy",
    "gpu_memset": chrome-trace categories, each a dict with its "name" and
    "dur" in µs) of `repeats` back-to-back calls of `run` after `warmup`
    calls that finish first, so every record belongs to these calls; and
    the µs per call of CUDA events around the same calls."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    for _ in range(warmup):
        run()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        start.record()
        for _ in range(repeats):
            run()
        end.record()
        torch.cuda.synchronize()
    paired_us = start.elapsed_time(end) * 1e3 / repeats
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as trace:
            events = json.load(trace)["traceEvents"]
    return [e for e in events if e.get("cat") in kinds and e.get("ph") == "X"], paired_us


def kernel_us(run: Callable[[], object], repeats: int, warmup: int = 3,
              copies: bool = False) -> Tuple[float, Dict[str, float], float]:
    """Kernel time: (µs per call, {kernel name: launches per call}, paired
    user-path µs per call) from CUPTI's kernel records of `repeats`
    back-to-back calls of `run` after `warmup` calls that finish first
    (device_records); NaN when CUPTI recorded no kernel. The paired time is
    CUDA events around the same calls: its ratio to the kernel time is the
    launch gaps alone, whatever the GPU's clock did (host-bound calls pay
    CUPTI's small per-launch cost in it). With `copies`, CUPTI's memcpy
    records count as well (a device-to-device copy's time, the bandwidth
    baseline of memory-bound kernels)."""
    kernels, paired_us = device_records(run, repeats, warmup,
                                        ("kernel", "gpu_memcpy") if copies else ("kernel",))
    names: Dict[str, float] = {}
    for event in kernels:
        names[event["name"]] = names.get(event["name"], 0) + 1 / repeats
    total = sum(float(e["dur"]) for e in kernels)
    return (total / repeats if kernels else float("nan")), names, paired_us


def relative_error(got, want) -> float:
    """‖got − want‖ / ‖want‖ in f32 (‖want‖ at least 1e-30), of torch
    tensors or numpy arrays."""
    if hasattr(got, "float"):
        got, want = got.float(), want.float()
        return ((got - want).norm() / want.norm().clamp_min(1e-30)).item()
    import numpy
    got, want = numpy.asarray(got, numpy.float32), numpy.asarray(want, numpy.float32)
    return float(numpy.linalg.norm(got - want) / max(numpy.linalg.norm(want), 1e-30))


def quantize_fp8(x, block: Tuple[int, int], dtype=None):
    """(q, scales): the float matrix `x` (R x C, torch) in float8_e4m3fn (or
    `dtype`) with one float32 scale per `block` of rows x columns, so that
    x ~ q * scales expanded (scales: ceil(R / rows) x ceil(C / cols); each
    block's largest magnitude maps to the format's largest finite value).
    (1, C) gives row-wise scales, (R, C) one per tensor, (1, 128) and
    (128, 128) the block scales of tile.matmul's block-scaled FP8."""
    import torch
    dtype = dtype or torch.float8_e4m3fn
    rows, cols = block
    r, c = x.shape
    pad = (-r % rows, -c % cols)
    padded = torch.nn.functional.pad(x.float(), (0, pad[1], 0, pad[0]))
    blocks = padded.reshape(padded.shape[0] // rows, rows, padded.shape[1] // cols, cols)
    amax = blocks.abs().amax(dim=(1, 3)).clamp_min(1e-12)
    scales = amax / torch.finfo(dtype).max
    q = (blocks / scales[:, None, :, None]).reshape(padded.shape)[:r, :c].to(dtype)
    return q, scales.contiguous()


def dequantize_fp8(q, scales, block: Tuple[int, int]):
    """The float32 matrix q * scales expanded: the inverse of quantize_fp8
    with the same `block` (rows x columns per scale), e.g. the operand a
    block-scaled product is checked against."""
    rows, cols = block
    r, c = q.shape
    expanded = scales.repeat_interleave(rows, 0).repeat_interleave(cols, 1)[:r, :c]
    return q.float() * expanded


def ptxas_spills(ptxas: str, ptx: str, directory: str) -> Optional[str]:
    """None when `ptxas` assembles `ptx` for sm_90a and spills nothing in
    any of its kernels, else its report (an error, or the spill counts)."""
    source, binary = os.path.join(directory, "k.ptx"), os.path.join(directory, "k.cubin")
    with open(source, "w") as handle:
        handle.write(ptx)
    done = subprocess.run([ptxas, "-arch=sm_90a", "-v", source, "-o", binary],
                          capture_output=True, text=True)
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", done.stderr)
    if done.returncode == 0 and spills and all(s == ("0", "0") for s in spills):
        return None
    return done.stderr
