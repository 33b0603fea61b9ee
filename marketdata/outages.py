"""Dependency outages, logged as events rather than once per failed call.

When Redis goes away every request falls back (no cache, no response cache, rate limits
let through, the stream polls without its locks), and each fallback used to log a
warning with its traceback: thousands of lines a second under load, the outage itself
buried. Every place that falls back when a dependency fails reports it here instead:

- ``failed(exc, operation)`` where a call failed and the caller went on without the
  dependency; ``succeeded(operation)`` where a call to it worked (a cheap check: no lock
  unless an outage is in progress);
- the first failure logs ONE line: the outage started, with the error's class and
  message (and, only when the error is not a connection or timeout error, its traceback:
  an unexpected kind of failure may be a bug);
- while the outage lasts, at most one summary line every ``summary_seconds`` (30): how
  long it has lasted and how many calls fell back, in all and by operation;
- the first success, at least ``settle_seconds`` after the last failure, of an operation
  that failed during the outage logs ONE line: the outage ended, with its duration and the
  number of fallbacks. A success sooner leaves the outage open (a flapping dependency is
  one outage with summaries, not a line per flap), and so does a success of another
  operation (a Redis that refuses writes but serves reads is still an outage of writes).

Counted in ``/metrics``: ``marketdata_dependency_fallbacks_total{dependency}`` (every
fallback), ``marketdata_dependency_outages_total{dependency}`` (outages started) and
``marketdata_dependency_down{dependency}`` (1 while this process sees an outage).

One tracker per dependency and process (:func:`tracker`), thread-safe, and callable from
the event loop (it never blocks: a lock held for a few attribute updates, no I/O but the
log line).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from marketdata import metrics
from marketdata.logs import get_logger

log = get_logger("marketdata.outages")

SUMMARY_SECONDS = 30.0
SETTLE_SECONDS = 1.0
REDIS = "redis"


def _connection_error(exc: BaseException) -> bool:
    """A failure to reach the dependency (refused, reset, timed out), as opposed to an
    error it answered with or a bug; also when wrapped (django-redis raises
    ``ConnectionInterrupted`` from redis-py's error)."""
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    kinds = (OSError, TimeoutError, asyncio.TimeoutError, RedisConnectionError,
             RedisTimeoutError)
    seen = 0
    error: BaseException | None = exc
    while error is not None and seen < 5:
        if isinstance(error, kinds):
            return True
        error, seen = error.__cause__ or error.__context__, seen + 1
    return False


def describe(exc: BaseException) -> str:
    """``Class: message`` of an error, on one line and at most 300 characters."""
    text = " ".join(str(exc).split())
    text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return text if len(text) <= 300 else text[:299] + "…"


class OutageTracker:
    """The outage state of one dependency in this process (see the module)."""

    def __init__(self, dependency: str, *, summary_seconds: float = SUMMARY_SECONDS,
                 settle_seconds: float = SETTLE_SECONDS,
                 clock: Callable[[], float] = time.monotonic, logger: Any = None) -> None:
        self.dependency = dependency
        self.summary_seconds = summary_seconds
        self.settle_seconds = settle_seconds
        self.clock = clock
        self.log = logger if logger is not None else log
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self.down_since: float | None = None
        self.last_failure = 0.0
        self.last_summary = 0.0
        self.fallbacks = 0  # in this outage
        self.since_summary: Counter[str] = Counter()  # by operation, since the last line
        self.operations: set[str] = set()  # the operations that failed in this outage

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def failed(self, exc: BaseException, operation: str, **context: Any) -> None:
        """A call to the dependency failed and the caller went on without it. ``context``
        (a correlation id where none is bound) goes on the start line only."""
        metrics.record_dependency_fallback(self.dependency)
        now = self.clock()
        with self._lock:
            self.last_failure = now
            self.fallbacks += 1
            self.since_summary[operation] += 1
            self.operations.add(operation)
            if self.down_since is None:
                self.down_since = self.last_summary = now
                self.since_summary = Counter()
                line: tuple[str, dict[str, Any]] | None = ("started", {})
            elif now - self.last_summary >= self.summary_seconds:
                line = ("summary", {"down_seconds": round(now - self.down_since, 1),
                                    "fallbacks": sum(self.since_summary.values()),
                                    "fallbacks_total": self.fallbacks,
                                    "by_operation": dict(self.since_summary.most_common())})
                self.last_summary = now
                self.since_summary = Counter()
            else:
                line = None
        if line is None:
            return
        kind, fields = line
        if kind == "started":
            metrics.record_dependency_outage(self.dependency)
            metrics.set_dependency_down(self.dependency, True)
            self.log.warning(f"{self.dependency} unavailable: requests go on without it "
                             f"(one line per {self.summary_seconds:g} s while it lasts)",
                             dependency=self.dependency, outage="started",
                             operation=operation, error=describe(exc), **context,
                             exc_info=None if _connection_error(exc) else exc)
        else:
            self.log.warning(f"{self.dependency} still unavailable", dependency=self.dependency,
                             outage="ongoing", error=describe(exc), **fields)

    def succeeded(self, operation: str) -> None:
        """A call to the dependency worked: ends an outage in which ``operation`` failed,
        once the failures have stopped for ``settle_seconds``."""
        if self.down_since is None:  # the common case: no lock
            return
        now = self.clock()
        with self._lock:
            if self.down_since is None or operation not in self.operations or \
                    now - self.last_failure < self.settle_seconds:
                return
            down_seconds = round(now - self.down_since, 1)
            fallbacks = self.fallbacks
            self._reset()
        metrics.set_dependency_down(self.dependency, False)
        self.log.warning(f"{self.dependency} available again", dependency=self.dependency,
                         outage="ended", down_seconds=down_seconds, fallbacks_total=fallbacks)


_trackers: dict[str, OutageTracker] = {}
_trackers_lock = threading.Lock()


def tracker(dependency: str = REDIS) -> OutageTracker:
    """This process's tracker of ``dependency`` (made on first use)."""
    found = _trackers.get(dependency)
    if found is None:
        with _trackers_lock:
            found = _trackers.setdefault(dependency, OutageTracker(dependency))
    return found


def failed(exc: BaseException, operation: str, dependency: str = REDIS,
           **context: Any) -> None:
    """Report a failed call that fell back (see :meth:`OutageTracker.failed`)."""
    tracker(dependency).failed(exc, operation, **context)


def succeeded(operation: str, dependency: str = REDIS) -> None:
    """Report a call that worked (see :meth:`OutageTracker.succeeded`)."""
    tracker(dependency).succeeded(operation)


def reset() -> None:
    """Forget every outage (tests)."""
    with _trackers_lock:
        for found in _trackers.values():
            with found._lock:
                if found.down_since is not None:
                    metrics.set_dependency_down(found.dependency, False)
                found._reset()
