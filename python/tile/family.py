"""KernelFamily: one product kernel source and its compiled variants.

A family is a source of tile IR (a file of the package's kernels, or a
generator) whose variants differ in a key: the element types its aliases
name (`!e = f16`), or a generator's config. Each variant compiles once
(tile.compile's disk cache keeps it across processes); its kernels load on
each device they run on (tile.launch.Kernel). Every op of tile.ops gets its
kernels, their manifests and their shared memory from a family.
"""
import threading
from typing import Callable, Dict, Hashable, Optional, Sequence, Tuple

from .compiler import CompiledModule, compile as compile_ir, redefine_aliases
from .launch import Kernel
from .toolchain import read_kernel


class KernelFamily:
    """Variants of one kernel source.

    `source(variant)` gives a variant's IR; `options` are the pipeline
    options every variant compiles with (e.g. {"index-bitwidth": 32});
    `chip` the target."""

    def __init__(self, name: str, source: Callable[[Hashable], str],
                 options: Optional[Dict[str, object]] = None, chip: str = "sm_90a"):
        self.name = name
        self._source = source
        self.options = dict(options or {})
        self.chip = chip
        self._modules: Dict[Hashable, CompiledModule] = {}
        self._kernels: Dict[Tuple[Hashable, str], Kernel] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_package(cls, file: str, aliases: Sequence[str],
                     options: Optional[Dict[str, object]] = None,
                     chip: str = "sm_90a") -> "KernelFamily":
        """The family of the package's kernel source `file` whose variants
        redefine its element-type `aliases` (in order: a variant is a tuple
        of element types, e.g. ("bf16",))."""
        def source(variant: Tuple[str, ...]) -> str:
            if len(variant) != len(aliases):
                raise ValueError(f"{file}: a variant names {len(aliases)} element types "
                                 f"({', '.join(aliases)}), got {variant}")
            return redefine_aliases(read_kernel(file), dict(zip(aliases, variant)))
        return cls(file, source, options, chip)

    def source(self, variant: Hashable) -> str:
        """The IR of `variant`."""
        return self._source(variant)

    def module(self, variant: Hashable) -> CompiledModule:
        """`variant` compiled (once per process; on disk across them)."""
        module = self._modules.get(variant)
        if module is None:
            with self._lock:
                module = self._modules.get(variant)
                if module is None:
                    module = self._modules[variant] = compile_ir(
                        self.source(variant), chip=self.chip, options=self.options)
        return module

    def manifest(self, variant: Hashable, kernel: str) -> dict:
        """The manifest entry of `kernel` in `variant`."""
        return self.module(variant).manifest["kernels"][kernel]

    def shared_bytes(self, variant: Hashable, kernel: str) -> int:
        """The dynamic shared memory `kernel` of `variant` launches with."""
        return self.manifest(variant, kernel)["dynamic_shared_bytes"]

    def kernel(self, variant: Hashable, name: str) -> Kernel:
        """The kernel `name` of `variant`, launchable on every device."""
        key = (variant, name)
        kernel = self._kernels.get(key)
        if kernel is None:
            kernel = self._kernels[key] = self.module(variant).kernel(name)
        return kernel
