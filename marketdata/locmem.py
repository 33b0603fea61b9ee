"""A local-memory cache bounded in bytes: Django's LocMemCache with a byte budget.

Why: without Redis every process keeps its data cache (provider answers, which stay a day
past freshness for stale-on-error), its response cache (pre-rendered bodies, charts of
hundreds of KB) and its counters in Django's LocMemCache, which bounds only the number of
entries (``MAX_ENTRIES``): 20,000 chart answers are gigabytes. This backend also keeps
the total size of what it stores under ``OPTIONS["MAX_BYTES"]`` (``LOCMEM_MAX_BYTES``).

- **What is counted**: every entry costs ``len(key) + len(pickled value) +
  ENTRY_OVERHEAD`` bytes, the constant standing for the key's string object, the
  ``OrderedDict`` slot and node, the expiry float and the bytes object's header (measured:
  tests/marketdata/test_locmem.py). The count is exact: it is updated on every write,
  overwrite, ``incr``, delete, expiry, cull and clear, under the cache's own lock.
- **Eviction**: a write that would go over the budget first evicts least-recently-used
  entries (LocMemCache keeps its ``OrderedDict`` in LRU order: a read or write moves an
  entry to the front, eviction takes from the back). Entries without an expiry (the cache
  statistics' counters and index) are passed over while any entry with one is left, like
  the Redis deployment's ``volatile-lfu`` policy; an entry passed over is moved to the
  front, so each is passed over once per pass through the cache.
- **Refusal**: an entry larger than ``MAX_ENTRY_BYTES`` (default: 1/16 of the budget) is
  not stored, and the key's previous value is deleted (a refused write never leaves an
  older answer behind); ``add`` then returns False and ``set_many`` returns the key. One
  huge answer never empties the cache.
- ``MAX_ENTRIES`` and ``CULL_FREQUENCY`` keep their LocMemCache meaning (a third of the
  entries, the least recently used, are culled when the count is reached).

It stays a ``LocMemCache`` (``isinstance`` checks, the admin's backend facts) and shares
its per-name store, lock and locking discipline; the pickling happens outside the lock as
there. ``usage()`` reports entries, bytes, evictions and refusals.
"""

from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
from django.core.exceptions import ImproperlyConfigured

# Bytes an entry holds besides its key's characters and its pickled value: the key's str
# header (49), the value's bytes header (33), the OrderedDict's slot, hash entry and link
# node, the expiry dict's slot and float. tracemalloc measures 195-210 on CPython 3.11
# (64-bit, tables' growth amortised); 256 leaves room for the allocator's rounding
# (tests/marketdata/test_locmem.py checks the measurement stays within it).
ENTRY_OVERHEAD = 256
DEFAULT_MAX_BYTES = 128 * 1024 * 1024
# Largest entry stored, as a fraction of the budget, unless MAX_ENTRY_BYTES says otherwise.
DEFAULT_ENTRY_FRACTION = 16
# Keys get_pickled remembers having made (cleared when full).
MADE_KEYS = 1024


@dataclass
class _Budget:
    """The byte count of one named cache (shared by its instances, like its store)."""

    used: int = 0
    evictions: int = 0
    refused: int = 0


_budgets: dict[str, _Budget] = {}
_budgets_lock = threading.Lock()


def entry_size(key: str, pickled: bytes) -> int:
    """The bytes an entry is counted for."""
    return len(key) + len(pickled) + ENTRY_OVERHEAD


