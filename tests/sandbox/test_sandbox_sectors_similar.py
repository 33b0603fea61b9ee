"""Sandbox sector JSON and recommendationsbysymbol: shapes, determinism, consistency with
quoteSummary, and the three sector endpoints and /v1/similar served through the real client
in sandbox mode."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from marketdata.providers.yahoo.sectors import parse_sector
from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox.instruments import _FAMOUS_SECTORS, _SECTORS, get_instrument
from marketdata.sandbox.yahoo.recommendations import peers
from marketdata.sandbox.yahoo.sectors import INDUSTRIES, SECTORS, sector_pools

UPSTREAM = Path(__file__).resolve().parents[2].parent / "shared" / "upstream" / "yahoo"
needs_recordings = pytest.mark.skipif(not UPSTREAM.is_dir(), reason="no shared/upstream")
CLOCK = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)  # a Friday, 12:00 New York


def make() -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: CLOCK)


def get(sb: UpstreamSandbox, path: str, **query: str) -> tuple[int, Any]:
    answer = sb.handle("GET", "query2.finance.yahoo.com", path,
                       {k: [v] for k, v in query.items()}, {})
    return answer.status, json.loads(answer.body)


def crumb(sb: UpstreamSandbox) -> str:
    first = sb.handle("GET", "fc.yahoo.com", "/", {}, {})
    cookie = first.headers["Set-Cookie"].split(";")[0]
    return sb.handle("GET", "query1.finance.yahoo.com", "/v1/test/getcrumb", {},
                     {"Cookie": cookie}).body.decode()


def asset_sector(sb: UpstreamSandbox, token: str, symbol: str) -> str | None:
    status, body = get(sb, f"/v10/finance/quoteSummary/{symbol}", modules="assetProfile",
                       crumb=token)
    assert status == 200, body
    return body["quoteSummary"]["result"][0]["assetProfile"].get("sector")


# -- sector JSON ----------------------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(SECTORS))
def test_sector_shape_and_values(key):
    sb = make()
    status, body = get(sb, f"/v1/finance/sectors/{key}", formatted="true", withReturns="true")
    assert status == 200
    data = body["data"]
    name = SECTORS[key][0]
    assert (data["key"], data["name"]) == (key, name)
    assert set(data) == {"name", "key", "symbol", "overview", "performance",
                         "performanceOverviewBenchmark", "topETFs", "topMutualFunds",
                         "topCompanies", "industries", "researchReports"}
    assert set(data["performance"]) == {"regMarketChangePercent", "ytdChangePercent",
                                        "oneYearChangePercent", "threeYearChangePercent",
                                        "fiveYearChangePercent"}
    assert all(set(v) == {"raw", "fmt"} for v in data["performance"].values())
    assert data["performanceOverviewBenchmark"]["name"] == "S&P 500"
    overview = data["overview"]
    assert isinstance(overview["companiesCount"], int)
    assert overview["industriesCount"] == len(INDUSTRIES[name]) == len(data["industries"]) - 1
    assert overview["marketCap"]["raw"] > 1e11
    # industries: aggregate row first, then by weight, weights sum to 1
    industries = data["industries"]
    assert industries[0]["name"] == "All Industries" and "key" not in industries[0]
    weights = [row["marketWeight"]["raw"] for row in industries[1:]]
    assert weights == sorted(weights, reverse=True)
    assert sum(weights) == pytest.approx(1.0, abs=1e-4)
    # companies: more rows than the service shows, weights below 1 in total
    companies = data["topCompanies"]
    assert len({c["symbol"] for c in companies}) == 15
    caps = [c["marketCap"]["raw"] for c in companies]
    assert caps == sorted(caps, reverse=True)
    assert 0.3 < sum(c["marketWeight"]["raw"] for c in companies) < 1.0
    parsed = parse_sector(body, key)
    assert parsed.name == name
    assert parsed.day_change == data["performance"]["regMarketChangePercent"]["raw"]
    assert len(parsed.top_companies) == 15


def test_sector_weights_sum_to_one():
    assert sum(weight for _, _, weight, _ in SECTORS.values()) == pytest.approx(1.0)


def test_top_companies_are_in_the_sector_by_their_profile():
    sb = make()
    token = crumb(sb)
    for key in ("technology", "utilities", "communication-services"):
        _, body = get(sb, f"/v1/finance/sectors/{key}")
        for company in body["data"]["topCompanies"][:10]:
            assert asset_sector(sb, token, company["symbol"]) == SECTORS[key][0]
    _, tech = get(sb, "/v1/finance/sectors/technology")
    assert {"AAPL", "MSFT", "NVDA"} <= {c["symbol"] for c in tech["data"]["topCompanies"]}


def test_every_sandbox_industry_is_listed_under_its_sector():
    for sector, industry in (*_SECTORS, *_FAMOUS_SECTORS.values()):
        assert industry in INDUSTRIES[sector], (sector, industry)


def test_sector_is_deterministic():
    a = make().handle("GET", "q", "/v1/finance/sectors/energy", {}, {})
    b = make().handle("GET", "q", "/v1/finance/sectors/energy", {}, {})
    assert a.body == b.body
    assert sector_pools() == sector_pools.__wrapped__()
    members = [s for pool in sector_pools().values() for s in pool]
    assert len(members) == len(set(members))


def test_sector_returns_follow_the_clock():
    later = UpstreamSandbox(clock=lambda: datetime(2027, 2, 3, 17, 0, tzinfo=UTC))
    _, now = get(make(), "/v1/finance/sectors/technology")
    _, then = get(later, "/v1/finance/sectors/technology")
    assert now["data"]["performance"] != then["data"]["performance"]


@pytest.mark.parametrize("key", ["nope", "Technology", "technology.json"])
def test_unknown_sector_key_404(key):
    status, body = get(make(), f"/v1/finance/sectors/{key}")
    assert status == 404
    assert body["finance"]["result"] is None
    assert body["finance"]["error"]["code"] == "Not Found"


# -- recommendationsbysymbol ---------------------------------------------------------------
@needs_recordings
def test_recommendations_shape_matches_recording():
    recorded = json.loads((UPSTREAM / "v6-recommendationsbysymbol" / "AAPL.json").read_text())
    sb = make()
    status, body = get(sb, "/v6/finance/recommendationsbysymbol/AAPL", crumb=crumb(sb))
    assert status == 200
    assert list(body) == list(recorded)
    assert list(body["finance"]) == list(recorded["finance"])
    got, want = body["finance"]["result"][0], recorded["finance"]["result"][0]
    assert list(got) == list(want)
    assert list(got["recommendedSymbols"][0]) == list(want["recommendedSymbols"][0])
    assert len(got["recommendedSymbols"]) == len(want["recommendedSymbols"]) == 5  # default


def test_recommendations_count_order_and_sector():
    sb = make()
    token = crumb(sb)
    _, body = get(sb, "/v6/finance/recommendationsbysymbol/AAPL", count="12", crumb=token)
    recommended = body["finance"]["result"][0]["recommendedSymbols"]
    assert len(recommended) == 12
    scores = [r["score"] for r in recommended]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == 12
    assert "AAPL" not in [r["symbol"] for r in recommended]
    for r in recommended:
        assert asset_sector(sb, token, r["symbol"]) == "Technology"


def test_recommendations_by_kind():
    for symbol, kind in (("SPY", "ETF"), ("EURUSD=X", "CURRENCY"), ("BTC-USD", "CRYPTOCURRENCY"),
                         ("^GSPC", "INDEX"), ("GC=F", "FUTURE")):
        found = peers(symbol, 4)
        assert len(found) == 4
        assert all(get_instrument(p["symbol"]).kind == kind for p in found), symbol
        assert symbol not in [p["symbol"] for p in found]


def test_recommendations_unknown_symbol_and_multi_symbol():
    sb = make()
    token = crumb(sb)
    status, body = get(sb, "/v6/finance/recommendationsbysymbol/ZZZZ", crumb=token)
    assert (status, body) == (200, {"finance": {"result": [], "error": None}})
    _, body = get(sb, "/v6/finance/recommendationsbysymbol/AAPL,ZZZZ,BMW.DE", count="3",
                  crumb=token)
    assert [r["symbol"] for r in body["finance"]["result"]] == ["AAPL", "BMW.DE"]
    assert all(len(r["recommendedSymbols"]) == 3 for r in body["finance"]["result"])


def test_recommendations_need_a_crumb():
    status, body = get(make(), "/v6/finance/recommendationsbysymbol/AAPL")
    assert status == 401
    assert body["finance"]["error"]["description"] == "Invalid Crumb"


# -- the service in sandbox mode ------------------------------------------------------------
def test_sectors_in_sandbox_mode(api, sandbox_upstream):
    response = api.get("/v1/sectors")
    assert response.status_code == 200, response.content
    body = response.json()
    assert [row["sector"] for row in body][:3] == ["Technology", "Healthcare",
                                                   "Financial Services"]
    assert len(body) == 11
    assert all(row["dayReturn"][0] in "+-" and row["dayReturn"].endswith("%") for row in body)
    assert len(sandbox_upstream.requests_matching("/v1/finance/sectors/")) == 11


def test_sector_for_symbol_in_sandbox_mode(api, sandbox_upstream):
    response = api.get("/v1/sectors/symbol/AAPL")
    assert response.status_code == 200, response.content
    assert response.json()["sector"] == "Technology"
    for symbol in ("SPY", "^GSPC", "BTC-USD", "EURUSD=X"):
        response = api.get(f"/v1/sectors/symbol/{symbol}")
        assert response.status_code == 404
        assert response.json() == {"detail": f"Sector for {symbol} not found."}
    response = api.get("/v1/sectors/symbol/ZZZZ")
    assert response.status_code == 404
    assert response.json() == {"detail": "Symbol ZZZZ not found"}


def test_sector_details_in_sandbox_mode(api, sandbox_upstream):
    response = api.get("/v1/sectors/details/Basic%20Materials")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["sector"] == "Basic Materials"
    assert body["marketWeight"] == "2.30%"
    assert body["industries"] == len(INDUSTRIES["Basic Materials"])
    assert len(body["topIndustries"]) == 10
    assert len(body["topCompanies"]) == 10
    _, raw_body = get(sandbox_upstream, "/v1/finance/sectors/basic-materials")
    listed = [c["symbol"] for c in raw_body["data"]["topCompanies"]]
    assert body["topCompanies"] == listed[:10]  # the sandbox lists them by market cap
    assert set(listed) <= set(sector_pools()["Basic Materials"])
    assert api.get("/v1/sectors/details/Crypto").status_code == 422


def test_similar_in_sandbox_mode(api, sandbox_upstream):
    response = api.get("/v1/similar?symbol=AAPL&limit=3")
    assert response.status_code == 200, response.content
    body = response.json()
    assert len(body) == 3
    assert "AAPL" not in [q["symbol"] for q in body]
    assert [q["symbol"] for q in body] == [p["symbol"] for p in peers("AAPL", 3)]
    calls = sandbox_upstream.requests_matching("/v6/finance/recommendationsbysymbol/")
    assert [c["query"]["count"] for c in calls] == [["4"]]
    response = api.get("/v1/similar?symbol=ZZZZ")
    assert response.status_code == 404
    assert response.json() == {"detail": "No similar stocks found for ZZZZ."}


@pytest.mark.parametrize("path", [
    "/v1/sectors/symbol/..%2F..%2Fv8%2Ffinance%2Fchart%2FAAPL",
    "/v1/sectors/symbol/" + "A" * 500,
    "/v1/sectors/symbol/%C3%84APL",
    "/v1/sectors/symbol/A%20B",
    "/v1/sectors/details/..%2F..%2Fquote",
    "/v1/similar?symbol=..%2F..%2Fv8%2Ffinance%2Fchart%2FAAPL",
    "/v1/similar?symbol=AAPL%2FX",
    "/v1/similar?symbol=%C3%84APL",
    "/v1/similar?symbol=" + "A" * 500,
])
def test_hostile_input_never_reaches_the_sandbox(api, sandbox_upstream, path):
    response = api.get(path)
    assert response.status_code in (404, 422), response.content
    assert sandbox_upstream.requests_matching("/") == []
