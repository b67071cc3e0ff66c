"""Shared by the Python benchmarks (bench/gemm.py, bench/launch_overhead.py,
bench/launch_soak.py, ...): the GPU report, the examples' kernels and launch
configurations, the two timings, a memory-bound op's row against a copy
(bench/rms_norm.py, bench/rope.py) and the process's resident memory.

The two timings of a callable `run` that enqueues GPU work on PyTorch's
current stream:
  - kernel time (`kernel_us`, from tile.testing): CUPTI's records of the kernels that R
    back-to-back calls launched (torch.profiler, CUDA activity only), summed
    and divided by R: the GPU's time, without launch gaps or host cost;
  - user path (`user_us`): CUDA events around R back-to-back calls, divided
    by R, and the median of R calls each between two events: what a Python
    user observes, host launch cost and gaps included.
Not a script: the others import it (their directory is on sys.path)."""
import csv
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import tile  # noqa: E402
from tile.compiler import redefine_aliases  # noqa: E402
from tile.testing import cuda_torch, device_records, kernel_us, median_ms  # noqa: E402,F401

DTYPES = ("f16", "bf16")
SM80_SMEM = 65536      # examples/hgemm_sm80.mlir @run: the staged C tile


def length(text: str) -> int:
    """A sequence length or token count from the command line: 4096, or 4k
    for 4096."""
    return int(text[:-1]) * 1024 if text.lower().endswith("k") else int(text)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def torch_or_exit(script: str):
    """torch, when it sees a CUDA GPU that libtile_runtime can use; else exits."""
    torch, reason = cuda_torch()
    if torch is None:
        sys.exit(f"{script}: {reason}")
    return torch


def describe_device() -> None:
    """Prints the GPU (PyTorch's view and nvidia-smi's: name, driver, clocks)."""
    import torch
    p = torch.cuda.get_device_properties(0)
    print(f"GPU: {torch.cuda.get_device_name(0)} (sm_{p.major}{p.minor}, "
          f"{p.multi_processor_count} SMs, {p.total_memory / 2**30:.0f} GiB); "
          f"torch {torch.__version__}, CUDA {torch.version.cuda}")
    query = "name,driver_version,clocks.max.sm,clocks.sm,power.limit"
    try:
        smi = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        print(f"nvidia-smi ({query}): {(smi.stdout or smi.stderr).strip()}")
    except (OSError, subprocess.TimeoutExpired) as error:
        print(f"nvidia-smi: {error}")


def example_source(name: str, type_: str = "f16") -> str:
    """The text of a GEMM kernel, examples/<name>.mlir or the package's
    kernels/<name>.mlir, with its element type alias !e = `type_`."""
    path = ROOT / "examples" / f"{name}.mlir"
    if not path.is_file():
        path = ROOT / "python" / "tile" / "kernels" / f"{name}.mlir"
    text = path.read_text()
    if "\n!e = " not in text:
        if type_ != "f16":
            raise ValueError(f"{path.name} has no element type alias !e: it is f16 only")
        return text
    return redefine_aliases(text, {"!e": type_})


def compile_example(name: str, type_: str = "f16", **options):
    """example_source(name, type_) compiled for sm_90a."""
    return tile.compile(example_source(name, type_), chip="sm_90a", **options)


def sms() -> int:
    import torch
    return torch.cuda.get_device_properties(0).multi_processor_count


# Launch configurations, as the examples' @run functions choose them (the
# persistent grids take the SM count where @run hard-codes an H100's 132).
def sm90_launch(m: int, n: int, k: int) -> dict:
    """@gemm_nt / @gemm_nn as written (128x256 tiles): tile.matmul's
    persistent grid for those tiles (at most one CTA per SM, whatever width
    tile.matmul itself would pick); block and shared memory from the
    manifest."""
    from tile.ops.persistent import TILE, persistent_grid
    return dict(grid=(persistent_grid(m, n, k, sms(), TILE[1]), 1, 1))


_SM90_BUFFERS = []