class ByteBoundedLocMemCache(LocMemCache):
    """LocMemCache whose stored entries stay under ``MAX_BYTES`` bytes (see the module)."""

    # LocMemCache's own state and helper (django-stubs leaves them out).
    _cache: OrderedDict[str, bytes]
    _expire_info: dict[str, float | None]
    _lock: threading.Lock
    if TYPE_CHECKING:
        def _has_expired(self, key: str) -> bool: ...

    def __init__(self, name: str, params: dict[str, Any]) -> None:
        super().__init__(name, params)
        options = params.get("OPTIONS") or {}
        try:
            self._max_bytes = int(options.get("MAX_BYTES", DEFAULT_MAX_BYTES))
            self._max_entry_bytes = int(options.get(
                "MAX_ENTRY_BYTES", max(1, self._max_bytes // DEFAULT_ENTRY_FRACTION)))
        except (TypeError, ValueError) as exc:
            raise ImproperlyConfigured(f"cache {name!r}: MAX_BYTES and MAX_ENTRY_BYTES must be "
                                       f"integers ({exc})") from None
        if self._max_bytes <= 0 or not 0 < self._max_entry_bytes <= self._max_bytes:
            raise ImproperlyConfigured(f"cache {name!r}: MAX_BYTES must be > 0 and "
                                       "MAX_ENTRY_BYTES between 1 and MAX_BYTES")
        with _budgets_lock:
            self._budget = _budgets.setdefault(name, _Budget())
        self._made_keys: dict[str, str] = {}  # get_pickled's keys, made and validated

    # -- introspection ---------------------------------------------------------------------
    @property
    def max_bytes(self) -> int:
        return self._max_bytes

    @property
    def max_entry_bytes(self) -> int:
        return self._max_entry_bytes

    @property
    def bytes_used(self) -> int:
        return self._budget.used

    def usage(self) -> dict[str, int]:
        """Entries, bytes counted, the budget, evictions and refused writes so far."""
        with self._lock:
            return {"entries": len(self._cache), "bytes": self._budget.used,
                    "max_bytes": self._max_bytes, "max_entry_bytes": self._max_entry_bytes,
                    "max_entries": self._max_entries, "evictions": self._budget.evictions,
                    "refused": self._budget.refused}

    # -- reads ---------------------------------------------------------------------------------
    def get_pickled(self, key: str, version: int | None = None) -> bytes | None:
        """What :meth:`get` would unpickle: the stored object itself, the same one at every
        read until the key is written again (None when missing or expired), so a reader may
        keep what it decoded from it (the response cache's entries:
        :class:`apps.core.response_cache.LocalEntries`). Expiry and LRU order as ``get``."""
        made = self._made_keys.get(key) if version is None else None
        if made is None:
            # Validated once per key: the check only warns (keys a memcached would refuse),
            # and it was a tenth of a cache hit's cost, at every read.
            made = self.make_and_validate_key(key, version=version)
            if version is None:
                if len(self._made_keys) >= MADE_KEYS:
                    self._made_keys.clear()
                self._made_keys[key] = made
        with self._lock:
            if self._has_expired(made):
                self._delete(made)
                return None
            pickled = self._cache[made]
            self._cache.move_to_end(made, last=False)
        return pickled

    # -- writes (called with the lock held) --------------------------------------------------
    def _set(self, key: str, value: bytes, timeout: Any = DEFAULT_TIMEOUT) -> bool:
        """Store ``value`` (pickled) under ``key``; False when it is too large to store."""
        self._delete(key)  # an overwrite: its old bytes no longer count
        size = entry_size(key, value)
        if size > self._max_entry_bytes:
            self._budget.refused += 1
            return False
        if len(self._cache) >= self._max_entries:
            self._cull()
        self._make_room(self._max_bytes - size)
        self._cache[key] = value
        self._cache.move_to_end(key, last=False)
        self._expire_info[key] = self.get_backend_timeout(timeout)
        self._budget.used += size
        return True

    def _make_room(self, limit: int) -> None:
        """Evict least-recently-used entries until at most ``limit`` bytes are counted,
        passing over entries without an expiry while others are left."""
        budget, cache, expiry = self._budget, self._cache, self._expire_info
        passed = 0
        while budget.used > limit and cache:
            key = next(reversed(cache))
            if expiry.get(key) is None and passed < len(cache):
                cache.move_to_end(key, last=False)
                passed += 1
                continue
            self._delete(key)
            budget.evictions += 1

    def _cull(self) -> None:
        if self._cull_frequency == 0:
            self._cache.clear()
            self._expire_info.clear()
            self._budget.used = 0
            return
        for _ in range(len(self._cache) // self._cull_frequency):
            key, pickled = self._cache.popitem()
            del self._expire_info[key]
            self._budget.used -= entry_size(key, pickled)

    def _delete(self, key: str) -> bool:
        pickled = self._cache.pop(key, None)
        if pickled is None:
            return False
        self._expire_info.pop(key, None)
        self._budget.used -= entry_size(key, pickled)
        return True

    # -- public methods that write outside _set ---------------------------------------------
    def add(self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT,
            version: int | None = None) -> bool:
        key = self.make_and_validate_key(key, version=version)
        pickled = pickle.dumps(value, self.pickle_protocol)
        with self._lock:
            if self._has_expired(key):
                return self._set(key, pickled, timeout)
            return False

    def set_many(self, data: dict[str, Any], timeout: Any = DEFAULT_TIMEOUT,
                 version: int | None = None) -> list[str]:
        """Like ``set`` for each item; returns the keys refused (too large), as Django's
        memcached backends return the keys they failed to store."""
        refused = []
        for key, value in data.items():
            made = self.make_and_validate_key(key, version=version)
            pickled = pickle.dumps(value, self.pickle_protocol)
            with self._lock:
                if not self._set(made, pickled, timeout):
                    refused.append(key)
        return refused

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> Any:
        key = self.make_and_validate_key(key, version=version)
        with self._lock:
            if self._has_expired(key):
                self._delete(key)
                raise ValueError(f"Key '{key}' not found")
            old = self._cache[key]
            # Our own pickle of a value this process stored, as LocMemCache does.
            new_value = pickle.loads(old) + delta  # noqa: S301
            pickled = pickle.dumps(new_value, self.pickle_protocol)
            self._cache[key] = pickled
            self._cache.move_to_end(key, last=False)
            self._budget.used += len(pickled) - len(old)
            self._make_room(self._max_bytes)
        return new_value

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()
            self._expire_info.clear()
            self._budget.used = 0
