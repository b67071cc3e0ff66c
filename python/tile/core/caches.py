"""Bounded caches: the least recently used entry goes first."""
from collections import OrderedDict
from typing import Callable, Hashable, Optional


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

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key) -> bool:
        return key in self._values

    def clear(self) -> None:
        self._values.clear()
