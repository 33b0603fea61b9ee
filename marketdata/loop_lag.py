"""How late the event loop runs what is due: the worker's loop-lag monitor.

Everything a worker answers without a thread (response-cache hits, ``/v1/ping``, the
streams) runs on one event loop, so anything that holds the loop (a long callback, a
collection of the garbage collector, a thread holding the GIL, a blocking write) delays
every request in flight by as much. The request-duration histogram shows that only as a
vague tail; this shows it directly: a timer due every ``LOOP_LAG_INTERVAL_SECONDS``
records how late it runs (``marketdata_event_loop_lag_seconds`` in ``/metrics``, summed
over the workers). An idle loop wakes within a millisecond (the loop's timers have
millisecond resolution); a loop busy with many requests wakes later by the time it takes
to run the callbacks ready before it (its turn in the queue); a stall shows as one lag as
long as itself. A stall longer than the interval is always seen; a shorter one with a
probability of its length over the interval.

A bare timer callback, not a task: a tick costs a clock read, the histogram's observation
and the next timer (a few microseconds, 50 times a second at the default 20 ms).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from marketdata import metrics


class LoopLagMonitor:
    """Records, every ``interval`` seconds, how late the loop ran a timer due then."""

    def __init__(self, interval: float,
                 observe: Callable[[float], None] = metrics.observe_loop_lag) -> None:
        self.interval = interval
        self.observe = observe
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._due = 0.0

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start ticking on ``loop`` (from the loop's thread); again on another loop moves it."""
        self.stop()
        self._loop = loop
        self._schedule(time.monotonic())

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._loop = None

    @property
    def running(self) -> bool:
        return self._handle is not None

    def _schedule(self, now: float) -> None:
        assert self._loop is not None
        self._due = now + self.interval
        self._handle = self._loop.call_later(self.interval, self._tick)

    def _tick(self) -> None:
        now = time.monotonic()
        self.observe(max(0.0, now - self._due))
        if self._loop is not None and not self._loop.is_closed():
            self._schedule(now)


_monitor: LoopLagMonitor | None = None


def start(loop: asyncio.AbstractEventLoop, interval: float) -> LoopLagMonitor | None:
    """This process's monitor on ``loop`` (a worker's serving loop); None when ``interval``
    is 0 (off). Starting again moves it to ``loop``."""
    global _monitor
    if interval <= 0:
        return None
    if _monitor is None or _monitor.interval != interval:
        if _monitor is not None:
            _monitor.stop()
        _monitor = LoopLagMonitor(interval)
    _monitor.start(loop)
    return _monitor