def sm90_buffers() -> tuple:
    """@gemm_nt / @gemm_nn's workspace and counters (zero) for split tiles,
    for one CTA per SM and any schedule of tile.work_unit (stream_k needs
    the most: grid + grid / 2 tiles of two 64-row halves with two slots of
    128 rows, T-TILE-7), allocated once."""
    if not _SM90_BUFFERS:
        import torch
        grid = sms()
        rows, columns, counters = (grid + grid // 2) * 2 * 2 * 128, 128, (grid + grid // 2) * 2
        _SM90_BUFFERS.extend([torch.empty((rows, columns), device="cuda", dtype=torch.float32),
                              torch.zeros(counters, device="cuda", dtype=torch.int32)])
    return tuple(_SM90_BUFFERS)


def sm90_extras(c) -> tuple:
    """@gemm_nt / @gemm_nn's arguments after M, N and K, none of them read
    as written but the split-K buffers (sm90_buffers): C stands in for the
    epilogue's bias and residual, and an FP8 C's scale and amax are
    placeholders; C's rows (for a variant that stores C without TMA) are
    C's."""
    import torch
    unread = torch.zeros(1, device=c.device, dtype=torch.float32)
    return sm90_buffers() + (c, c, unread, unread.view(torch.int32), c)


def multicast_launch(m: int, n: int) -> dict:
    """examples/gemm_sm90_multicast.mlir @gemm: 2x1 clusters on pairs of row tiles."""
    clusters = min(cdiv(m, 256) * cdiv(n, 256), sms() // 2)
    return dict(grid=(2 * clusters, 1, 1), cluster=(2, 1, 1))


def sm80_launch(m: int, n: int) -> dict:
    """examples/hgemm_sm80.mlir: one 128x128 tile per CTA, 4 warps."""
    return dict(grid=(cdiv(n, 128), cdiv(m, 128), 1), block=(128, 1, 1), shared=SM80_SMEM)


def user_us(run: Callable[[], object], repeats: int, warmup: int = 3) -> Tuple[float, float]:
    """User path: (mean µs per call of `repeats` back-to-back calls between
    two CUDA events, median µs of `repeats` calls each between two events)."""
    batched = median_ms(run, runs=repeats, warmup=warmup, batched=True)
    single = median_ms(run, runs=repeats, warmup=0)
    return batched * 1e3, single * 1e3


def rotated_kernel_us(sides: Sequence[Callable[[], object]], rounds: int,
                      repeats: int, copies: bool = False) -> List[float]:
    """Kernel time (kernel_us) of each side: the median of `rounds` rounds
    that time every side, each round starting one side later — the
    power-limited clock drifts between measurements seconds apart, and each
    side then goes first as often as the others. `copies`: memcpy records
    count too (kernel_us)."""
    times: List[List[float]] = [[] for _ in sides]
    for round_ in range(max(1, rounds)):
        for i in range(len(sides)):
            side = (round_ + i) % len(sides)
            times[side].append(kernel_us(sides[side], repeats, copies=copies)[0])
    return [statistics.median(t) for t in times]


def kernel_breakdown(run: Callable[[], object], repeats: int, warmup: int = 2) -> Dict[str, float]:
    """µs per call of each kernel (by name) that `repeats` back-to-back calls
    of `run` launch, from CUPTI (tile.testing.device_records), largest
    first: where a layer's time goes."""
    times: Dict[str, float] = {}
    for event in device_records(run, repeats, warmup)[0]:
        times[event["name"]] = times.get(event["name"], 0.0) + float(event["dur"]) / repeats
    return dict(sorted(times.items(), key=lambda item: -item[1]))


#: The columns memory_bound_line prints after a case's label.
MEMORY_BOUND_HEADER = (f"{'tile us':>8s} {'torch us':>9s} {'copy us':>8s} {'tile GB/s':>10s} "
                       f"{'torch GB/s':>10s} {'copy GB/s':>10s} {'tile/copy':>9s} "
                       f"{'torch/copy':>10s} {'tile user':>10s} {'torch user':>10s}")


def memory_bound_row(torch, tile_side: Callable[[], object], torch_side: Callable[[], object],
                     moved: int, rounds: int, repeats: int) -> Dict[str, float]:
    """A memory-bound op's timings: tile's and torch's kernel time against a
    device-to-device copy of the `moved` bytes tile's kernel reads and
    writes (rotated_kernel_us, the copy's memcpy records counting), each
    side's GB/s (of `moved`) and fraction of the copy's bandwidth, and both
    user paths (user_us)."""
    src = torch.empty(moved // 4, device="cuda", dtype=torch.float16)
    dst = torch.empty_like(src)
    sides = {"tile": tile_side, "torch": torch_side, "copy": lambda: dst.copy_(src)}
    kernel = dict(zip(sides, rotated_kernel_us(list(sides.values()), rounds, repeats,
                                               copies=True)))
    row: Dict[str, float] = {"bytes": moved}
    row.update({f"{name}_us": round(us, 2) for name, us in kernel.items()})
    row.update({f"{name}_GBps": round(moved / us / 1e3, 1) for name, us in kernel.items()})
    for name in ("tile", "torch"):
        row[f"{name}_of_copy"] = round(kernel["copy"] / kernel[name], 3)
    for name in ("tile", "torch"):
        row[f"{name}_user_us"] = round(user_us(sides[name], repeats)[0], 2)
    return row


def memory_bound_line(row: Dict[str, float]) -> str:
    """memory_bound_row's figures, in MEMORY_BOUND_HEADER's columns."""
    return (f"{row['tile_us']:8.1f} {row['torch_us']:9.1f} {row['copy_us']:8.1f} "
            f"{row['tile_GBps']:10.0f} {row['torch_GBps']:10.0f} {row['copy_GBps']:10.0f} "
            f"{row['tile_of_copy']:9.3f} {row['torch_of_copy']:10.3f} "
            f"{row['tile_user_us']:10.1f} {row['torch_user_us']:10.1f}")


def mixed_lengths(torch, count: int = 16) -> List[int]:
    """The attention benches' packed batch of mixed lengths: `count`
    sequences of 64 .. 4096 tokens, seeded (the same on every run)."""
    generator = torch.Generator(device="cpu").manual_seed(7)
    return torch.randint(64, 4097, (count,), generator=generator).tolist()


def packed_offsets(torch, lengths: Sequence[int]):
    """cu_seqlens of `lengths`: int32 on the GPU, B + 1 entries from 0."""
    ends = [0]
    for n in lengths:
        ends.append(ends[-1] + n)
    return torch.tensor(ends, device="cuda", dtype=torch.int32)


def within_sdpa_error(error: float, sdpa_error: float) -> bool:
    """Whether an attention kernel's max abs error against a float32
    reference passes as right: at most twice SDPA's on the same problem (or
    2e-3); NaN does not."""
    return error <= max(2 * sdpa_error, 2e-3)


def capture_graph(torch, run: Callable[[], object]):
    """A CUDA graph of one call of `run`: warmed up on a side stream (three
    calls), then captured on that stream (tile keeps split-K workspaces per
    stream: the warm-up makes them before the capture)."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            run()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        run()
    torch.cuda.synchronize()
    return graph


def write_csv(rows: List[Dict[str, object]], path: str) -> None:
    """The rows as a CSV file with a header: every key of any row, in the
    order they first appear (a row without one leaves its cell empty)."""
    if not rows:
        return
    fields = list(dict.fromkeys(key for row in rows for key in row))
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    print(f"csv: {path}")


def ratio_plot(rows: List[Dict[str, object]], path: str, title: str,
               series: Dict[str, Callable[[Dict[str, object]], float]],
               ylabel: str = "their time / tile time (kernel)") -> None:
    """A bar chart of ratios, one group of bars per row (labelled by its
    "case"), one bar per series (label -> ratio of a row), a line at 1."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(figsize=(max(6, len(rows) * 0.8), 4))
    width = 0.8 / len(series)
    for s, (label, ratio) in enumerate(series.items()):
        offset = (s - (len(series) - 1) / 2) * width
        axes.bar([x + offset for x in range(len(rows))], [ratio(r) for r in rows],
                 width=width, label=label)
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.set_xticks(list(range(len(rows))))
    axes.set_xticklabels([r["case"] for r in rows], rotation=45, ha="right", fontsize=7)
    axes.set_ylabel(ylabel)
    axes.set_title(title, fontsize=9)
    axes.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def driver_memory():
    """(free, total) device bytes from libtile_runtime's tileRtMemoryInfo
    (cuMemGetInfo in the runtime's context), or None where it lacks it."""
    from tile.runtime import Runtime
    try:
        return Runtime.get().memory_info()
    except tile.TileRuntimeError:
        return None


def rss_bytes() -> int:
    """The process's resident set (VmRSS of /proc/self/status)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0
