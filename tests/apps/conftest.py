"""Fixtures for the API tests: every response checked against the served OpenAPI document,
fast upstream retries, a controllable cache clock, log capture."""

from __future__ import annotations

import dataclasses
import logging
import time as _time

import pytest

from tests.conftest import capture_logs


@pytest.fixture(autouse=True)
def _responses_match_the_schema(request, monkeypatch):
    """Every response an API test gets through Django's test client (DRF's APIClient
    included) is validated against /openapi.json (tests/openapi_validation.py): status,
    content type and body. A mismatch fails the test at the request that produced it.
    A test that builds an answer the document must not describe (a view patched to break)
    opts out by requesting the ``unvalidated_responses`` fixture."""
    if "unvalidated_responses" in request.fixturenames:
        return
    from django.test.client import Client

    from tests.openapi_validation import check_response

    original = Client.request

    def validated(self, **kwargs):
        response = original(self, **kwargs)
        check_response(response)
        return response

    monkeypatch.setattr(Client, "request", validated)


@pytest.fixture
def unvalidated_responses():
    """Opt-out of :func:`_responses_match_the_schema` for the requesting test."""


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch):
    """Keep Yahoo's retry policy (attempt count) but drop the back-off sleeps."""
    from marketdata.providers import registry, yahoo
    from marketdata.providers.yahoo.client import YahooProvider

    fast = dataclasses.replace(yahoo.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001)
    monkeypatch.setattr(yahoo, "PROVIDER", fast)
    # The provider class bound the config when it was defined: patch what it registers.
    monkeypatch.setattr(YahooProvider, "config", fast)
    registry.reset()


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


@pytest.fixture
def logs():
    # The access lines are INFO, whatever LOG_LEVEL the run uses.
    with capture_logs("", logging.INFO) as capture:
        yield capture


ADMIN_KEY = "s3cret-admin-key"


@pytest.fixture
def instant_health_checks(monkeypatch):
    """/v1/health with every check (same names, same answer shape) succeeding at once: for
    the tests of what limits the endpoint (cooldown, quota, outage), not of the checks
    (tests/apps/test_health_api.py), which cost seconds a request on the in-process
    sandbox."""
    import dataclasses

    from apps.health import checks

    monkeypatch.setattr(checks, "CHECKS", tuple(
        dataclasses.replace(check, call=lambda: [{"ok": True}]) for check in checks.CHECKS))


@pytest.fixture
def limited(settings, sandbox_upstream):
    """v1 rate limiting on: a daily quota of 5 per client, the admin key ``ADMIN_KEY``, no
    trusted proxies; the in-process sandbox answers upstream calls."""
    settings.USE_SECURITY = True
    settings.APP_RATE_LIMIT_PER_DAY = 5
    settings.ADMIN_API_KEY = ADMIN_KEY
    settings.TRUSTED_PROXIES = ""
    return settings
