"""Spacing of call starts for providers that ask for a pace (GDELT: one call every 5 s;
SEC EDGAR: at most 10 a second), per process.

A caller reserves the next free start and sleeps until it; when that start would leave
less than ``leave_seconds`` of the request deadline, it is refused at once with the
provider's own error, without touching the upstream.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

from marketdata import deadline
from marketdata.errors import MarketDataError


class Pacer:
    """``interval`` seconds between call starts (0: off). ``refusal`` builds the error of a
    turn too far away; ``budget_without_deadline`` is the time allowed outside a request
    (None: never refused there). ``clock`` is the time module (tests pass a fake)."""

    def __init__(self, interval: float, refusal: Callable[[], MarketDataError], *,
                 leave_seconds: float, budget_without_deadline: float | None = None,
                 clock: ModuleType | Any = time) -> None:
        self.interval = interval
        self.refusal = refusal
        self.leave_seconds = leave_seconds
        self.budget_without_deadline = budget_without_deadline
        self.clock = clock
        self._lock = threading.Lock()
        self._next_free = 0.0

    def wait(self) -> None:
        if self.interval <= 0:
            return
        left = deadline.remaining()
        budget = self.budget_without_deadline if left is None else left
        with self._lock:
            now = self.clock.monotonic()
            start = max(now, self._next_free)
            if budget is not None and start - now > budget - self.leave_seconds:
                raise self.refusal()
            self._next_free = start + self.interval
        if start > now:
            self.clock.sleep(start - now)
