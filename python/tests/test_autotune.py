"""tile.autotune: pruning before compiling, the correctness check, the
choice, the cache keys and the disk cache across processes (a fake timer and
device on the CPU), and tile.matmul's decode tuner on the GPU."""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tile.autotuner import AutotuneError, Autotuner, Config, DeviceInfo

H100 = DeviceInfo("NVIDIA H100 80GB HBM3", 132, (9, 0), 232448)
H200 = DeviceInfo("NVIDIA H200", 132, (9, 0), 232448)
PYTHON = Path(__file__).resolve().parents[1]


def make_tuner(tmp_path, calls, times, device=H100, version="tile-opt 1", **options):
    """A tuner of a fake kernel: `calls` records (config, n) of each run;
    `times[stages]` is the device time the fake timer reports."""
    def kernel(config, x, n):
        calls.append((config["stages"], n))
        return [2.0 * v for v in x]

    def timer(run, repeats):
        run()
        return times[calls[-1][0]]

    return Autotuner(kernel, [Config(stages=s) for s in (2, 4, 8, 16)], key=["n"],
                     cache_dir=tmp_path, device=lambda index: device, version=lambda: version,
                     timer=timer, name="fake", **options)


def test_the_fastest_config_wins_and_is_remembered(tmp_path):
    calls = []
    tuner = make_tuner(tmp_path, calls, {2: 9.0, 4: 3.0, 8: 5.0, 16: 7.0})
    assert tuner([1.0], 64) == [2.0]
    assert tuner.best_config([1.0], 64) == Config(stages=4)
    assert tuner.tunings == 1
    assert [t.microseconds for t in tuner.last_report.trials] == [9.0, 3.0, 5.0, 7.0]
    count = len(calls)
    tuner([3.0], 64)  # same key: no tuning, one launch
    assert tuner.tunings == 1 and calls[count:] == [(4, 64)]
    tuner([3.0], 128)  # a new key tunes again
    assert tuner.tunings == 2


def test_pruning_happens_before_anything_runs(tmp_path):
    calls = []
    tuner = make_tuner(tmp_path, calls, {2: 9.0, 4: 3.0, 8: 5.0, 16: 1.0},
                       shared_bytes=lambda c: c["stages"] * 20000,
                       registers=lambda c: 64 if c["stages"] < 8 else 300,
                       threads=lambda c: 256,
                       prune=lambda c, x, n: c["stages"] != 2)
    report = tuner.tune([1.0], 64)
    dropped = {t.config["stages"]: t.dropped for t in report.trials}
    assert dropped[2] == "pruned"
    assert dropped[8] == "needs 300 registers a thread, at most 255"
    assert dropped[16] == ("needs 320000 bytes of shared memory, the device gives a block at "
                           "most 232448")
    assert report.best == Config(stages=4)
    assert {stages for stages, _ in calls} == {4}
    # Registers over the SM's 65536: 128 x 1024 threads.
    tight = make_tuner(tmp_path, [], {2: 1.0, 4: 1.0, 8: 1.0, 16: 1.0},
                       registers=lambda c: 128, threads=lambda c: 1024)
    assert tight.why_pruned(Config(stages=2), H100, [1.0], 8) == \
        "needs 128 x 1024 registers, an SM has 65536"


def test_wrong_or_failing_configs_are_dropped(tmp_path):
    def kernel(config, x, n):
        if config["stages"] == 16:
            raise RuntimeError("ptxas: too many resources\nmore")
        return [v * (3.0 if config["stages"] == 2 else 2.0) for v in x]

    tuner = Autotuner(kernel, [Config(stages=s) for s in (2, 4, 16)], key=["n"],
                      reference=lambda x, n: [2.0 * v for v in x], cache_dir=tmp_path,
                      device=lambda index: H100, version=lambda: "v", timer=lambda run, r: 1.0)
    report = tuner.tune([1.0, 2.0], 8)
    dropped = [t.dropped for t in report.trials]
    assert dropped[0].startswith("wrong result: relative error 5.00e-01")
    assert dropped[1] is None
    assert dropped[2] == "RuntimeError: ptxas: too many resources"
    # No device time (CUPTI saw no kernel) and an exception without a message.
    def silent(config, x, n):
        if config["stages"] == 2:
            raise AssertionError()
        return x

    blind = Autotuner(silent, [Config(stages=s) for s in (2, 4)], key=["n"], cache_dir=tmp_path,
                      device=lambda index: H100, version=lambda: "v",
                      timer=lambda run, r: float("nan"))
    with pytest.raises(AutotuneError, match=r"Config\(stages=2\): AssertionError: ; "
                                            r"Config\(stages=4\): no device time recorded"):
        blind.tune([1.0], 8)
    nothing = Autotuner(kernel, [Config(stages=16)], key=["n"], cache_dir=tmp_path,
                        device=lambda index: H100, version=lambda: "v", timer=lambda run, r: 1.0)
    with pytest.raises(AutotuneError, match=r"no config runs \(8,\): Config\(stages=16\): "
                                            "RuntimeError: ptxas"):
        nothing.tune([1.0], 8)


