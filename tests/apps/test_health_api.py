"""GET /v1/ping and /v1/health."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest


def _recent(timestamp: str) -> bool:
    moment = datetime.fromisoformat(timestamp)
    assert moment.tzinfo is not None, "timestamp must carry its UTC offset"
    return abs(datetime.now(UTC) - moment) < timedelta(minutes=1)


def test_ping(api, yahoo):
    response = api.get("/v1/ping")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"status", "timestamp"}
    assert body["status"] == "healthy"
    assert _recent(body["timestamp"])
    assert "no-cache" in response["Cache-Control"]
    assert len(yahoo.mock.calls) == 0


def test_ping_is_never_served_from_cache(api):
    first = api.get("/v1/ping")
    second = api.get("/v1/ping")
    assert second.get("X-Cache") is None
    assert first["X-Correlation-ID"] != second["X-Correlation-ID"]


def test_health(api, yahoo):
    response = api.get("/v1/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "healthy"
    assert _recent(body["timestamp"])
    assert body["upstream"] == "live"
    assert set(body["cache"]) == {"status", "latency_ms"}
    assert body["cache"]["status"] == "healthy"
    assert isinstance(body["cache"]["latency_ms"], int | float)
    assert body["cache"]["latency_ms"] >= 0
    assert "no-cache" in response["Cache-Control"]
    assert len(yahoo.mock.calls) == 0, "health must not call Yahoo"


def test_health_is_never_served_from_cache(api):
    first = api.get("/v1/health").json()
    second = api.get("/v1/health")
    assert second.get("X-Cache") is None
    assert second.json()["timestamp"] >= first["timestamp"]


def test_health_reports_a_broken_cache(api, monkeypatch):
    from django.core.cache import cache

    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "set", broken)
    response = api.get("/v1/health")
    assert response.status_code == 200
    body = response.json()
    assert body["cache"]["status"] == "unhealthy"
    assert body["status"] != "healthy"


@pytest.mark.parametrize("path", ["/v1/ping", "/v1/health"])
@pytest.mark.parametrize("method", ["post", "put", "delete", "patch"])
def test_health_routes_are_get_only(api, path, method):
    response = getattr(api, method)(path)
    assert response.status_code == 405
    assert response.json() == {"detail": f'Method "{method.upper()}" not allowed.'}
