"""GET /v2/etf/{symbol}/holdings: a fund's portfolio from its latest SEC N-PORT report, with
Yahoo's top holdings where EDGAR has none; `top`, `fields`, paging, `order`, CSV; every
error status (a stock 404, a malformed symbol 404 and bad parameters 400 before any
upstream call, EDGAR's failures naming the SEC with no fallback, Yahoo's in the fallback
naming Yahoo); and the in-process sandbox for index ETFs, a bond ETF, a fund with futures,
an amended report and funds without N-PORT.

No recording of these upstreams exists: the SEC bodies are the hand-made ones of
``tests/marketdata/providers/nport_bodies.py`` (EDGAR's shapes), Yahoo's quoteSummary
bodies are written here in its shape.
"""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import resolve

from apps.funds.views import V2FundHoldingsView
from marketdata.providers import sec
from marketdata.records.funds import FundHolding, FundPortfolio
from marketdata.records.members import member_names
from tests.apps.payloads import FAILURES, QUERY2, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.conftest import calls_to
from tests.marketdata.providers.nport_bodies import (
    ARCHIVES,
    BROWSE,
    FUND_TICKERS,
    FUND_TICKERS_URL,
    atom,
    nport_xml,
)

MEMBERS = member_names(FundPortfolio)
HOLDING_MEMBERS = member_names(FundHolding)
ACCESSION = "0001752724-24-300001"
DOCUMENT = f"{ARCHIVES}/36405/{ACCESSION.replace('-', '')}/primary_doc.xml"
TICKERS = {"0": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."},
           "1": {"cik_str": 1318605, "ticker": "TSLA", "title": "Tesla, Inc."}}


def top_holdings(quote_type: str = "ETF", holdings: list | None = None) -> dict:
    """A quoteSummary answer with Yahoo's quoteType, summaryDetail and topHoldings."""
    if holdings is None:
        holdings = [{"symbol": "AAPL", "holdingName": "Apple Inc", "holdingPercent": 0.0412},
                    {"symbol": "MSFT", "holdingName": "Microsoft Corp",
                     "holdingPercent": 0.0623}]
    return {"quoteSummary": {"result": [{
        "quoteType": {"exchange": "PCX", "quoteType": quote_type, "symbol": "GLD",
                      "longName": "SPDR Gold Trust", "shortName": "SPDR Gold"},
        "summaryDetail": {"totalAssets": 75_000_000_000},
        "topHoldings": {"maxAge": 1, "cashPosition": 0.01, "stockPosition": 0.99,
                        "bondPosition": 0, "holdings": holdings,
                        "sectorWeightings": [{"realestate": 0.02}, {"technology": 0.51}]},
    }], "error": None}}


@pytest.fixture(autouse=True)
def _unpaced(monkeypatch):
    monkeypatch.setattr(sec, "PACER", sec.RequestPacer(None))


def serve_sec(yahoo, document: str | None = None) -> None:
    yahoo.get(FUND_TICKERS_URL, FUND_TICKERS)
    yahoo.get(BROWSE, atom([("NPORT-P", ACCESSION, "2024-11-26")]),
              content_type="application/atom+xml")
    yahoo.get(DOCUMENT, document or nport_xml(), content_type="text/xml")
    yahoo.get(sec.TICKERS_URL, TICKERS)


def sec_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "sec.gov")


def yahoo_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "quoteSummary")


def assert_api_error(response, status: int) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and isinstance(body["error"], str) and body["error"]
    return body


# -- the route ------------------------------------------------------------------------------------
def test_the_route():
    assert resolve("/v2/etf/SPY/holdings").func.view_class is V2FundHoldingsView


