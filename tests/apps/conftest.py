"""Fixtures for the API tests: fast upstream retries, a controllable cache clock, log capture."""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import time as _time
from typing import Any

import pytest
import structlog


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch):
    """Keep Yahoo's retry policy (attempt count) but drop the back-off sleeps."""
    from marketdata.providers import yahoo

    fast = dataclasses.replace(yahoo.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001)
    monkeypatch.setattr(yahoo, "PROVIDER", fast)


class CacheClock:
    """Stands in for the ``time`` module inside ``marketdata.cache``; ``advance`` moves the
    wall clock the cache sees (freshness), everything else is the real clock."""

    def __init__(self) -> None:
        self.offset = 0.0

    def time(self) -> float:
        return _time.time() + self.offset

    def monotonic(self) -> float:
        return _time.monotonic()

    def sleep(self, seconds: float) -> None:
        _time.sleep(seconds)

    def advance(self, seconds: float) -> None:
        self.offset += seconds


@pytest.fixture
def cache_clock(monkeypatch):
    from marketdata import cache as md_cache

    clock = CacheClock()
    monkeypatch.setattr(md_cache, "time", clock)
    return clock


class LogCapture:
    """The log lines as the configured (JSON) formatter renders them."""

    def __init__(self, stream: io.StringIO) -> None:
        self.stream = stream

    def lines(self) -> list[str]:
        return [line for line in self.stream.getvalue().splitlines() if line.strip()]

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines()]

    def clear(self) -> None:
        self.stream.seek(0)
        self.stream.truncate()


@pytest.fixture
def logs():
    from django.conf import settings

    if getattr(settings, "LOG_FORMAT", "json") != "json":
        pytest.skip("log-line tests read the JSON format (LOG_FORMAT=json, the default)")
    root = logging.getLogger()
    formatters = [h.formatter for h in root.handlers
                  if isinstance(h.formatter, structlog.stdlib.ProcessorFormatter)]
    assert formatters, "the service's structured log handler is not installed on the root logger"
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatters[0])
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.INFO)  # the access lines are INFO, whatever LOG_LEVEL the run uses
    try:
        yield LogCapture(stream)
    finally:
        root.setLevel(level)
        root.removeHandler(handler)
