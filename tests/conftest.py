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
from hypothesis.database import DirectoryBasedExampleDatabase

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
# `make test` (CI): examples drawn from the seed the Makefile passes (--hypothesis-seed, one
# per commit, printed), so each commit explores new ones and any failure replays; the example
# database is a folder that lives as long as the run (HYPOTHESIS_DATABASE_DIR).
hypothesis_settings.register_profile(
    "ci", derandomize=False, deadline=None, print_blob=True,
    database=DirectoryBasedExampleDatabase(os.environ["HYPOTHESIS_DATABASE_DIR"])
    if os.environ.get("HYPOTHESIS_DATABASE_DIR") else None,
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


# What every test starts from: live mode (mocked by `responses`), no host map, and polled
# ticks (the stream tests that want pushed ticks say so).
TEST_BASELINE_SETTINGS = {"MARKETDATA_UPSTREAM": "live", "UPSTREAM_HOST_MAP": "",
                          "STREAM_PUSH": False,
                          # Django's test client names the host "testserver": a loopback
                          # name as far as the WebSockets and /mcp are concerned.
                          "STREAM_ALLOWED_HOSTS": ["localhost", ".localhost", "127.0.0.1",
                                                   "[::1]", "testserver"],
                          # A test user's password hashed in microseconds, not PBKDF2's
                          # ~100 ms (Django's own advice for test settings).
                          "PASSWORD_HASHERS": ["django.contrib.auth.hashers.MD5PasswordHasher"]}


@pytest.fixture(scope="session", autouse=True)
def _baseline_settings():
    """:data:`TEST_BASELINE_SETTINGS` set once for the whole run, on the settings object
    itself: through pytest-django's ``settings`` fixture each test would send
    ``setting_changed`` for each of them twice, and a changed setting drops what is built
    from the settings (the OpenAPI document: seconds to build again)."""
    from django.conf import settings as django_settings

    for name, value in TEST_BASELINE_SETTINGS.items():
        setattr(django_settings, name, value)


@pytest.fixture(scope="session", autouse=True)
def _sandbox_series_kept():
    """The in-process sandbox keeps every daily series it builds for the whole run. Its bound
    of 96 (marketdata.sandbox.prices) holds a long-running sandbox server's memory; here the
    screener, movers and sector tests walk hundreds of symbols, and at 96 each test rebuilt
    them all (half of the CPU of tests/config/test_fastpath_equivalence.py: 30 s -> 23 s;
    the worker's peak memory did not change)."""
    from marketdata.sandbox import prices

    prices.SERIES_CACHE_SIZE = 100_000


@pytest.fixture(scope="session", autouse=True)
def _redis_version_read_once():
    """redis-py reads its own version from the installed package's metadata (an email-format
    file parsed anew, ~3 ms) for every connection it opens. A server opens a few per process;
    the tests open one per event loop, and each ``asyncio.run`` of an ASGI test is a new loop
    with new connections (the fast-path equivalence tests alone open ~2,500: 10 % of their
    CPU). The version does not change during a run."""
    import functools

    import redis.utils

    original = redis.utils.get_lib_version
    redis.utils.get_lib_version = functools.cache(original)
    yield
    redis.utils.get_lib_version = original


@pytest.fixture(scope="session", autouse=True)
def _middleware_built_once():
    """Django's test client builds the whole middleware chain for each new client: ~20 ms,
    mostly WhiteNoise listing every static file, for each of thousands of API tests. Here the
    chain is built once and shared by every client, as one server process shares it between
    requests, and built again after any setting changes (a middleware may read settings
    when it is made)."""
    from django.core.signals import setting_changed
    from django.test.client import AsyncClientHandler, ClientHandler

    built: dict[tuple[type, bool], tuple[Any, ...]] = {}
    names = ("_view_middleware", "_template_response_middleware", "_exception_middleware",
             "_middleware_chain")
    originals = {cls: cls.load_middleware for cls in (ClientHandler, AsyncClientHandler)}

    def patched(cls):
        def load_middleware(self, is_async: bool = False) -> None:
            key = (cls, is_async)
            if key not in built:
                originals[cls](self, is_async)
                built[key] = tuple(getattr(self, name) for name in names)
                return
            for name, value in zip(names, built[key], strict=True):
                setattr(self, name, value)
        return load_middleware

    def forget(**_kwargs: Any) -> None:
        built.clear()

    for cls in originals:
        cls.load_middleware = patched(cls)
    setting_changed.connect(forget, weak=False)
    with _static_files_listed_once():
        yield
    setting_changed.disconnect(forget)
    for cls, original in originals.items():
        cls.load_middleware = original


@contextmanager
def _static_files_listed_once() -> Iterator[None]:
    """A chain built again after a setting changed (hundreds of tests change one) lists
    the static files again: WhiteNoise walks every finder and stats every file (~8 % of an
    API test file's time). The files do not change during a run, so the listing is kept per
    value of the settings it is made from (STATIC*, WHITENOISE_*, DEBUG)."""
    from django.conf import settings
    from whitenoise.middleware import WhiteNoiseMiddleware

    original = WhiteNoiseMiddleware.add_files_from_finders
    listed: dict[str, dict[str, Any]] = {}

    def add_files_from_finders(self: WhiteNoiseMiddleware) -> None:
        key = repr(sorted((name, repr(getattr(settings, name))) for name in dir(settings)
                          if name.startswith(("STATIC", "WHITENOISE_"))
                          or name in ("DEBUG", "FORCE_SCRIPT_NAME")))
        if key not in listed:
            before = dict(self.files)
            original(self)
            listed[key] = {url: file for url, file in self.files.items()
                           if before.get(url) is not file}
        self.files.update(listed[key])

    WhiteNoiseMiddleware.add_files_from_finders = add_files_from_finders
    try:
        yield
    finally:
        WhiteNoiseMiddleware.add_files_from_finders = original


def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder this run's server processes share (tests/integration/servers.py): beside
    the xdist workers' temporary folders (the controller's own), so the workers prepare one
    data folder and the controller reads what they started."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "run"