# -- N-PORT -------------------------------------------------------------------------------------
def test_the_portfolio_from_the_latest_report(api, yahoo):
    serve_sec(yahoo)
    response = api.get("/v2/etf/voo/holdings")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == list(MEMBERS)
    assert body["symbol"] == "VOO" and body["source"] == "sec"
    assert body["fund"] == {"name": "Vanguard 500 Index Fund",
                            "registrant": "VANGUARD INDEX FUNDS", "cik": 36405,
                            "seriesId": "S000002839", "classId": "C000092055"}
    assert (body["asOf"], body["filedAt"], body["accessionNumber"], body["form"]) == (
        "2024-09-30", "2024-11-26", ACCESSION, "NPORT-P")
    assert (body["netAssets"], body["holdingsCount"]) == (1_000_000.0, 9)
    holdings = body["holdings"]
    assert isinstance(holdings, list) and len(holdings) == 9
    assert list(holdings[0]) == list(HOLDING_MEMBERS)
    assert holdings[0]["name"] == "Apple Inc" and holdings[0]["ticker"] == "AAPL"
    assert holdings[0]["weightPercent"] == 22.6 and holdings[0]["value"] == 226000.0
    assert body["top"] == holdings[:9]
    assert body["countryWeights"][0]["country"] == "US"
    assert body["assetCategoryWeights"][0] == {
        "code": "EC", "name": "Equity-common", "weightPercent": pytest.approx(28.1),
        "value": 281000.0, "holdings": 3}
    assert body["sectorWeights"] is None
    assert not yahoo_calls(yahoo)
    assert all("@" in c.request.headers["User-Agent"] for c in sec_calls(yahoo))


def test_top_fields_paging_and_order(api, yahoo):
    serve_sec(yahoo)
    assert [h["name"] for h in api.get("/v2/etf/VOO/holdings?top=2").json()["top"]] == [
        "Apple Inc", "United States Treasury"]
    assert api.get("/v2/etf/VOO/holdings?top=0").json()["top"] == []
    assert api.get("/v2/etf/VOO/holdings?fields=asOf,netAssets").json() == {
        "symbol": "VOO", "source": "sec", "asOf": "2024-09-30", "netAssets": 1_000_000.0}
    first = api.get("/v2/etf/VOO/holdings?limit=4&fields=holdings").json()["holdings"]
    assert [n["weightPercent"] for n in first["nodes"]] == [22.6, 9.80005, 7.0, 5.0]
    assert first["pageInfo"]["hasNextPage"] is True
    rest = api.get("/v2/etf/VOO/holdings?fields=holdings&cursor="
                   f"{first['pageInfo']['endCursor']}").json()["holdings"]
    assert len(rest["nodes"]) == 5 and rest["pageInfo"]["hasNextPage"] is False
    everything = api.get("/v2/etf/VOO/holdings").json()["holdings"]
    smallest = api.get("/v2/etf/VOO/holdings?order=asc&limit=3").json()["holdings"]
    assert smallest["nodes"] == everything[::-1][:3]
    assert smallest["nodes"][0]["weightPercent"] is None  # no weight: last by weight
    other_order = assert_api_error(api.get(
        f"/v2/etf/VOO/holdings?order=desc&cursor={smallest['pageInfo']['endCursor']}"), 400)
    assert other_order["error"].startswith("cursor")


def test_csv_is_the_holdings_table(api, yahoo):
    serve_sec(yahoo)
    response = api.get("/v2/etf/VOO/holdings?format=csv&limit=3")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert list(rows[0]) == list(HOLDING_MEMBERS) and len(rows) == 3
    assert rows[0]["cusip"] == "037833100" and rows[1]["units"] == "PA"
    assert 'rel="next"' in response["Link"]


# -- the Yahoo fallback -------------------------------------------------------------------------
def test_a_fund_edgar_does_not_list_gets_yahoos_top_holdings(api, yahoo):
    yahoo.get(FUND_TICKERS_URL, FUND_TICKERS)
    yahoo.summary("GLD", top_holdings())
    body = api.get("/v2/etf/GLD/holdings").json()
    assert body["source"] == "yahoo" and body["fund"]["name"] == "SPDR Gold Trust"
    assert body["asOf"] is None and body["netAssets"] == 75_000_000_000
    assert [(h["ticker"], h["weightPercent"]) for h in body["holdings"]] == [
        ("MSFT", 6.23), ("AAPL", 4.12)]
    assert body["holdings"][0]["cusip"] is None and body["holdingsCount"] == 2
    assert body["sectorWeights"] == [{"sector": "technology", "weightPercent": 51.0},
                                     {"sector": "realestate", "weightPercent": 2.0}]
    assert [w["code"] for w in body["assetCategoryWeights"]] == ["stock", "cash", "bond"]
    assert "top holdings only" in body["notices"][0]
    assert len(sec_calls(yahoo)) == 1  # the fund ticker list only


