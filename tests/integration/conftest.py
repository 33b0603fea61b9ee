"""Fixtures for the integration tests: every answer the service's real processes send through
:func:`tests.integration.servers.http` is checked against the served OpenAPI document
(tests/openapi_validation.py), as tests/apps/conftest.py does for the test client."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration import servers


@pytest.fixture(autouse=True)
def _responses_match_the_schema(request, monkeypatch):
    """Wraps ``servers.http`` (``get_json`` goes through it) and the test module's own
    ``http`` name (imported from servers before this ran). A test whose answers the document
    must not describe opts out with the ``unvalidated_responses`` fixture."""
    if "unvalidated_responses" in request.fixturenames:
        return
    from tests.openapi_validation import check_http

    original = servers.http

    def validated(method: str, url: str, body: Any = None, timeout: float = 30.0,
                  headers: dict[str, str] | None = None) -> Any:
        status, answer_headers, data = original(method, url, body, timeout, headers)
        check_http(method, url, status, answer_headers, data)
        return status, answer_headers, data

    monkeypatch.setattr(servers, "http", validated)
    if getattr(request.module, "http", None) is original:
        monkeypatch.setattr(request.module, "http", validated)


@pytest.fixture
def unvalidated_responses():
    """Opt-out of :func:`_responses_match_the_schema` for the requesting test."""


@pytest.fixture(autouse=True)
def _shared_sandbox_restored(request):
    """After each test that used the worker's shared servers, the sandbox's faults and
    latency are set back (a test that breaks an upstream path breaks it for itself only)."""
    yield
    if "server_pool" in request.fixturenames:
        request.getfixturevalue("server_pool").restore()