@pytest.fixture(scope="session", autouse=True)
def _run_dir(tmp_path_factory):
    from tests.integration import servers

    servers.RUN_DIR = run_dir(tmp_path_factory)


@pytest.fixture(scope="session")
def server_pool(tmp_path_factory, _run_dir):
    """This worker's shared sandbox and services (tests/integration/servers.ServicePool)."""
    from tests.integration.servers import ServicePool

    pool = ServicePool(tmp_path_factory.mktemp("pool"))
    yield pool
    pool.stop()


@pytest.fixture(autouse=True)
def _clean_state(settings, request):
    """Every test starts from :data:`TEST_BASELINE_SETTINGS`, a fresh upstream client
    (breakers closed, no cookies, no crumb) and an empty cache."""
    from django.core.cache import cache

    from marketdata import cache as md_cache
    from marketdata import capabilities, outages
    from marketdata.http import reset_client

    for name, value in TEST_BASELINE_SETTINGS.items():
        if getattr(settings, name) != value:  # left changed by a module-scoped override
            setattr(settings, name, value)
    reset_client()
    # A fresh channel layer per test: each test's event loop is new, and channels-redis
    # keeps per-loop receive state (locks, cleaners) that a finished loop can leave held.
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    global _cache_left_clean
    if not _cache_left_clean:  # the first test of this process (each test empties it after)
        clear_cache(cache)
        _cache_left_clean = True
    md_cache.stats._pending.clear()
    capabilities.reset_warnings()
    outages.reset()
    yield
    reset_client()
    if _redis_used or not hasattr(cache, "delete_pattern") or \
            request.node.get_closest_marker("process") or \
            request.node.get_closest_marker("integration"):
        clear_cache(cache)


# True once a test has emptied this process's cache on its way out: the next test starts
# from an empty cache without a second SCAN of the shared Redis (~2 ms a test).
_cache_left_clean = False

# True when a Redis client of this process has sent a command since the cache was last
# emptied (:func:`_redis_commands_noted`). A test whose process sent none has no key of its
# own to delete, and skips the SCAN of the whole shared database (~3 ms of the Redis
# server's CPU with a run's keys in it) that emptying costs; a test that starts processes
# empties it whatever (they inherit this worker's CACHE_KEY_PREFIX).
_redis_used = True


@pytest.fixture(scope="session", autouse=True)
def _redis_commands_noted():
    """Every command any Redis client of this process sends (the cache, the counters, the
    fast path's redis.asyncio, the channel layer, a test's own client, pipelines and
    connection hand-shakes included) passes through its connection's
    ``send_packed_command``: each sets :data:`_redis_used`."""
    import redis.asyncio.connection as async_connection
    import redis.connection as sync_connection

    sync_send = sync_connection.AbstractConnection.send_packed_command
    async_send = async_connection.AbstractConnection.send_packed_command

    def send_packed_command(self, *args: Any, **kwargs: Any) -> Any:
        global _redis_used
        _redis_used = True
        return sync_send(self, *args, **kwargs)

    async def async_send_packed_command(self, *args: Any, **kwargs: Any) -> Any:
        global _redis_used
        _redis_used = True
        return await async_send(self, *args, **kwargs)

    sync_connection.AbstractConnection.send_packed_command = send_packed_command
    async_connection.AbstractConnection.send_packed_command = async_send_packed_command
    yield
    sync_connection.AbstractConnection.send_packed_command = sync_send
    async_connection.AbstractConnection.send_packed_command = async_send


