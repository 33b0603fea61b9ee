"""GET /readyz (database and cache round trips, 200 or 503) and the JSON index at ``/``."""

from __future__ import annotations

import pytest
from django.db.utils import OperationalError
from django.test import override_settings

from apps.health import readiness
from tests.apps.conftest import ADMIN_KEY

pytestmark = pytest.mark.django_db

# A Redis cache on a port nothing listens on: connection refused at once.
DEAD_REDIS = {"default": {
    "BACKEND": "django_redis.cache.RedisCache",
    "LOCATION": "redis://127.0.0.1:1/0",
    "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5},
}}


def test_ready_when_database_and_cache_answer(api):
    response = api.get("/readyz")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert body["status"] == "ready"
    assert body["failed"] == []
    assert set(body["checks"]) == {"database", "cache"}
    for check in body["checks"].values():
        assert check["status"] == "ok"
        assert check["latency_ms"] >= 0
        assert "error" not in check


def test_not_ready_with_the_cache_down(api, logs):
    # A context manager, not the `settings` fixture: the cache is back before the shared
    # clean-up clears it.
    with override_settings(CACHES=DEAD_REDIS):
        response = api.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "not_ready"
    assert body["failed"] == ["cache"]
    assert body["checks"]["database"]["status"] == "ok"
    assert body["checks"]["cache"]["status"] == "failed"
    assert body["checks"]["cache"]["error"]  # the exception class, e.g. ConnectionInterrupted
    assert "127.0.0.1:1" not in response.content.decode()
    assert any(r.get("operation") == "readiness cache probe" and r["outage"] == "started"
               for r in logs.records())


def test_not_ready_with_the_database_down(api, monkeypatch):
    def refuse() -> None:
        raise OperationalError("could not connect to server")

    monkeypatch.setitem(readiness.PROBES, "database", refuse)
    response = api.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["failed"] == ["database"]
    assert body["checks"]["database"] == {"status": "failed", "latency_ms": pytest.approx(
        body["checks"]["database"]["latency_ms"]), "error": "OperationalError"}
    assert "could not connect" not in response.content.decode()


def test_a_cache_that_loses_writes_is_not_ready(monkeypatch):
    class Forgetful:
        def set(self, *args, **kwargs):
            return None

        def get(self, *args, **kwargs):
            return None

        def delete(self, *args, **kwargs):
            return None

    monkeypatch.setattr(readiness, "django_cache", Forgetful())
    ready, answer = readiness.readiness()
    assert not ready
    assert answer.failed == ["cache"]
    assert answer.checks.cache.error == "RuntimeError"


def test_never_rate_limited(api, limited, settings):
    """The v1 quota (5 a day here) and the v2 bucket (1 token) never see /readyz."""
    settings.V2_RATE_LIMIT_CAPACITY = 1
    for _ in range(12):
        response = api.get("/readyz")
        assert response.status_code == 200
        assert "X-RateLimit-Limit" not in response
    assert ADMIN_KEY  # the admin key is not needed either


def test_index_links_to_the_docs_and_probes(api):
    response = api.get("/")
    assert response.status_code == 200
    body = response.json()
    assert body["links"]["docs"] == "/docs"
    assert body["links"]["redoc"] == "/redoc"
    assert body["links"]["openapi"] == "/openapi.json"
    assert body["links"]["health"] == "/v1/health"
    assert body["links"]["readyz"] == "/readyz"
    assert body["upstream"] == "live"
    assert body["version"]
    for name in ("docs", "redoc", "openapi", "ping", "readyz"):
        assert api.get(body["links"][name]).status_code == 200, name


def test_index_refuses_writes(api):
    response = api.post("/")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


def test_readyz_is_in_the_openapi_schema(api):
    schema = api.get("/openapi.json").json()
    operation = schema["paths"]["/readyz"]["get"]
    assert operation["operationId"] == "readyz"
    assert set(operation["responses"]) >= {"200", "503"}
    assert schema["paths"]["/"]["get"]["operationId"] == "index"
