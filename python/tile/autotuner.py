"""Autotuning tile kernels: pick the fastest of a config space per key,
once, and remember it on disk.

    @tile.autotune(configs=[tile.Config(stages=s) for s in (4, 6, 8, 12)],
                   key=["x", "n"],                       # argument names
                   shared_bytes=lambda c: c["stages"] * 10240,
                   reference=lambda x, y, n: x * 2)      # checked once
    def scale(config, x, y, n):
        kernel = tile.compile(source(config["stages"])).kernel("scale")
        kernel(x, y, n, grid=(n // 256, 1, 1))
        return y

    scale(x, y, n)      # tunes on the first call of each key, then launches

As with `@triton.autotune`, the decorated function gets the chosen config
first; the key lists the arguments whose values select a config (a tensor
counts by shape and dtype), or is a function of the arguments returning a
hashable shape class. For each new key the tuner
  1. prunes configs before compiling anything: `shared_bytes(config)` over
     the device's opt-in shared memory per block, `registers(config)` (per
     thread) over 255 or, times `threads(config)`, over the 65536 of an SM,
     and `prune(config, *args, **kwargs)` returning False;
  2. runs each remaining config once — a config that fails to compile or to
     launch is dropped with its error — and, with `reference`, compares its
     result (the function's return value) to the reference's (relative error
     under `tolerance`, f32);
  3. times the survivors by device time (CUPTI kernel records of `repeats`
     back-to-back calls, tile.testing.kernel_us) and keeps the fastest.
The choice is cached in memory and in a JSON file per tuner under
$TILE_CACHE_DIR/autotune (default ~/.cache/tile/autotune), keyed by the
key, the config space, the card (name, SMs, compute capability) and the
tool version (tile-opt's), so a second process starts without tuning. The
card is that of the call's device: its first CUDA tensor's, else PyTorch's
current one (`device=` may give a function of that ordinal instead).
`tuner.last_report` lists what the last tuning measured or dropped.
"""
import functools
import hashlib
import inspect
import json
import math
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from .core import devices
from .core.errors import TileError
from .testing import kernel_us, relative_error
from .toolchain import cache_root, tool_version

#: Registers a thread may hold (sm_90) and an SM has.
MAX_THREAD_REGISTERS = 255
SM_REGISTERS = 65536


class Config:
    """One point of a config space: named parameters (`config["stages"]`)."""

    def __init__(self, **params):
        self._params = dict(sorted(params.items()))

    def __getitem__(self, name: str):
        return self._params[name]

    def get(self, name: str, default=None):
        return self._params.get(name, default)

    @property
    def params(self) -> Dict[str, object]:
        return dict(self._params)

    def __eq__(self, other) -> bool:
        return isinstance(other, Config) and self._params == other._params

    def __hash__(self) -> int:
        return hash(json.dumps(self._params, sort_keys=True, default=str))

    def __repr__(self) -> str:
        return "Config(" + ", ".join(f"{k}={v!r}" for k, v in self._params.items()) + ")"


@dataclass(frozen=True)
class DeviceInfo:
    """What a tuned choice is valid for: the card and its limits."""
    name: str
    sms: int
    capability: Tuple[int, int]
    shared_optin: Optional[int] = None

    @staticmethod
    def of(index: Optional[int] = None) -> "DeviceInfo":
        """The card of CUDA device `index` (default: PyTorch's current one)."""
        import torch
        props = torch.cuda.get_device_properties(
            torch.cuda.current_device() if index is None else index)
        return DeviceInfo(props.name, props.multi_processor_count, (props.major, props.minor),
                          getattr(props, "shared_memory_per_block_optin", None))


@dataclass
class Trial:
    """One config of a tuning: its device time (µs) or why it was dropped."""
    config: Config
    microseconds: Optional[float] = None
    dropped: Optional[str] = None


@dataclass
class Report:
    key: tuple
    trials: List[Trial] = field(default_factory=list)
    best: Optional[Config] = None


class AutotuneError(TileError, RuntimeError):
    """No config of the space survived pruning, compilation and the check."""


def _key_value(value):
    """An argument's contribution to a key: tensors by shape and dtype."""
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return (tuple(value.shape), str(value.dtype))
    if isinstance(value, (list, tuple)):
        return tuple(_key_value(v) for v in value)
    return value


