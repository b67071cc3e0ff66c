"""Helpers for examples, tests and benchmarks that run tile kernels next to
PyTorch: finding a usable GPU, timing with CUDA events, comparing results."""
from typing import Callable, Optional, Tuple


def cuda_torch() -> Tuple[Optional[object], Optional[str]]:
    """(torch, None) when PyTorch sees a CUDA GPU and libtile_runtime can use
    it, else (None, why not)."""
    try:
        import torch
    except ImportError:
        return None, "needs PyTorch"
    if not torch.cuda.is_available():
        return None, "needs a CUDA GPU"
    from .launch import Runtime
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


def relative_error(got, want) -> float:
    """‖got − want‖ / ‖want‖ in f32."""
    return ((got.float() - want.float()).norm() / want.float().norm()).item()
