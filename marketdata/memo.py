"""Values a process keeps in memory by key, under a byte budget: for answers that never
change once published (an SEC filing by accession number) and are large to move.

Why beside the shared cache (:mod:`marketdata.cache`): a parsed filing of a big fund is
megabytes. Read from Redis on every request it is unpickled every time; in the local-memory
cache it may be over the largest entry that cache stores (``MAX_ENTRY_BYTES``), which
would mean downloading it again on every request. A :class:`SizedMemo` in front keeps the
parsed value once per process, least recently used evicted first, the total under
``budget()`` bytes; a value larger than a quarter of the budget is not kept (one huge
value never empties the memo). Sizes are counted as the value's pickled length (what the
shared cache stores); the objects themselves take about two to three times that.
"""

from __future__ import annotations

import pickle
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

# The largest value kept, as a fraction of the budget.
MAX_ENTRY_FRACTION = 4
# Every memo of the process, for :func:`clear_all`.
_memos: weakref.WeakSet[SizedMemo[Any, Any]] = weakref.WeakSet()


def pickled_size(value: Any) -> int:
    """The bytes a value is counted for: its pickled length."""
    return len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


class SizedMemo(Generic[K, V]):
    """A thread-safe LRU of values whose counted sizes stay under ``budget()`` bytes (read
    on every write, so a changed setting applies at once; 0 keeps nothing)."""

    def __init__(self, budget: Callable[[], int],
                 size: Callable[[V], int] = pickled_size) -> None:
        self._budget = budget
        self._size = size
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._used = 0
        self._lock = threading.Lock()
        self.evictions = 0
        self.refused = 0
        _memos.add(self)

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries.move_to_end(key)
            return found[0]

    def put(self, key: K, value: V) -> bool:
        """Keep ``value`` (evicting the least recently used values to make room); False
        when it is larger than a quarter of the budget and is not kept."""
        size = self._size(value)
        budget = max(0, int(self._budget()))
        with self._lock:
            self._drop(key)
            if size > budget // MAX_ENTRY_FRACTION:
                self.refused += 1
                return False
            while self._entries and self._used + size > budget:
                _, (_, freed) = self._entries.popitem(last=False)
                self._used -= freed
                self.evictions += 1
            self._entries[key] = (value, size)
            self._used += size
            return True

    def _drop(self, key: K) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._used -= old[1]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._used = 0

    def usage(self) -> dict[str, int]:
        """Entries, bytes counted, the budget, evictions and refusals so far."""
        with self._lock:
            return {"entries": len(self._entries), "bytes": self._used,
                    "budget": max(0, int(self._budget())), "evictions": self.evictions,
                    "refused": self.refused}


def clear_all() -> None:
    """Empty every memo of the process (tests: each starts from an empty cache)."""
    for memo in list(_memos):
        memo.clear()