def default_timer(run: Callable[[], object], repeats: int) -> float:
    """Device µs per call of `run` (CUPTI kernel records)."""
    return kernel_us(run, repeats)[0]


class Autotuner:
    """The callable that `autotune` makes of a function (see the module)."""

    def __init__(self, fn: Callable, configs: Sequence[Config],
                 key: Union[Sequence[str], Callable[..., object]], *,
                 prune: Optional[Callable[..., bool]] = None,
                 shared_bytes: Optional[Callable[[Config], int]] = None,
                 registers: Optional[Callable[[Config], int]] = None,
                 threads: Optional[Callable[[Config], int]] = None,
                 reference: Optional[Callable[..., object]] = None,
                 tolerance: float = 1e-2, repeats: int = 20, name: Optional[str] = None,
                 cache_dir: Optional[Union[str, os.PathLike]] = None,
                 device: Optional[Callable[[Optional[int]], DeviceInfo]] = None,
                 version: Optional[Callable[[], str]] = None,
                 timer: Callable[[Callable[[], object], int], float] = default_timer):
        if not configs:
            raise ValueError("autotune needs at least one config")
        self.fn, self.configs, self.key = fn, list(configs), key
        self.prune, self.shared_bytes, self.registers = prune, shared_bytes, registers
        self.threads, self.reference, self.tolerance = threads, reference, tolerance
        self.repeats, self.timer = repeats, timer
        self.name = name or f"{fn.__module__}.{fn.__qualname__}"
        self._cache_dir = cache_dir
        self._device = _device_function(device) if device else DeviceInfo.of
        self._version = version or tool_version
        self._signature = inspect.signature(fn)
        self._chosen: Dict[tuple, Config] = {}
        self._lock = threading.Lock()
        self.tunings = 0  # tunings this process ran (a cache hit runs none)
        self.last_report: Optional[Report] = None
        functools.update_wrapper(self, fn)

    # --- keys and the disk cache ---------------------------------------------

    def key_of(self, *args, **kwargs) -> tuple:
        """The key of a call (without the config argument)."""
        if callable(self.key):
            value = self.key(*args, **kwargs)
            return tuple(value) if isinstance(value, (list, tuple)) else (value,)
        bound = self._signature.bind(None, *args, **kwargs)
        bound.apply_defaults()
        return tuple(_key_value(bound.arguments[name]) for name in self.key)

    def space_hash(self) -> str:
        text = json.dumps([c.params for c in self.configs], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def cache_path(self) -> Path:
        root = Path(self._cache_dir) if self._cache_dir else cache_root() / "autotune"
        safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in self.name)
        return root / f"{safe}.json"

    def cache_key(self, key: tuple, device: DeviceInfo) -> str:
        """The disk cache's key: the call's key, the config space, the card
        and the tool version."""
        return json.dumps({"key": key, "space": self.space_hash(), "card": device.name,
                           "sms": device.sms, "capability": list(device.capability),
                           "version": hashlib.sha256(self._version().encode()).hexdigest()[:16]},
                          sort_keys=True, default=str)

    def _load(self, cache_key: str) -> Optional[Config]:
        try:
            entries = json.loads(self.cache_path().read_text())
        except (OSError, ValueError):
            return None
        params = entries.get(cache_key, {}).get("config")
        if params is None:
            return None
        config = Config(**params)
        return config if config in self.configs else None

    def _store(self, cache_key: str, report: Report) -> None:
        path = self.cache_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            entries = json.loads(path.read_text())
        except (OSError, ValueError):
            entries = {}
        entries[cache_key] = {
            "config": report.best.params,
            "trials": [{"config": t.config.params, "us": t.microseconds, "dropped": t.dropped}
                       for t in report.trials]}
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(entries, indent=1, sort_keys=True))
        os.replace(temporary, path)  # atomic: concurrent processes never read half a file

    # --- pruning, checking, timing -------------------------------------------

    def why_pruned(self, config: Config, device: DeviceInfo, *args, **kwargs) -> Optional[str]:
        """Why `config` cannot run (before anything compiles), or None."""
        if self.shared_bytes is not None and device.shared_optin is not None:
            needed = self.shared_bytes(config)
            if needed > device.shared_optin:
                return (f"needs {needed} bytes of shared memory, the device gives a block "
                        f"at most {device.shared_optin}")
        if self.registers is not None:
            registers = self.registers(config)
            if registers > MAX_THREAD_REGISTERS:
                return f"needs {registers} registers a thread, at most {MAX_THREAD_REGISTERS}"
            threads = self.threads(config) if self.threads is not None else None
            if threads is not None and registers * threads > SM_REGISTERS:
                return (f"needs {registers} x {threads} registers, an SM has "
                        f"{SM_REGISTERS}")
        if self.prune is not None and not self.prune(config, *args, **kwargs):
            return "pruned"
        return None

    def tune(self, *args, **kwargs) -> Report:
        """Measures the config space for the call's key (ignoring caches).
        Tuning is synchronous: it first waits for the device, so operands
        produced on any stream are complete, and runs on the current one."""
        index = _call_device(args, kwargs)
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_initialized():
            torch.cuda.synchronize(index)
        device = self._device(index)
        report = Report(self.key_of(*args, **kwargs))
        expected = self.reference(*args, **kwargs) if self.reference is not None else None
        for config in self.configs:
            trial = Trial(config)
            report.trials.append(trial)
            trial.dropped = self.why_pruned(config, device, *args, **kwargs)
            if trial.dropped:
                continue
            try:
                result = self.fn(config, *args, **kwargs)
                if expected is not None:
                    error = relative_error(result, expected)
                    if not error < self.tolerance:
                        trial.dropped = (f"wrong result: relative error {error:.2e} against the "
                                         f"reference (tolerance {self.tolerance:g})")
                        continue
                microseconds = self.timer(lambda: self.fn(config, *args, **kwargs),
                                          self.repeats)
                if not math.isfinite(microseconds):
                    trial.dropped = "no device time recorded (CUPTI saw no kernel)"
                    continue
                trial.microseconds = microseconds
            except Exception as error:  # noqa: BLE001 - a config that fails is dropped
                first_line = (str(error).splitlines() or [""])[0]
                trial.dropped = f"{type(error).__name__}: {first_line}"
        timed = [t for t in report.trials if t.microseconds is not None]
        if not timed:
            reasons = "; ".join(f"{t.config}: {t.dropped}" for t in report.trials)
            raise AutotuneError(f"autotune {self.name}: no config runs {report.key}: {reasons}")
        report.best = min(timed, key=lambda t: t.microseconds).config
        self.tunings += 1
        self.last_report = report
        return report

    def best_config(self, *args, **kwargs) -> Config:
        """The config for this call: from memory, the disk cache, or tuning."""
        index = _call_device(args, kwargs)
        key = (index, self.key_of(*args, **kwargs))
        config = self._chosen.get(key)
        if config is not None:
            return config
        with self._lock:
            if key in self._chosen:
                return self._chosen[key]
            device = self._device(index)
            cache_key = self.cache_key(key[1], device)
            config = self._load(cache_key)
            if config is None:
                report = self.tune(*args, **kwargs)
                config = report.best
                self._store(cache_key, report)
            self._chosen[key] = config
            return config

    def __call__(self, *args, **kwargs):
        return self.fn(self.best_config(*args, **kwargs), *args, **kwargs)


def _device_function(device: Callable) -> Callable[[Optional[int]], DeviceInfo]:
    """`device` as a function of the call's device ordinal (a function of no
    arguments, as earlier versions took, ignores it)."""
    try:
        takes_none = not inspect.signature(device).parameters
    except (TypeError, ValueError):
        takes_none = False
    return (lambda index: device()) if takes_none else device


def _call_device(args, kwargs) -> Optional[int]:
    """The device of a call (choices are per card): that of its first CUDA
    tensor, else PyTorch's current one (None before PyTorch uses CUDA)."""
    for value in list(args) + list(kwargs.values()):
        if getattr(value, "is_cuda", False) and hasattr(value, "get_device"):
            return value.get_device()
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_initialized():
        return None
    return devices.current_index()


def autotune(configs: Iterable[Config], key, **options) -> Callable[[Callable], Autotuner]:
    """Decorator: see the module and Autotuner's options."""
    configs = list(configs)
    return lambda fn: Autotuner(fn, configs, key, **options)
