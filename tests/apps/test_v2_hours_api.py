"""GET /v2/hours: computed locally (no upstream call), "now" injected through the view's
``utc_now`` seam."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core.cache import cache

from apps.core.v2 import REGIONS
from apps.hours import views

MEMBERS = ["id", "name", "status", "message", "open", "close", "time", "timezone",
           "timezoneShort", "dst", "gmtOffset"]


@pytest.fixture
def frozen(monkeypatch):
    """Set the request's "now"."""
    def freeze(*args: int) -> None:
        moment = datetime(*args, tzinfo=UTC)
        monkeypatch.setattr(views, "utc_now", lambda: moment)
    return freeze


def test_default_region_is_us(api, yahoo, frozen):
    frozen(2026, 11, 27, 15, 0)  # Black Friday, early close 13:00 EST
    response = api.get("/v2/hours")
    assert response.status_code == 200
    assert response.json() == {"markets": [{
        "id": "us_market", "name": "New York Stock Exchange", "status": "open",
        "message": "closes early in 3 h", "open": "2026-11-27T14:30:00Z",
        "close": "2026-11-27T18:00:00Z", "time": "2026-11-27T15:00:00Z",
        "timezone": "America/New_York", "timezoneShort": "EST", "dst": False,
        "gmtOffset": -18000}]}
    assert not yahoo.mock.calls  # not even the auth handshake


def test_region_gb_after_dst(api, frozen):
    frozen(2026, 3, 30, 16, 0)
    market = api.get("/v2/hours?region=GB").json()["markets"][0]
    assert list(market) == MEMBERS
    assert market | {"time": None} == {
        "id": "gb_market", "name": "London Stock Exchange", "status": "closed",
        "message": "opens in 15 h", "open": "2026-03-31T07:00:00Z",
        "close": "2026-03-31T15:30:00Z", "time": None, "timezone": "Europe/London",
        "timezoneShort": "BST", "dst": True, "gmtOffset": 3600}


def test_holiday(api, frozen):
    frozen(2026, 11, 26, 15, 0)  # Thanksgiving
    market = api.get("/v2/hours?region=US").json()["markets"][0]
    assert (market["status"], market["message"], market["open"]) == (
        "closed", "opens in 23 h 30 min", "2026-11-27T14:30:00Z")


@pytest.mark.parametrize("region", REGIONS)
def test_every_region(api, frozen, region):
    frozen(2026, 11, 25, 9, 0)
    response = api.get(f"/v2/hours?region={region}")
    assert response.status_code == 200
    (market,) = response.json()["markets"]
    assert list(market) == MEMBERS
    assert market["id"] == f"{region.lower()}_market"
    assert market["status"] in ("open", "closed")
    assert isinstance(market["gmtOffset"], int) and isinstance(market["dst"], bool)


def test_fields_select_members_of_each_market(api, frozen):
    frozen(2026, 11, 24, 15, 0)
    body = api.get("/v2/hours?fields=status,close,nonsense").json()
    assert body == {"markets": [{"status": "open", "close": "2026-11-24T21:00:00Z"}]}
    every = api.get("/v2/hours?fields=nonsense").json()["markets"][0]
    assert list(every) == MEMBERS


@pytest.mark.parametrize("region", ["XX", "us", "UK", ""])
def test_unknown_region_is_400(api, yahoo, region):
    response = api.get(f"/v2/hours?region={region}")
    assert response.status_code == 400
    body = response.json()
    assert body["status"] == 400
    assert body["error"].startswith("region: Input should be 'AR', 'AU'")
    assert not yahoo.mock.calls


def test_answers_are_not_stored_by_the_response_cache(api, frozen, settings):
    settings.RESPONSE_CACHE_ENABLED = True
    frozen(2026, 11, 24, 15, 0)
    first = api.get("/v2/hours?region=US")
    frozen(2026, 11, 24, 22, 0)
    second = api.get("/v2/hours?region=US")
    assert first.json()["markets"][0]["status"] == "open"
    assert second.json()["markets"][0]["status"] == "closed"
    assert "X-Cache" not in first and "X-Cache" not in second
    keys = cache.keys("*") if hasattr(cache, "keys") else list(getattr(cache, "_cache", {}))
    assert not [k for k in keys if ":resp:" in str(k)]


def test_sandbox_mode_makes_no_upstream_call(api, sandbox_upstream):
    response = api.get("/v2/hours?region=JP")
    assert response.status_code == 200
    assert response.json()["markets"][0]["timezone"] == "Asia/Tokyo"
    assert sandbox_upstream.requests_matching() == []


def test_openapi_operation(api):
    schema = api.get("/openapi.json").json()
    operation = schema["paths"]["/v2/hours"]["get"]
    assert operation["operationId"] == "get_market_hours"
    assert operation["tags"] == ["Market hours (v2)"]
    region = next(p for p in operation["parameters"] if p["name"] == "region")
    assert region["schema"]["enum"] == list(REGIONS)
    assert {"200", "400", "404", "429", "500"} <= set(operation["responses"])
