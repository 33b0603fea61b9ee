"""Shared fixtures: recordings from ../shared/upstream, a mocked Yahoo, clean state per test.

The recordings are read in place (never copied into this repo); tests that need one skip
cleanly when the shared folder is absent.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import responses
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

# Property tests are repeatable by default: the seed comes from each test's name (derandomize),
# no example database, and no timing (deadline, too_slow), so `make quick` and CI run the same
# examples every time and a failure is a defect with a reproduction, never a flake to re-run.
# HYPOTHESIS_PROFILE=explore (`make explore`) draws fresh random examples to find new defects;
# each one found becomes an @example beside its test.
hypothesis_settings.register_profile(
    "repeatable", derandomize=True, database=None, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
hypothesis_settings.register_profile(
    "explore", derandomize=False, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

UPSTREAM_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "upstream"
REDIS_URL = os.environ.get("REDIS_URL", "")

QUERY1 = "https://query1.finance.yahoo.com"
QUERY2 = "https://query2.finance.yahoo.com"
CRUMB = "haT3oykhHqZ"


def recording_path(relative: str) -> Path:
    path = UPSTREAM_DIR / relative
    if not path.exists():
        pytest.skip(f"recording {relative} not available (../shared/upstream absent)")
    return path


def load_recording(relative: str) -> Any:
    """A recorded upstream body: parsed JSON for .json files, text otherwise."""
    path = recording_path(relative)
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else text


@pytest.fixture
def recording():
    return load_recording


@pytest.fixture(autouse=True)
def _clean_state(settings):
    """Every test starts with live mode (mocked by `responses`), a fresh upstream client
    (breakers closed, no cookies, no crumb) and an empty cache."""
    from django.core.cache import cache

    from marketdata import cache as md_cache
    from marketdata import capabilities, outages
    from marketdata.http import reset_client

    settings.MARKETDATA_UPSTREAM = "live"
    settings.UPSTREAM_HOST_MAP = ""
    settings.STREAM_PUSH = False  # the stream tests that want pushed ticks say so
    reset_client()
    # A fresh channel layer per test: each test's event loop is new, and channels-redis
    # keeps per-loop receive state (locks, cleaners) that a finished loop can leave held.
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    clear_cache(cache)
    md_cache.stats._pending.clear()
    capabilities.reset_warnings()
    outages.reset()
    yield
    reset_client()
    clear_cache(cache)


def clear_cache(cache) -> None:
    """Empty this test process's cache. On Redis only this worker's key prefix: the other
    xdist worker shares the database, and ``cache.clear()`` there is FLUSHDB (it wiped a
    test's entries on the other worker in CI)."""
    if hasattr(cache, "delete_pattern"):
        # Only this project's prefix, never FLUSHDB. SCAN walks the whole database whatever
        # the pattern: at Redis's default of 10 keys a call, a few thousand keys left by other
        # workers and runs cost hundreds of round trips per test.
        cache.delete_pattern("*", itersize=10_000)
    else:
        cache.clear()


class MockYahoo:
    """`responses` registrations for the Yahoo calls the service makes."""

    def __init__(self, mock: responses.RequestsMock) -> None:
        self.mock = mock

    def auth(self, crumb: str = CRUMB) -> None:
        self.mock.get("https://fc.yahoo.com/", status=404, body="<html></html>",
                      headers={"Set-Cookie": "A3=d=AQABBK; Domain=.yahoo.com; Path=/"})
        self.mock.get(f"{QUERY1}/v1/test/getcrumb", body=crumb,
                      content_type="text/plain")

    def chart(self, symbol: str, body: Any = None, status: int = 200, **kwargs: Any) -> Any:
        return self._add(f"{QUERY2}/v8/finance/chart/{symbol}", body, status, **kwargs)

    def quote(self, body: Any = None, status: int = 200, **kwargs: Any) -> Any:
        return self._add(f"{QUERY1}/v7/finance/quote", body, status, **kwargs)

    def summary(self, symbol: str, body: Any = None, status: int = 200, **kwargs: Any) -> Any:
        return self._add(f"{QUERY2}/v10/finance/quoteSummary/{symbol}", body, status, **kwargs)

    def get(self, url: str, body: Any = None, status: int = 200, **kwargs: Any) -> Any:
        """Any other upstream GET (screener, search, timeseries, Algolia...): ``url``
        without its query string; the mock matches whatever query follows."""
        return self._add(url, body, status, **kwargs)

    def _add(self, url: str, body: Any, status: int, **kwargs: Any) -> Any:
        if body is not None and not isinstance(body, str | bytes):
            body = json.dumps(body)
        return self.mock.add(responses.GET, re.compile(re.escape(url) + r"(\?.*)?$"),
                             body=body or "", status=status,
                             content_type=kwargs.pop("content_type", "application/json"),
                             **kwargs)


@pytest.fixture
def yahoo():
    """Mocked Yahoo over `responses` with the cookie/crumb handshake already registered."""
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mocked = MockYahoo(mock)
        mocked.auth()
        yield mocked


@pytest.fixture
def sandbox_upstream(settings):
    """The in-process sandbox as the upstream (the real client, auth and parsers run; only
    the socket is replaced), with an empty request log."""
    from marketdata.http import reset_client
    from marketdata.sandbox import get_sandbox

    settings.MARKETDATA_UPSTREAM = "sandbox"
    reset_client()
    sandbox = get_sandbox()
    sandbox.reset_log()
    return sandbox


@pytest.fixture
def api():
    from django.test import Client

    return Client()


def calls_to(mock: responses.RequestsMock, fragment: str) -> list[Any]:
    """Recorded calls whose URL contains ``fragment``."""
    return [c for c in mock.calls if fragment in c.request.url]


class LogCapture:
    """Log lines as the project's JSON formatter renders them."""

    def __init__(self, stream: io.StringIO) -> None:
        self.stream = stream

    def text(self) -> str:
        return self.stream.getvalue()

    def lines(self) -> list[str]:
        return [line for line in self.text().splitlines() if line.strip()]

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines()]

    def clear(self) -> None:
        self.stream.seek(0)
        self.stream.truncate()


@contextmanager
def capture_logs(logger_name: str = "", level: int = logging.INFO) -> Iterator[LogCapture]:
    """Capture ``logger_name`` (root when empty) and below at ``level``, rendered by the
    project's own structured formatter in JSON, whatever LOG_FORMAT/LOG_LEVEL the run uses."""
    from marketdata.logs import build_logging_config

    config = dict(build_logging_config("INFO", "json")["formatters"]["structured"])
    factory = config.pop("()")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(factory(**config))
    logger = logging.getLogger(logger_name or None)
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(level)
    try:
        yield LogCapture(stream)
    finally:
        logger.setLevel(old_level)
        logger.removeHandler(handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files in the order pytest-xdist should hand them out (the Makefile passes
    ``--no-loadscope-reorder``, so this order is kept): the files with the most tests
    first, as xdist's own reordering would, so the timed integration files, few tests
    each, come last. (The fleet and browser tests run after them, by themselves: marker
    ``alone``.)"""
    sizes = Counter(item.nodeid.split("::", 1)[0] for item in items)
    items.sort(key=lambda item: -sizes[item.nodeid.split("::", 1)[0]])
