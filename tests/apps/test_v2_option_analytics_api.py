"""GET /v2/options/{symbol}/greeks and /v2/options/{symbol}/surface (apps.options.analytics):
through the sandbox (greeks that reprice the mid, filters, paging, CSV), which volatility a
contract's greeks use, every error status, and bad input refused before any upstream call.
The models themselves are checked against independent libraries in tests/marketdata/options.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math

import pytest

from apps.options import analytics
from marketdata.records.macro import YieldCurveRow
from marketdata.records.options import OptionChain, OptionContract
from tests.apps.payloads import FAILURES, QUERY2, fail_url
from tests.conftest import calls_to

URL = f"{QUERY2}/v7/finance/options"


@pytest.fixture
def aapl_greeks(api, sandbox_upstream):
    response = api.get("/v2/options/AAPL/greeks")
    assert response.status_code == 200, response.content
    return response.json()


def test_greeks_reprice_the_mid_and_have_the_signs_of_their_side(aapl_greeks):
    body = aapl_greeks
    assert body["style"] == "american" and body["model"] == "bjerksund-stensland-2002"
    assert body["expiration"] == body["expirationDates"][0]
    assert 0 < body["timeToExpiry"] < 1 and 0 < body["riskFreeRate"] < 0.2
    assert body["underlyingPrice"] > 0 and body["rateDate"]
    contracts = body["contracts"]
    assert contracts and [c["strike"] for c in contracts] == sorted(
        c["strike"] for c in contracts)
    solved = [c for c in contracts if c["ivSource"] == "mid"]
    assert len(solved) > len(contracts) / 2
    for c in solved:
        assert c["modelPrice"] == pytest.approx(c["mid"], abs=1e-6)
        assert c["gamma"] > 0 and c["vega"] > 0
        if c["type"] == "call":
            assert 0 <= c["delta"] <= 1 and c["rho"] >= 0
        else:
            assert -1 <= c["delta"] <= 0 and c["rho"] <= 0
    for c in contracts:
        if c["ivSource"] is None:
            assert c["impliedVolatility"] is c["delta"] is c["modelPrice"] is None


def test_filters_and_paging(api, sandbox_upstream, aapl_greeks):
    spot = aapl_greeks["underlyingPrice"]
    puts = api.get("/v2/options/AAPL/greeks?type=put").json()["contracts"]
    assert puts and {c["type"] for c in puts} == {"put"}
    window = api.get("/v2/options/AAPL/greeks?moneyness=0.95,1.05").json()["contracts"]
    assert window and all(0.95 <= c["strike"] / spot <= 1.05 for c in window)
    strike = aapl_greeks["contracts"][0]["strike"]
    exact = api.get(f"/v2/options/AAPL/greeks?strikes={strike}").json()["contracts"]
    assert {c["strike"] for c in exact} == {strike} and len(exact) == 2
    page = api.get("/v2/options/AAPL/greeks?limit=3").json()["contracts"]
    assert [n["strike"] for n in page["nodes"]] == [
        c["strike"] for c in aapl_greeks["contracts"][:3]]
    later = aapl_greeks["expirationDates"][2]
    other = api.get(f"/v2/options/AAPL/greeks?expiration={later}").json()
    assert other["expiration"] == later and other["timeToExpiry"] > aapl_greeks["timeToExpiry"]
    assert api.get("/v2/options/AAPL/greeks?fields=contracts&limit=1").json().keys() == {
        "symbol", "expiration", "contracts"}


def test_greeks_as_csv(api, sandbox_upstream):
    response = api.get("/v2/options/AAPL/greeks?format=csv&moneyness=0.9,1.1")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert rows and {"strike", "type", "delta", "impliedVolatility"} <= set(rows[0])


def test_the_surface(api, sandbox_upstream):
    response = api.get("/v2/options/SPY/surface?expirations=3&moneyness=0.9,1.1&step=0.05")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["moneyness"] == [0.9, 0.95, 1.0, 1.05, 1.1]
    assert len(body["expirations"]) == 3 and len(body["grid"]) == 15
    times = [e["timeToExpiry"] for e in body["expirations"]]
    assert times == sorted(times) and times[0] > 0
    for expiry in body["expirations"]:
        at_the_money = [p["impliedVolatility"] for p in body["grid"]
                        if p["expiration"] == expiry["expiration"] and p["moneyness"] == 1.0]
        assert expiry["contracts"] > 0
        assert at_the_money == [pytest.approx(expiry["atmVolatility"])]
        assert 0.01 < expiry["atmVolatility"] < 2
    csv_rows = list(csv.DictReader(io.StringIO(api.get(
        "/v2/options/SPY/surface?expirations=2&format=csv").content.decode())))
    assert list(csv_rows[0]) == ["expiration", "timeToExpiry", "moneyness",
                                 "impliedVolatility"]
    assert len(csv_rows) == 2 * 13


@pytest.mark.parametrize("path", [
    "/v2/options/AAPL/greeks?expiration=abc", "/v2/options/AAPL/greeks?type=both",
    "/v2/options/AAPL/greeks?strikes=abc", "/v2/options/AAPL/greeks?strikes=-5",
    "/v2/options/AAPL/greeks?moneyness=1.2,0.8", "/v2/options/AAPL/greeks?moneyness=0.9",
    "/v2/options/AAPL/greeks?limit=5000", "/v2/options/AAPL/surface?expirations=0",
    "/v2/options/AAPL/surface?expirations=25", "/v2/options/AAPL/surface?step=0.0001",
    "/v2/options/AAPL/surface?moneyness=0.1,9&step=0.01",
])
def test_bad_requests_are_400_before_any_upstream_call(api, yahoo, path):
    response = api.get(path)
    assert response.status_code == 400, (path, response.content)
    assert response.json()["status"] == 400
    assert not yahoo.mock.calls


@pytest.mark.parametrize("path", ["/v2/options/../greeks", "/v2/options/AA%20PL/greeks",
                                  "/v2/options/AA%20PL/surface"])
def test_malformed_symbols_404_without_an_upstream_call(api, yahoo, path):
    assert api.get(path).status_code == 404
    assert not calls_to(yahoo.mock, "/v7/finance/options")


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, f"{URL}/AAPL", kind)
    status, _ = FAILURES[kind]
    for path in ("/v2/options/AAPL/greeks", "/v2/options/AAPL/surface"):
        response = api.get(path)
        assert response.status_code == status, path
        body = response.json()
        assert body["status"] == status and body["provider"] == "yahoo"


# -- which volatility, without HTTP -------------------------------------------------------
NOW = dt.datetime(2026, 12, 1, 15, 0, tzinfo=dt.UTC)
EXPIRY = int(dt.datetime(2026, 12, 18, tzinfo=dt.UTC).timestamp())


def _contract(strike: float, bid: float | None, ask: float | None, iv: float | None,
              call: bool = True) -> OptionContract:
    return OptionContract(f"X{strike}{'C' if call else 'P'}", strike, "USD", None, None,
                          None, None, None, bid, ask, "REGULAR", EXPIRY, None, iv, None)


def _answer(monkeypatch, symbol: str, calls: list[OptionContract], curve=True):
    chain = OptionChain(symbol, [EXPIRY], EXPIRY, [c.strike for c in calls], calls, [])
    row = YieldCurveRow("2026-11-30", y1m=4.0, y3m=4.0, y1=4.0) if curve else None
    monkeypatch.setattr(analytics.options, "chain", lambda s, e: chain)
    monkeypatch.setattr(analytics, "market", lambda s, when: analytics.Market(100.0, 0.01, row))
    return analytics.greeks_for(symbol, at=NOW)


def test_the_mid_first_then_yahoos_real_volatility_then_none(monkeypatch):
    answer = _answer(monkeypatch, "AAPL", [
        _contract(100, None, None, 0.25),  # no quote: Yahoo's 25 %
        _contract(105, None, None, 0.00001),  # Yahoo's placeholder: none
        _contract(110, 1.0, 1.2, 0.5),  # a two-sided quote: solved from its mid
        _contract(120, 150.0, 151.0, 0.4),  # a call dearer than the stock: Yahoo's
    ])
    assert answer.rate_date == "2026-11-30" and answer.risk_free_rate == pytest.approx(
        math.log1p(0.04 * 1 / 12) * 12, rel=1e-9)
    got = {c.strike: (c.iv_source, c.implied_volatility) for c in answer.contracts}
    assert got[100] == ("yahoo", 0.25) and got[105] == (None, None)
    assert got[110][0] == "mid" and 0.05 < got[110][1] < 1 and got[120] == ("yahoo", 0.4)
    solved = next(c for c in answer.contracts if c.strike == 110)
    assert solved.model_price == pytest.approx(1.1, abs=1e-9) and 0 < solved.delta < 0.5
    assert next(c for c in answer.contracts if c.strike == 105).delta is None


def test_without_a_curve_there_is_no_rate_and_no_greeks(monkeypatch):
    answer = _answer(monkeypatch, "AAPL", [_contract(110, 1.0, 1.2, 0.5)], curve=False)
    assert answer.risk_free_rate is None and answer.contracts[0].delta is None
    assert answer.contracts[0].iv_source == "yahoo"  # the mid cannot be solved without r


def test_an_index_is_european(monkeypatch):
    answer = _answer(monkeypatch, "^SPX", [_contract(100, 1.0, 1.2, 0.2)])
    assert answer.style == "european" and answer.model == "black-scholes-merton"
