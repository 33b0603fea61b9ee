"""The v2 macro endpoints through the real service process over loopback, with the
sandbox as a separate HTTP server standing in for FRED (API and fredgraph.csv) and the
Treasury, mapped through UPSTREAM_HOST_MAP as an operator would point it: 200s with the
spec's members, the keyless and keyed FRED sources agreeing, a refused key falling back,
cached repeats, ApiError bodies for bad input and unknown series."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from tests.integration.servers import get_json, http

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("keyless, keyed and refused services, started on first use")]

ROW = {"date", "y1M", "y2M", "y3M", "y4M", "y6M", "y1", "y2", "y3", "y5", "y7", "y10", "y20",
       "y30"}


@pytest.fixture(scope="module")
def sandbox(server_pool):
    return server_pool.sandbox()


def _service(server_pool, key: str):
    return server_pool.service({"FRED_API_KEY": key})


@pytest.fixture(scope="module")
def keyless(server_pool):
    return _service(server_pool, "")


@pytest.fixture(scope="module")
def keyed(server_pool):
    return _service(server_pool, "integration-key")


_get = get_json


def _requests(sandbox, prefix: str) -> list[dict]:
    _, _, body = http("GET", f"{sandbox.base_url}/__sandbox__/requests?path_prefix={prefix}")
    return json.loads(body)["requests"]


def test_series_keyless_and_keyed_agree(keyless, keyed, sandbox):
    status, headers, body = _get(keyless, "/v2/macro/series/gdp")
    assert status == 200, body
    assert body["id"] == "GDP" and body["observations"][0] == {"date": "1947-01-01",
                                                               "value": 243.164}
    assert headers.get("X-Data-Source") == "live"
    assert _requests(sandbox, "/graph/fredgraph.csv")
    status, _, keyed_body = _get(keyed, "/v2/macro/series/GDP")
    assert status == 200 and keyed_body == body
    assert _requests(sandbox, "/fred/series/observations")


def test_series_paging_fields_and_cache(keyless):
    status, _, page = _get(keyless, "/v2/macro/series/DGS10?limit=5&fields=observations")
    assert status == 200 and list(page) == ["observations"]
    assert len(page["observations"]["nodes"]) == 5
    _get(keyless, "/v2/macro/series/UNRATE")
    _, headers, _ = _get(keyless, "/v2/macro/series/UNRATE")
    assert headers.get("X-Cache") == "HIT"


def test_a_refused_key_falls_back(server_pool):
    service = _service(server_pool, "INVALID-integration-key")
    status, _, body = _get(service, "/v2/macro/series/CPIAUCSL")
    assert status == 200 and body["observations"]
    assert "INVALID-integration-key" not in service.log()
    assert "provider_key_rejected" in service.log()


def test_treasury_yields(keyless):
    year = datetime.now(UTC).year - 1
    status, _, rows = _get(keyless, f"/v2/macro/treasury-yields?year={year}")
    assert status == 200 and len(rows) > 240
    assert set(rows[0]) == ROW and rows[0]["date"].startswith(f"{year}-12-")
    status, _, page = _get(keyless, f"/v2/macro/treasury-yields?year={year}&limit=3"
                                    "&fields=date,y10")
    assert status == 200 and page["nodes"] == [{"date": r["date"], "y10": r["y10"]}
                                               for r in rows[:3]]
    dgs10 = {o["date"]: o["value"] for o in _get(
        keyless, "/v2/macro/series/DGS10")[2]["observations"]}
    assert all(dgs10[r["date"]] == r["y10"] for r in rows)


@pytest.mark.parametrize(("path", "status"), [
    ("/v2/macro/series/NOTFOUND_SERIES", 404),
    ("/v2/macro/series/DGS-10", 404),
    ("/v2/macro/series/DGS10?limit=-1", 400),
    ("/v2/macro/treasury-yields?year=1989", 400),
    ("/v2/macro/treasury-yields?year=soon", 400),
    (f"/v2/macro/treasury-yields?year={datetime.now(UTC).year + 1}", 400),
])
def test_errors_are_api_errors(keyless, path, status):
    got, _, body = _get(keyless, path)
    assert got == status and body["status"] == status and body["error"], (path, body)