def test_cache_keys_name_the_key_space_card_and_version(tmp_path):
    tuner = make_tuner(tmp_path, [], {})
    key = json.loads(tuner.cache_key((64,), H100))
    assert key["key"] == [64] and key["card"] == H100.name and key["sms"] == 132
    assert key["capability"] == [9, 0]
    others = [tuner.cache_key((128,), H100), tuner.cache_key((64,), H200),
              make_tuner(tmp_path, [], {}, version="tile-opt 2").cache_key((64,), H100)]
    assert len({tuner.cache_key((64,), H100), *others}) == 4
    smaller = Autotuner(lambda c, x, n: x, [Config(stages=2)], key=["n"], cache_dir=tmp_path,
                        device=lambda index: H100, version=lambda: "tile-opt 1", name="fake")
    assert smaller.cache_key((64,), H100) != tuner.cache_key((64,), H100)  # another space
    # Tensors count by shape and dtype; a key function gives shape classes.
    class Tensor:
        shape, dtype = (16, 4096), "torch.float16"
    shaped = Autotuner(lambda c, a, n: a, [Config(s=1)], key=["a"], cache_dir=tmp_path)
    assert shaped.key_of(Tensor(), 3) == (((16, 4096), "torch.float16"),)
    bucketed = Autotuner(lambda c, a, n: a, [Config(s=1)], key=lambda a, n: (n // 64 * 64,),
                         cache_dir=tmp_path)
    assert bucketed.key_of(None, 100) == (64,)


def test_a_second_process_starts_without_tuning(tmp_path):
    """The choice is on disk: a fresh interpreter reuses it (and tunes again
    on another card)."""
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(PYTHON)!r})
        from tile.autotuner import Autotuner, Config, DeviceInfo
        card = sys.argv[1]
        tuner = Autotuner(lambda c, x, n: x, [Config(stages=s) for s in (2, 4, 8)], key=["n"],
                          cache_dir={str(tmp_path)!r}, name="fake",
                          device=lambda index: DeviceInfo(card, 132, (9, 0), 232448),
                          version=lambda: "v", timer=lambda run, r: 1.0)
        tuner([1.0], 64)
        print(tuner.tunings, tuner.best_config([1.0], 64)["stages"])
    """)
    run = lambda card: subprocess.run([sys.executable, "-c", script, card], check=True,  # noqa: E731
                                      capture_output=True, text=True).stdout.split()
    assert run("H100") == ["1", "2"]
    assert run("H100") == ["0", "2"]
    assert run("H200") == ["1", "2"]
    entries = json.loads((tmp_path / "fake.json").read_text())
    assert len(entries) == 2
    assert all(len(entry["trials"]) == 3 for entry in entries.values())


# --- On the GPU --------------------------------------------------------------

def test_matmul_tunes_decode_shapes_once(torch_cuda, tmp_path, monkeypatch):
    """tile.matmul(..., tune=True): the decode tuner times the ring depths of
    the shape's wgmma n, checks them against torch, and the choice runs."""
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    from tile.ops import decode
    tuner = decode.decode_tuner()
    monkeypatch.setattr(tuner, "_cache_dir", tmp_path)
    monkeypatch.setattr(tuner, "_chosen", {})
    a = torch.randn(5, 1024, device="cuda", dtype=torch.float16)
    b = torch.randn(2048, 1024, device="cuda", dtype=torch.float16)
    before = tuner.tunings
    c = tile.matmul(a, b, transpose_b=True, tune=True)
    torch.cuda.synchronize()
    assert tuner.tunings == before + 1
    report = tuner.last_report
    timed = [t for t in report.trials if t.microseconds is not None]
    assert {t.config["rows"] for t in timed} == {8}
    # 32 tiles: 1, 2 and 4 splits keep one wave (8 would need 256 CTAs).
    assert {t.config["splits"] for t in timed} == {1, 2, 4}
    assert len(timed) == len(decode.TUNE_STAGES) * len(decode.TUNE_SPANS) * 3
    assert relative_error(c, a.float() @ b.float().t()) < 1e-2
    tile.matmul(a, b, transpose_b=True, tune=True)
    assert tuner.tunings == before + 1
    assert (tmp_path / "tile.matmul.decode.json").is_file()


def test_autotune_a_users_kernel(torch_cuda, tmp_path):
    """A user's kernel (y = 2 x, built in Python) tuned over its block size:
    each config compiles, runs, matches the reference and is timed; one that
    would need too much shared memory is pruned before compiling; a second
    tuner on the same cache reuses the choice without tuning."""
    import tile
    from tile.builder import Module, memref
    torch = torch_cuda
    compiled = []

    def double(config, x, y, n):
        threads = config["threads"]
        module = Module()
        with module.kernel("double", x=memref("?", "f32"), y=memref("?", "f32"), n="index",
                           block=(threads, 1, 1)) as k:
            i = k.block_id() * threads + k.thread_id()
            with k.if_(i.lt(k.arg("n"))):
                k.store(k.load(k.arg("x"), [i]) * 2.0, k.arg("y"), [i])
        compiled.append(threads)
        module.compile(chip="sm_90a").kernel("double")(x, y, n, grid=(-(-n // threads), 1, 1))
        return y

    def make():
        return tile.autotune(
            configs=[tile.Config(threads=t, smem=s) for t, s in ((128, 0), (256, 0),
                                                                  (512, 1 << 20))],
            key=["n"], shared_bytes=lambda c: c["smem"],
            reference=lambda x, y, n: 2 * x, cache_dir=tmp_path, name="user-double")(double)

    tuner = make()
    x = torch.randn(1 << 20, device="cuda")
    y = torch.empty_like(x)
    tuner(x, y, x.numel())
    torch.cuda.synchronize()
    report = tuner.last_report
    assert [t.config["threads"] for t in report.trials if t.microseconds] == [128, 256]
    assert report.trials[2].dropped.startswith("needs 1048576 bytes of shared memory")
    assert 512 not in compiled
    assert torch.equal(y, 2 * x)
    again = make()
    again(x, y, x.numel())
    assert again.tunings == 0 and again.best_config(x, y, x.numel()) == report.best