def clear_cache(cache) -> None:
    """Empty this test process's cache. On Redis only this worker's key prefix: the other
    xdist worker shares the database, and ``cache.clear()`` there is FLUSHDB (it wiped a
    test's entries on the other worker in CI)."""
    global _redis_used
    if hasattr(cache, "delete_pattern"):
        # Only this project's prefix, never FLUSHDB. SCAN walks the whole database whatever
        # the pattern: at Redis's default of 10 keys a call, a few thousand keys left by other
        # workers and runs cost hundreds of round trips per test.
        cache.delete_pattern("*", itersize=10_000)
        _redis_used = False  # its own SCAN and DELs set it
    else:
        cache.clear()
    from marketdata import memo

    memo.clear_all()  # the processes' memories of parsed filings: caches too


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
    """Tests in the order pytest-xdist should hand them out (``make test`` passes
    ``--no-loadscope-reorder``, so the order is kept): the longest first, so no worker is
    left alone with a long test at the end while the others idle. A file with a test
    marked ``slow`` comes first (within it, its slow tests first), then the files with the
    most tests, as xdist's own reordering would. (The fleet and browser tests run after
    them, beside each other: marker ``alone``.)"""
    files = {item: item.nodeid.split("::", 1)[0] for item in items}
    slow = {item for item in items if item.get_closest_marker("slow")}
    sizes = Counter(files.values())
    slow_files = {files[item] for item in slow}
    items.sort(key=lambda item: (files[item] not in slow_files, -sizes[files[item]],
                                 files[item], item not in slow))


# -- tiers -----------------------------------------------------------------------------------
# `make quick` runs every test that starts no process (``-m "not integration and not
# process"``) with ``--forbid-processes``: a test there that starts one fails, saying which
# marker it lacks, so the quick tier stays quick by construction, not by review.

def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--forbid-processes", action="store_true",
                     help="fail a test that starts a process without the 'process' or "
                          "'integration' marker (make quick)")
    parser.addoption("--slow-seconds", type=float, default=2.0,
                     help="list the tests slower than this at the end, with their reasons")


@pytest.fixture(autouse=True)
def _processes_only_where_marked(request, monkeypatch):
    if not request.config.getoption("--forbid-processes"):
        return
    if request.node.get_closest_marker("process") or \
            request.node.get_closest_marker("integration"):
        return
    import subprocess

    def refuse(self, args, *_args, **_kwargs):
        pytest.fail(f"{request.node.nodeid} starts a process ({args!r}): mark it "
                    f"@pytest.mark.process (make test runs it; make quick does not)",
                    pytrace=False)

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    """The ``slow`` marker's reason rides on the teardown report (xdist sends a report's
    user properties to the controller, which prints the list)."""
    report = yield
    slow = item.get_closest_marker("slow")
    if call.when == "teardown" and slow and slow.args:
        report.user_properties = [*report.user_properties, ("slow_reason", slow.args[0])]
    return report


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    """The tests slower than ``--slow-seconds`` (set-up and teardown included, as a module's
    servers start in its first test's set-up), each with the reason its ``slow`` marker
    gives: a test is slow for a stated reason or it is a defect to fix."""
    _report_server_starts(terminalreporter)
    threshold = config.getoption("--slow-seconds")
    seconds: Counter[str] = Counter()
    reasons: dict[str, str] = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) in ("setup", "call", "teardown"):
                seconds[report.nodeid] += report.duration
                reasons.update(
                    (report.nodeid, value) for key, value in report.user_properties
                    if key == "slow_reason")
    rows = [(round(total, 2), nodeid, reasons.get(nodeid) or
             "NO REASON GIVEN (mark it @pytest.mark.slow(reason))")
            for nodeid, total in seconds.items() if total > threshold]
    if not rows:
        return
    terminalreporter.write_sep("=", f"{len(rows)} tests over {threshold:g} s")
    for seconds, nodeid, reason in sorted(rows, reverse=True):
        terminalreporter.write_line(f"{seconds:7.2f} s  {nodeid}  -- {reason}")


def _report_server_starts(terminalreporter) -> None:
    """How many server processes the run started, and how long they took to answer."""
    from tests.integration import servers

    if servers.RUN_DIR is None:  # the controller of an xdist run runs no fixture
        servers.RUN_DIR = run_dir(terminalreporter.config._tmp_path_factory)
    starts = servers.read_starts()
    if not starts:
        return
    kinds = Counter(start["kind"] for start in starts)
    slowest = max(starts, key=lambda start: start["seconds"])
    terminalreporter.write_sep("=", f"{len(starts)} server starts")
    terminalreporter.write_line(", ".join(f"{n} {kind}" for kind, n in kinds.most_common()) +
                                f"; mean {sum(s['seconds'] for s in starts) / len(starts):.1f} s,"
                                f" slowest {slowest['seconds']} s ({slowest['test']})")
