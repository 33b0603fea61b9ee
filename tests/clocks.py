"""Time in the tests: moved where the code reads a clock, waited for only where something
else (a background thread, Redis) decides when it is done."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import ModuleType
from typing import TypeVar

import pytest

T = TypeVar("T")


class OffsetClock:
    """Stands in for the ``time`` module of the code under test: ``time()`` runs ahead of the
    wall clock by what :meth:`advance` added; the monotonic clock, sleeps and timers stay
    real (a deadline or a wait the code measures is not what is moved)."""

    monotonic = staticmethod(time.monotonic)
    perf_counter = staticmethod(time.perf_counter)
    sleep = staticmethod(time.sleep)

    def __init__(self) -> None:
        self.offset = 0.0

    def time(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


def move_time(monkeypatch: pytest.MonkeyPatch, *modules: ModuleType) -> Callable[[float], None]:
    """One :class:`OffsetClock` as the ``time`` of each of ``modules``; its ``advance``."""
    clock = OffsetClock()
    for module in modules:
        monkeypatch.setattr(module, "time", clock)
    return clock.advance


def local_cache_expiry() -> tuple[ModuleType, ...]:
    """The modules whose ``time`` decides when an entry of Django's in-process cache expires
    (where it is stored with a timeout, and where it is read)."""
    from django.core.cache.backends import base, locmem

    return base, locmem


def eventually(condition: Callable[[], T], seconds: float = 5.0, interval: float = 0.02) -> T:
    """``condition()``'s first truthy value within ``seconds`` (asked every ``interval``), or
    its last value: for what a background thread or another process finishes, without
    waiting a fixed time for it."""
    end = time.monotonic() + seconds
    while True:
        value = condition()
        if value or time.monotonic() > end:
            return value
        time.sleep(interval)