def test_a_registered_fund_without_a_report_gets_yahoos_too(api, yahoo):
    yahoo.get(FUND_TICKERS_URL, FUND_TICKERS)
    yahoo.get(BROWSE, atom([]), content_type="application/atom+xml")
    yahoo.summary("TLT", top_holdings())
    assert api.get("/v2/etf/TLT/holdings").json()["source"] == "yahoo"


def test_a_stock_is_a_404_saying_it_is_no_fund(api, yahoo):
    yahoo.get(FUND_TICKERS_URL, FUND_TICKERS)
    yahoo.summary("AAPL", top_holdings(quote_type="EQUITY", holdings=[]))
    body = assert_api_error(api.get("/v2/etf/AAPL/holdings"), 404)
    assert "not a fund" in body["error"] and "EQUITY" in body["error"]


def test_an_unknown_symbol_and_a_fund_without_holdings_are_404s(api, yahoo):
    yahoo.get(FUND_TICKERS_URL, FUND_TICKERS)
    yahoo.summary("ZZZZ", {"quoteSummary": {"result": None, "error": {
        "code": "Not Found", "description": "Quote not found for symbol: ZZZZ"}}},
        status=404)
    yahoo.summary("NEWF", top_holdings(holdings=[]))
    assert_api_error(api.get("/v2/etf/ZZZZ/holdings"), 404)
    body = assert_api_error(api.get("/v2/etf/NEWF/holdings"), 404)
    assert "No holdings found" in body["error"]


# -- errors ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(FAILURES))
@pytest.mark.parametrize("failing", ["tickers", "filings", "report"])
def test_edgar_failures_name_the_sec_and_never_fall_back(api, yahoo, kind, failing):
    if failing == "tickers":
        fail_url(yahoo.mock, FUND_TICKERS_URL, kind)
    else:
        yahoo.get(FUND_TICKERS_URL, FUND_TICKERS)
    if failing == "filings":
        fail_url(yahoo.mock, BROWSE, kind)
    else:
        yahoo.get(BROWSE, atom([("NPORT-P", ACCESSION, "2024-11-26")]),
                  content_type="application/atom+xml")
    fail_url(yahoo.mock, DOCUMENT, kind)
    status, _ = FAILURES[kind]
    body = assert_api_error(api.get("/v2/etf/VOO/holdings"), status)
    assert body["provider"] == "sec"
    assert not yahoo_calls(yahoo)


def test_a_refused_user_agent_says_which_setting_to_fix(api, yahoo):
    yahoo.get(FUND_TICKERS_URL, "<html>Undeclared Automated Tool</html>", status=403,
              content_type="text/html")
    body = assert_api_error(api.get("/v2/etf/VOO/holdings"), 502)
    assert "SEC_USER_AGENT" in body["error"] and body["provider"] == "sec"


def test_malformed_xml_is_a_502_naming_the_sec(api, yahoo):
    serve_sec(yahoo, document=nport_xml()[:-300])
    body = assert_api_error(api.get("/v2/etf/VOO/holdings"), 502)
    assert "not well-formed" in body["error"]


@pytest.mark.parametrize("kind", list(FAILURES))
def test_yahoo_failures_in_the_fallback_name_yahoo(api, yahoo, kind):
    yahoo.get(FUND_TICKERS_URL, FUND_TICKERS)
    fail_url(yahoo.mock, f"{QUERY2}/v10/finance/quoteSummary/GLD", kind)
    status, _ = FAILURES[kind]
    assert assert_api_error(api.get("/v2/etf/GLD/holdings"), status)["provider"] == "yahoo"


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_a_malformed_symbol_is_a_404_without_any_upstream_call(api, yahoo, raw):
    assert_api_error(api.get(f"/v2/etf/{raw}/holdings"), 404)
    assert not sec_calls(yahoo) and not yahoo_calls(yahoo)


