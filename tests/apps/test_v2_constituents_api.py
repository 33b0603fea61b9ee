"""GET /v2/index-constituents/{symbol}: Wikipedia without a key, FMP with one, the key
fallback, the index aliases, `fields`, every error status, the OpenAPI operation and the
in-process sandbox.

No recording of the Wikipedia articles exists: the pages are the hand-made ones of
``tests/marketdata/providers/test_wikipedia.py`` (the real tables' structure, abridged).
FMP bodies are hand-written in FMP's documented ``/stable/*-constituent`` row shape.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import pytest

from marketdata import capabilities
from marketdata.providers import fmp, wikipedia
from marketdata.records.companies import Constituent
from marketdata.records.members import member_names
from tests.apps.payloads import FAILURES, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.conftest import calls_to, capture_logs
from tests.marketdata.providers.test_wikipedia import DOW, NASDAQ100, SP500

MEMBERS = member_names(Constituent)

KEY = "fmp-k3y-0123456789abcdefINDEX"
STABLE = "https://financialmodelingprep.com/stable"
PAGE_URLS = {index: url for index, (url, _) in wikipedia.PAGES.items()}
PAGES = {"sp500": SP500, "nasdaq100": NASDAQ100, "dowjones": DOW}
FMP_SP500 = [
    {"symbol": "BRK.B", "name": "Berkshire Hathaway", "sector": "Financial Services",
     "subSector": "Insurance - Diversified", "headQuarter": "Omaha, NE",
     "dateFirstAdded": "2010-02-16", "cik": 1067983, "founded": "1839"},
    {"symbol": "AAPL", "name": "Apple Inc.", "sector": "Technology",
     "subSector": "Consumer Electronics", "headQuarter": "Cupertino, CA",
     "dateFirstAdded": "1982-11-30", "cik": "0000320193", "founded": "1977"},
]
INVALID_KEY = {"Error Message": "Invalid API KEY. Feel free to create a Free API Key or "
                                "visit https://site.financialmodelingprep.com/faqs for more."}


@pytest.fixture(autouse=True)
def _no_key_fast(settings, monkeypatch):
    settings.FMP_API_KEY = ""
    capabilities.reset_warnings()
    for module, cls in ((wikipedia, wikipedia.WikipediaProvider), (fmp, fmp.FmpProvider)):
        monkeypatch.setattr(cls, "config", dataclasses.replace(
            module.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001))


@pytest.fixture
def wiki(yahoo):
    """The three articles over `responses` (the `yahoo` fixture's mock)."""
    for index, url in PAGE_URLS.items():
        yahoo.get(url, PAGES[index], content_type="text/html; charset=UTF-8")
    return yahoo


@pytest.fixture
def keyed(settings):
    settings.FMP_API_KEY = KEY
    return settings


def wiki_calls(mock) -> list[Any]:
    return calls_to(mock.mock, "en.wikipedia.org")


def assert_api_error(response, status: int) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and isinstance(body["error"], str) and body["error"]
    return body


# -- Wikipedia --------------------------------------------------------------------------------
def test_sp500_from_wikipedia(api, wiki):
    response = api.get("/v2/index-constituents/%5EGSPC")
    assert response.status_code == 200, response.content
    assert response.json() == [
        {"symbol": "BRK-B", "name": "Berkshire Hathaway", "sector": "Financials",
         "subSector": "Multi-Sector Holdings", "headquarters": "Omaha, Nebraska",
         "dateFirstAdded": "2010-02-16", "cik": "0001067983", "founded": "1839"},
        {"symbol": "GOOG", "name": "Alphabet Inc. (Class C)",
         "sector": "Communication Services", "subSector": "Interactive Media & Services",
         "headquarters": "Mountain View, California", "dateFirstAdded": "2006-04-03",
         "cik": "0001652044", "founded": "1998"},
        {"symbol": "MMM", "name": "3M", "sector": "Industrials",
         "subSector": "Industrial Conglomerates", "headquarters": "Saint Paul, Minnesota",
         "dateFirstAdded": "1957-03-04", "cik": "0000066740", "founded": "1902"}]
    calls = wiki_calls(wiki)
    assert [c.request.url for c in calls] == [PAGE_URLS["sp500"]]
    assert calls[0].request.headers["User-Agent"] == wikipedia.USER_AGENT


@pytest.mark.parametrize("symbol, index", [
    ("%5EGSPC", "sp500"), ("%5Egspc", "sp500"), ("SPX", "sp500"), ("gspc", "sp500"),
    ("SP500", "sp500"), ("%5ENDX", "nasdaq100"), ("ndx", "nasdaq100"),
    ("NASDAQ100", "nasdaq100"), ("%5EDJI", "dowjones"), ("DJI", "dowjones"),
    ("djia", "dowjones")])
def test_aliases(api, wiki, symbol, index):
    response = api.get(f"/v2/index-constituents/{symbol}")
    assert response.status_code == 200, response.content
    assert [c.request.url for c in wiki_calls(wiki)] == [PAGE_URLS[index]]


def test_dow_and_nasdaq100_members(api, wiki):
    dow = api.get("/v2/index-constituents/%5EDJI").json()
    assert [(r["symbol"], r["sector"], r["dateFirstAdded"]) for r in dow] == [
        ("AAPL", "Information technology", "2015-03-19"), ("MMM", "Conglomerate", "1976-08-09")]
    assert all(r["subSector"] is r["cik"] is r["headquarters"] is None for r in dow)
    ndx = api.get("/v2/index-constituents/NDX").json()
    assert [r["symbol"] for r in ndx] == ["ABNB", "ADBE", "AMD"]


def test_one_fetch_a_day_for_every_alias(api, wiki):
    for symbol in ("%5EGSPC", "SPX", "sp500", "GSPC"):
        assert api.get(f"/v2/index-constituents/{symbol}").status_code == 200
    assert len(wiki_calls(wiki)) == 1


def test_fields_apply_to_each_member(api, wiki):
    body = api.get("/v2/index-constituents/DJI?fields=symbol,cik,bogus").json()
    assert body == [{"symbol": "AAPL", "cik": None}, {"symbol": "MMM", "cik": None}]
    assert list(api.get("/v2/index-constituents/DJI?fields=bogus").json()[0]) == list(MEMBERS)


@pytest.mark.parametrize("symbol", ["AAPL", "%5EIXIC", "%5ERUT", "SPY", "%5EGSPCX"])
def test_other_symbols_are_404_naming_the_supported_ones(api, yahoo, symbol):
    body = assert_api_error(api.get(f"/v2/index-constituents/{symbol}"), 404)
    assert "^GSPC" in body["error"] and "^NDX" in body["error"] and "^DJI" in body["error"]
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_is_404_without_upstream_call(api, yahoo, raw):
    body = assert_api_error(api.get(f"/v2/index-constituents/{raw}"), 404)
    assert len(body["error"]) < 400
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("kind", list(FAILURES))
def test_wikipedia_failures(api, yahoo, kind):
    fail_url(yahoo.mock, PAGE_URLS["dowjones"], kind)
    body = assert_api_error(api.get("/v2/index-constituents/DJI"), FAILURES[kind][0])
    assert body["provider"] == "wikipedia"


@pytest.mark.parametrize("status, page", [
    (404, "<html>Wikipedia does not have an article with this exact name.</html>"),
    (200, "<html><body><p>The article was rewritten without a table.</p></body></html>")])
def test_moved_article_or_missing_table_is_a_502(api, yahoo, status, page):
    yahoo.get(PAGE_URLS["nasdaq100"], page, status=status, content_type="text/html")
    body = assert_api_error(api.get("/v2/index-constituents/NDX"), 502)
    assert body["provider"] == "wikipedia"


# -- FMP with a key ---------------------------------------------------------------------------
def test_fmp_with_a_key(api, wiki, keyed):
    wiki.get(f"{STABLE}/sp500-constituent", FMP_SP500)
    body = api.get("/v2/index-constituents/SPX").json()
    assert body == [
        {"symbol": "AAPL", "name": "Apple Inc.", "sector": "Technology",
         "subSector": "Consumer Electronics", "headquarters": "Cupertino, CA",
         "dateFirstAdded": "1982-11-30", "cik": "0000320193", "founded": "1977"},
        {"symbol": "BRK-B", "name": "Berkshire Hathaway", "sector": "Financial Services",
         "subSector": "Insurance - Diversified", "headquarters": "Omaha, NE",
         "dateFirstAdded": "2010-02-16", "cik": "0001067983", "founded": "1839"}]
    assert not wiki_calls(wiki)


@pytest.mark.parametrize("status", [401, 403])
def test_refused_key_falls_back_warns_once_and_never_leaks(api, wiki, keyed, status):
    wiki.get(f"{STABLE}/dowjones-constituent", {**INVALID_KEY, "echo": KEY}, status=status)
    with capture_logs("", logging.DEBUG) as logs:
        first = api.get("/v2/index-constituents/DJI")
        second = api.get("/v2/index-constituents/%5EDJI?fields=symbol")
    assert [r["symbol"] for r in first.json()] == ["AAPL", "MMM"]
    assert second.json() == [{"symbol": "AAPL"}, {"symbol": "MMM"}]
    warnings = [r for r in logs.records() if r.get("message") == "provider_key_rejected"]
    assert len(warnings) == 1 and warnings[0]["provider"] == "fmp"
    for text in (logs.text(), first.content.decode(), second.content.decode()):
        assert KEY not in text


@pytest.mark.parametrize("kind", list(FAILURES))
def test_fmp_failure_falls_back_to_wikipedia(api, wiki, keyed, kind):
    fail_url(wiki.mock, f"{STABLE}/nasdaq-constituent", kind)
    assert [r["symbol"] for r in api.get("/v2/index-constituents/NDX").json()] == [
        "ABNB", "ADBE", "AMD"]


def test_both_failing_report_fmp_without_the_key(api, yahoo, keyed):
    yahoo.get(f"{STABLE}/sp500-constituent", INVALID_KEY, status=401)
    fail_url(yahoo.mock, PAGE_URLS["sp500"], "connection_error")
    with capture_logs("", logging.DEBUG) as logs:
        response = api.get("/v2/index-constituents/SPX")
    body = assert_api_error(response, 502)
    assert body["provider"] == "fmp"
    assert KEY not in response.content.decode() and KEY not in logs.text()


# -- OpenAPI ----------------------------------------------------------------------------------
def openapi() -> dict[str, Any]:
    """The served document, built once per test process (tests/openapi_validation.py)."""
    from tests.openapi_validation import served_document

    return served_document()


def test_openapi_operation():
    op = openapi()["paths"]["/v2/index-constituents/{symbol}"]["get"]
    assert op["operationId"] == "get_index_constituents"
    assert op["tags"] == ["Index constituents (v2)"]
    assert {p["name"] for p in op["parameters"]} == {"symbol", "fields", "format"}
    assert {"200", "400", "404", "429", "500"} <= op["responses"].keys()
    item = op["responses"]["200"]["content"]["application/json"]["schema"]["items"]
    assert set(item["properties"]) == set(MEMBERS)
    assert "Wikipedia" in op["description"] and "^GSPC" in op["description"]


# -- sandbox ----------------------------------------------------------------------------------
def test_sandbox_wikipedia(api, sandbox_upstream):
    from marketdata.sandbox.sec.companies import cik_for

    sp500 = api.get("/v2/index-constituents/%5EGSPC").json()
    assert len(sp500) == 503 and len({r["symbol"] for r in sp500}) == 503
    assert [r["symbol"] for r in sp500] == sorted(r["symbol"] for r in sp500)
    assert all(r["cik"] == f"{cik_for(r['symbol']):010d}" for r in sp500)
    assert {"BRK-B", "BF-B", "GOOG", "GOOGL"} <= {r["symbol"] for r in sp500}
    assert all(r["name"] and r["sector"] and r["subSector"] and r["headquarters"]
               and r["dateFirstAdded"] and r["founded"] for r in sp500)
    assert len(api.get("/v2/index-constituents/NDX").json()) == 101
    dow = api.get("/v2/index-constituents/DJI").json()
    assert len(dow) == 30 and all(r["dateFirstAdded"] for r in dow)
    assert {e["provider"] for e in sandbox_upstream.request_log} == {"wikipedia"}
    # Every member is a sandbox equity the quote endpoint knows.
    quote = api.get(f"/v2/quote-type/{dow[0]['symbol']}").json()
    assert quote["quoteType"] == "EQUITY"


def test_sandbox_keyed_source(api, sandbox_upstream, keyed):
    body = api.get("/v2/index-constituents/DJI").json()
    assert len(body) == 30 and all(list(r) == list(MEMBERS) for r in body)
    assert {e["provider"] for e in sandbox_upstream.request_log} == {"fmp"}
