"""Bounded caches: the least recently used entry goes first."""
from collections import OrderedDict
from typing import Callable, Hashable, Optional

from . import streams


class LruCache:
    """At most `entries` values by key, made on a miss."""

    def __init__(self, entries: int):
        self.entries = entries
        self._values: "OrderedDict[Hashable, object]" = OrderedDict()

    def get(self, key: Optional[Hashable], make: Callable[[], object]):
        """The value of `key`, made by `make()` on a miss (and not kept when
        `key` is None)."""
        if key is None:
            return make()
        values = self._values
        value = values.get(key)
        if value is not None:
            values.move_to_end(key)
            return value
        value = values[key] = make()
        while len(values) > self.entries:
            values.popitem(last=False)
        return value

    def put(self, key: Hashable, value) -> None:
        """Keeps `value` for `key` (the most recent), replacing any."""
        self._values.pop(key, None)
        self._values[key] = value
        while len(self._values) > self.entries:
            self._values.popitem(last=False)

    def peek(self, key: Hashable):
        """The value of `key` (now the most recent) or None, making nothing
        on a miss (a hot path's lookup)."""
        values = self._values
        value = values.get(key)
        if value is not None:
            values.move_to_end(key)
        return value

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key) -> bool:
        return key in self._values

    def clear(self) -> None:
        self._values.clear()


class PreparedCalls:
    """An op's prepared call shapes: by a key of the call (its tensors'
    signatures and options), the device, the output's shape and the
    launches prepared for it by stream (Kernel.prepare), at most
    `entries` keys, most recent last."""

    def __init__(self, entries: int = 256):
        self._calls = LruCache(entries)

    def find(self, key: Optional[Hashable], stream):
        """(launch, device, out's shape) of a call like an earlier one on
        `stream` (None: the current one), or None."""
        found = self._calls.peek(key) if key is not None else None
        if found is None:
            return None
        index, shape, launches = found
        launch = launches.get(streams.stream_handle(stream, index) or 0)
        return None if launch is None else (launch, index, shape)

    def keep(self, key: Hashable, index: int, shape, stream, launch) -> None:
        """Keeps `launch` for calls like this one on `stream` (nothing for
        a None key)."""
        if key is None:
            return
        _, _, launches = self._calls.get(key, lambda: (index, shape, {}))
        launches[streams.stream_handle(stream, index) or 0] = launch

    def __len__(self) -> int:
        return len(self._calls)

    def clear(self) -> None:
        self._calls.clear()


#: Placeholders for the parameters a call does not use (the packed output
#: rows and cu_seqlens of attention_varlen, say), per (device, dtype).
_PLACEHOLDERS = {}


def placeholders(torch, device, dtype):
    """((1, 8), (4,)) zero tensors of `dtype` that stand for parameters a
    launch does not use: the packed output rows and cu_seqlens (int32) of
    a call that is not attention_varlen, a contiguous cache's block table
    (int32), the decode workspace (float32) of a call that writes out
    directly, the bias and residual of a GEMM without them."""
    key = (device, dtype)
    value = _PLACEHOLDERS.get(key)
    if value is None:
        value = _PLACEHOLDERS[key] = (torch.zeros((1, 8), device=device, dtype=dtype),
                                      torch.zeros(4, device=device, dtype=dtype))
    return value
