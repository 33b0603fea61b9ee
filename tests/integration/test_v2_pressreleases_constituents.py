"""Press releases and index constituents through the real service process over loopback,
with the sandbox as a separate HTTP server standing in for SEC EDGAR, Wikipedia and FMP
(mapped through UPSTREAM_HOST_MAP, as an operator would point them): 200s with the spec's
members from the keyless sources, the keyed source with a key, a refused key falling back,
cached repeats, and ApiError bodies for bad input and unknown symbols. EDGAR and Wikipedia
refuse requests without a declared User-Agent, so every 200 here also says the service
sent one."""

from __future__ import annotations

import json

import pytest

from tests.integration.servers import get_json, http

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("keyless, keyed and refused services, started on first use")]

RELEASE = ["date", "symbol", "title", "text"]
CONSTITUENT = ["symbol", "name", "sector", "subSector", "headquarters", "dateFirstAdded", "cik",
               "founded"]


@pytest.fixture(scope="module")
def sandbox(server_pool):
    return server_pool.sandbox()


def _service(server_pool, key: str):
    return server_pool.service({"FMP_API_KEY": key})


@pytest.fixture(scope="module")
def keyless(server_pool):
    return _service(server_pool, "")


@pytest.fixture(scope="module")
def keyed(server_pool):
    return _service(server_pool, "integration-key")


@pytest.fixture(scope="module")
def refused(server_pool):
    return _service(server_pool, "INVALID-integration-key")


_get = get_json


def _providers(sandbox, prefix: str) -> set[str]:
    _, _, body = http("GET", f"{sandbox.base_url}/__sandbox__/requests?path_prefix={prefix}")
    return {entry["provider"] for entry in json.loads(body)["requests"]}


def test_press_releases_from_edgar(keyless, sandbox):
    status, headers, body = _get(keyless, "/v2/press-releases/AAPL")
    assert status == 200, body
    assert len(body) == 10 and all(list(item) == RELEASE for item in body)
    assert all(item["symbol"] == "AAPL" and "Apple" in item["title"] for item in body)
    assert [item["date"] for item in body] == sorted((i["date"] for i in body), reverse=True)
    assert headers.get("X-Data-Source") == "live"
    assert _providers(sandbox, "/Archives/edgar/") == {"sec"}
    _, again, repeat = _get(keyless, "/v2/press-releases/AAPL")
    assert repeat == body and again.get("X-Cache") == "HIT"


def test_press_release_limit_fields_and_empty(keyless):
    status, _, body = _get(keyless, "/v2/press-releases/msft?limit=2&fields=title,date")
    assert status == 200 and len(body) == 2 and all(list(i) == ["date", "title"] for i in body)
    assert _get(keyless, "/v2/press-releases/BABA")[2] == []


@pytest.mark.parametrize("path, status", [
    ("/v2/press-releases/AAPL?limit=0", 400),
    ("/v2/press-releases/AAPL?limit=101", 400),
    ("/v2/press-releases/ZZZZ", 404),
    ("/v2/press-releases/NOPE..X", 404),
    ("/v2/index-constituents/AAPL", 404),
    ("/v2/index-constituents/%5EIXIC", 404),
])
def test_errors_are_api_errors(keyless, path, status):
    got, _, body = _get(keyless, path)
    assert got == status and body["status"] == status and body["error"], (path, body)


@pytest.mark.parametrize("symbol, size", [("%5EGSPC", 503), ("ndx", 101), ("%5EDJI", 30)])
def test_constituents_from_wikipedia(keyless, sandbox, symbol, size):
    status, _, body = _get(keyless, f"/v2/index-constituents/{symbol}")
    assert status == 200, body
    assert len(body) == size and all(list(item) == CONSTITUENT for item in body)
    assert [item["symbol"] for item in body] == sorted(item["symbol"] for item in body)
    assert _providers(sandbox, "/wiki/") == {"wikipedia"}


def test_keyed_source(keyed, sandbox):
    status, _, releases = _get(keyed, "/v2/press-releases/NVDA?limit=3")
    assert status == 200 and len(releases) == 3
    status, _, members = _get(keyed, "/v2/index-constituents/DJI?fields=symbol")
    assert status == 200 and len(members) == 30 and list(members[0]) == ["symbol"]
    assert "fmp" in _providers(sandbox, "/stable/")


def test_refused_key_falls_back(refused):
    status, _, releases = _get(refused, "/v2/press-releases/JPM?limit=2")
    assert status == 200 and len(releases) == 2
    status, _, members = _get(refused, "/v2/index-constituents/NDX")
    assert status == 200 and len(members) == 101
    assert "INVALID-integration-key" not in json.dumps([releases, members])