@pytest.mark.parametrize("query", ["top=101", "top=-1", "top=x", "top=", "limit=-1",
                                   "limit=1001", "cursor=!!", "order=largest", "format=xml"])
def test_bad_parameters_are_400s_before_any_upstream_call(api, yahoo, query):
    body = assert_api_error(api.get(f"/v2/etf/VOO/holdings?{query}"), 400)
    assert body["error"].split(":")[0] in ("top", "limit", "cursor", "order", "format")
    assert not sec_calls(yahoo) and not yahoo_calls(yahoo)


def test_health_names_both_sources(api, instant_health_checks):
    notices = api.get("/v2/health").json()["notices"]
    assert any(n.startswith("Fund holdings (/v2/etf/{symbol}/holdings): SEC EDGAR N-PORT-P")
               for n in notices)
    assert any(n.startswith("Fund top holdings") and "Yahoo" in n for n in notices)


# -- the sandbox ----------------------------------------------------------------------------------
def test_sandbox_index_etfs(api, sandbox_upstream):
    spy = api.get("/v2/etf/SPY/holdings").json()
    assert spy["source"] == "sec" and spy["fund"]["cik"] == 884394
    assert spy["holdingsCount"] == len(spy["holdings"]) > 500
    weights = [h["weightPercent"] for h in spy["holdings"]]
    assert weights == sorted(weights, reverse=True)
    assert sum(weights) == pytest.approx(100, abs=0.01)
    apple = next(h for h in spy["holdings"] if h["cusip"] == "037833100")
    assert apple["ticker"] == "AAPL" and apple["isin"] == "US0378331005"
    assert apple["units"] == "NS" and apple["value"] == pytest.approx(
        apple["weightPercent"] * spy["netAssets"] / 100, rel=1e-6)
    resolved = [h for h in spy["holdings"] if h["assetCategory"] == "EC" and h["ticker"]]
    assert len(resolved) >= 495  # all but Alphabet's two classes (one name, two tickers)
    voo = api.get("/v2/etf/VOO/holdings").json()
    future = next(h for h in voo["holdings"] if h["assetCategory"] == "DE")
    assert (future["derivativeType"], future["units"]) == ("future", "NC")
    assert api.get("/v2/etf/VFIAX/holdings").json()["fund"]["seriesId"] == \
        voo["fund"]["seriesId"]
    dia = api.get("/v2/etf/DIA/holdings").json()
    assert all(h["ticker"] and h["isin"] is None
               for h in dia["holdings"] if h["assetCategory"] == "EC")


def test_sandbox_bond_etf_and_amended_reports(api, sandbox_upstream):
    tlt = api.get("/v2/etf/TLT/holdings").json()
    bonds = [h for h in tlt["holdings"] if h["assetCategory"] == "DBT"]
    assert len(bonds) == 40 and all(h["units"] == "PA" and h["maturityDate"]
                                    and h["couponRate"] for h in bonds)
    assert tlt["assetCategoryWeights"][0]["code"] == "DBT"
    arkk = api.get("/v2/etf/ARKK/holdings").json()
    assert arkk["form"] in ("NPORT-P", "NPORT-P/A")
    assert {w["country"] for w in arkk["countryWeights"]} == {"US", "CN", "DE"}
    assert any(h["restricted"] and h["fairValueLevel"] == 3 for h in arkk["holdings"])
    assert any(h["currency"] == "EUR" for h in arkk["holdings"])


@pytest.mark.parametrize("symbol", ["GLD", "SCHD", "VWUSX"])
def test_sandbox_funds_without_nport_fall_back_to_yahoo(api, sandbox_upstream, symbol):
    body = api.get(f"/v2/etf/{symbol}/holdings").json()
    assert body["source"] == "yahoo" and body["holdingsCount"] == len(body["holdings"]) > 0
    assert body["sectorWeights"] and body["notices"]


def test_sandbox_stock_is_a_404(api, sandbox_upstream):
    assert "not a fund" in assert_api_error(api.get("/v2/etf/MSFT/holdings"), 404)["error"]
