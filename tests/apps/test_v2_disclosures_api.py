"""GET /v2/filings/{symbol}/fails-to-deliver and /v2/filings/{symbol}/congressional-trades:
both fails-to-deliver sources (FMP with a key, the SEC's files without), the keyed-only
congressional trades (a 501 naming the setting without the key, and the /v2/health notice),
`months`, `fields`, paging, every error status, the routes next to /v2/filings, and the
in-process sandbox for an equity, an ETF, a non-US listing and a security without fails.

No recording of these upstreams exists: the SEC zips are built here in the published layout
(pipe-delimited text, the header the SEC documents), FMP bodies are hand-written in FMP's
documented shapes.
"""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import zipfile
from datetime import date

import pytest
from django.urls import resolve

from apps.disclosures.views import V2CongressionalTradesView, V2FailsToDeliverView
from marketdata import capabilities as sources
from marketdata.providers import fmp, sec
from marketdata.records import disclosures as records
from marketdata.records.disclosures import CongressionalTrade, FailToDeliver
from marketdata.records.members import member_names
from tests.apps.payloads import FAILURES, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.conftest import calls_to, capture_logs

FTD_MEMBERS = member_names(FailToDeliver)
TRADE_MEMBERS = member_names(CongressionalTrade)

KEY = "fmp-k3y-disclosures-SECRET"
REAL_DAY = records.current_day
TODAY = date(2025, 3, 1)  # 202502a (Feb 1-15) is out since today; 202502b is not
FILES = "https://www.sec.gov/files/data/fails-deliver-data"
STABLE = "https://financialmodelingprep.com/stable"
V4 = "https://financialmodelingprep.com/api/v4"
HEADER = "SETTLEMENT DATE|CUSIP|SYMBOL|QUANTITY (FAILS)|DESCRIPTION|PRICE"

FEB_A = [
    "20250203|037833100|AAPL|12345|APPLE INC|228.01",
    "20250203|594918104|MSFT|400|MICROSOFT CORP|415.06",
    "20250214|037833100|AAPL|1020|APPLE INC|.",
]
JAN_B = [
    "20250131|037833100|AAPL|77|APPLE  INC|237.59",
    "20250116|46090E103|QQQ|5000|INVESCO QQQ TR|520.5",
]
# FMP's documented /api/v4/fail_to_deliver rows (hand-written in that shape), newest first.
FMP_FTD = [
    {"symbol": "AAPL", "date": "2025-02-14", "price": 244.6, "quantity": 1020,
     "cusip": "037833100", "name": "APPLE INC"},
    {"symbol": "AAPL", "date": "2025-01-31", "price": 237.59, "quantity": 77,
     "cusip": "037833100", "name": "APPLE INC"},
    {"symbol": "AAPL", "date": "2024-12-02", "price": 239.59, "quantity": 3,
     "cusip": "037833100", "name": "APPLE INC"},
]
# FMP's documented /stable/senate-trades and /stable/house-trades rows.
SENATE = [{
    "symbol": "AAPL", "disclosureDate": "2025-01-08", "transactionDate": "2024-12-19",
    "firstName": "Markwayne", "lastName": "Mullin", "office": "Markwayne Mullin",
    "district": "OK", "owner": "Self", "assetDescription": "Apple Inc", "assetType": "Stock",
    "type": "Sale (Partial)", "amount": "$15,001 - $50,000", "capitalGainsOver200USD": "False",
    "comment": "", "link": "https://efdsearch.senate.gov/search/view/ptr/e37322e3/"}]
HOUSE = [{
    "symbol": "AAPL", "disclosureDate": "2025-02-03", "transactionDate": "2025-01-10",
    "firstName": "Ro", "lastName": "Khanna", "office": "Ro Khanna", "district": "CA17",
    "owner": "", "assetDescription": "Apple Inc.", "assetType": "Stock",
    "type": "Purchase", "amount": "$1,001 - $15,000", "capitalGainsOver200USD": "False",
    "comment": "", "link": "https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2025/"
                           "20026590.pdf"}]


def zipped(lines: list[str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("cnsfails.txt", "\n".join([HEADER, *lines]) + "\n")
    return buffer.getvalue()


@pytest.fixture(autouse=True)
def _setup(settings, monkeypatch):
    settings.FMP_API_KEY = ""
    sources.reset_warnings()
    monkeypatch.setattr(records, "current_day", lambda: TODAY)
    for module, provider in ((fmp, fmp.FmpProvider), (sec, sec.SecProvider)):
        fast = dataclasses.replace(module.PROVIDER, backoff_seconds=0.001,
                                   backoff_max_seconds=0.001)
        monkeypatch.setattr(provider, "config", fast)


@pytest.fixture
def keyed(settings):
    settings.FMP_API_KEY = KEY
    return settings


def serve_file(yahoo, name: str, lines: list[str] | None, status: int = 200) -> None:
    body = zipped(lines) if lines is not None else "<html>Page Not Found</html>"
    yahoo.get(f"{FILES}/cnsfails{name}.zip", body, status=status,
              content_type="application/zip" if lines is not None else "text/html")


def file_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "fails-deliver-data/")


def fmp_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "financialmodelingprep.com")


def assert_api_error(response, status: int) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and isinstance(body["error"], str) and body["error"]
    return body


# -- the routes ---------------------------------------------------------------------------------
def test_both_paths_resolve_beside_the_filings_routes():
    assert resolve("/v2/filings/AAPL/fails-to-deliver").func.view_class is V2FailsToDeliverView
    assert resolve("/v2/filings/AAPL/congressional-trades").func.view_class is \
        V2CongressionalTradesView
    for other in ("/v2/filings/AAPL", "/v2/filings/AAPL/facts", "/v2/filings/search"):
        view = resolve(other).func.view_class
        assert view not in (V2FailsToDeliverView, V2CongressionalTradesView)


# -- fails-to-deliver: the SEC files (keyless) --------------------------------------------------
def test_sec_files_exactly_newest_first(api, yahoo):
    serve_file(yahoo, "202502a", FEB_A)
    serve_file(yahoo, "202501b", JAN_B)
    for name in ("202501a", "202412b", "202412a", "202411b"):
        serve_file(yahoo, name, [])
    response = api.get("/v2/filings/aapl/fails-to-deliver")
    assert response.status_code == 200, response.content
    assert response.json() == [
        {"symbol": "AAPL", "date": "2025-02-14", "quantity": 1020, "price": None,
         "name": "APPLE INC", "description": "APPLE INC", "cusip": "037833100"},
        {"symbol": "AAPL", "date": "2025-02-03", "quantity": 12345, "price": 228.01,
         "name": "APPLE INC", "description": "APPLE INC", "cusip": "037833100"},
        {"symbol": "AAPL", "date": "2025-01-31", "quantity": 77, "price": 237.59,
         "name": "APPLE INC", "description": "APPLE INC", "cusip": "037833100"},
    ]
    names = sorted(c.request.url.rsplit("cnsfails", 1)[1] for c in file_calls(yahoo))
    assert names == sorted(f"{p}.zip" for p in ("202502a", "202501b", "202501a", "202412b",
                                                "202412a", "202411b"))
    assert all("@" in c.request.headers["User-Agent"] for c in file_calls(yahoo))
    assert not fmp_calls(yahoo)


def test_files_are_cached_and_shared_between_symbols(api, yahoo):
    serve_file(yahoo, "202502a", FEB_A)
    serve_file(yahoo, "202501b", JAN_B)
    assert len(api.get("/v2/filings/AAPL/fails-to-deliver?months=1").json()) == 3
    assert api.get("/v2/filings/QQQ/fails-to-deliver?months=1").json()[0]["quantity"] == 5000
    assert api.get("/v2/filings/MSFT/fails-to-deliver?months=1").json()[0]["price"] == 415.06
    assert len(file_calls(yahoo)) == 2


def test_months_sets_the_number_of_files_and_a_missing_file_is_skipped(api, yahoo):
    serve_file(yahoo, "202502a", None, status=404)  # not out yet at EDGAR
    serve_file(yahoo, "202501b", JAN_B)
    body = api.get("/v2/filings/AAPL/fails-to-deliver?months=1").json()
    assert [row["date"] for row in body] == ["2025-01-31"]
    assert len(file_calls(yahoo)) == 2


def test_a_symbol_without_fails_is_an_empty_list(api, yahoo):
    serve_file(yahoo, "202502a", FEB_A)
    serve_file(yahoo, "202501b", JAN_B)
    assert api.get("/v2/filings/KO/fails-to-deliver?months=1").json() == []


def test_fields_and_paging(api, yahoo):
    serve_file(yahoo, "202502a", FEB_A)
    serve_file(yahoo, "202501b", JAN_B)
    first = api.get("/v2/filings/AAPL/fails-to-deliver?months=1&limit=2&fields=date,quantity")
    body = first.json()
    assert body["nodes"] == [{"date": "2025-02-14", "quantity": 1020},
                             {"date": "2025-02-03", "quantity": 12345}]
    assert body["pageInfo"]["hasNextPage"] is True
    rest = api.get("/v2/filings/AAPL/fails-to-deliver?months=1&cursor="
                   f"{body['pageInfo']['endCursor']}").json()
    assert [row["date"] for row in rest["nodes"]] == ["2025-01-31"]
    assert list(api.get("/v2/filings/AAPL/fails-to-deliver?months=1&fields=bogus")
                .json()[0]) == list(FTD_MEMBERS)


@pytest.mark.parametrize("kind", list(FAILURES))
def test_sec_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, f"{FILES}/cnsfails202502a.zip", kind)
    fail_url(yahoo.mock, f"{FILES}/cnsfails202501b.zip", kind)
    status, _ = FAILURES[kind]
    body = assert_api_error(api.get("/v2/filings/AAPL/fails-to-deliver?months=1"), status)
    assert body["provider"] == "sec"


def test_a_body_that_is_not_a_zip_is_502(api, yahoo):
    for name in ("202502a", "202501b"):
        yahoo.get(f"{FILES}/cnsfails{name}.zip", "<html>maintenance</html>",
                  content_type="text/html")
    body = assert_api_error(api.get("/v2/filings/AAPL/fails-to-deliver?months=1"), 502)
    assert body["provider"] == "sec"


# -- fails-to-deliver: FMP (keyed) --------------------------------------------------------------
def test_fmp_rows_cut_to_the_window(api, yahoo, keyed):
    yahoo.get(f"{V4}/fail_to_deliver", FMP_FTD)
    body = api.get("/v2/filings/AAPL/fails-to-deliver?months=1").json()
    assert body == [
        {"symbol": "AAPL", "date": "2025-02-14", "quantity": 1020, "price": 244.6,
         "name": "APPLE INC", "description": "APPLE INC", "cusip": "037833100"},
        {"symbol": "AAPL", "date": "2025-01-31", "quantity": 77, "price": 237.59,
         "name": "APPLE INC", "description": "APPLE INC", "cusip": "037833100"},
    ]
    assert len(api.get("/v2/filings/AAPL/fails-to-deliver?months=3").json()) == 3
    (call,) = fmp_calls(yahoo)  # one cached FMP answer serves both windows
    assert "symbol=AAPL" in call.request.url and f"apikey={KEY}" in call.request.url
    assert not file_calls(yahoo)


@pytest.mark.parametrize("status", [401, 402, 403])
def test_fmp_refusal_falls_back_to_the_sec_files(api, yahoo, keyed, status):
    yahoo.get(f"{V4}/fail_to_deliver", {"Error Message": "Invalid API KEY."}, status=status)
    serve_file(yahoo, "202502a", FEB_A)
    serve_file(yahoo, "202501b", JAN_B)
    response = api.get("/v2/filings/AAPL/fails-to-deliver?months=1")
    assert response.status_code == 200
    assert [row["quantity"] for row in response.json()] == [1020, 12345, 77]
    assert KEY not in response.content.decode()


@pytest.mark.parametrize("kind", list(FAILURES))
def test_fmp_failure_falls_back_to_the_sec_files(api, yahoo, keyed, kind):
    fail_url(yahoo.mock, f"{V4}/fail_to_deliver", kind)
    serve_file(yahoo, "202502a", FEB_A)
    serve_file(yahoo, "202501b", JAN_B)
    assert len(api.get("/v2/filings/AAPL/fails-to-deliver?months=1").json()) == 3


# -- congressional trades -----------------------------------------------------------------------
def test_without_the_key_a_501_naming_the_setting(api, yahoo):
    with capture_logs("apps.core.exceptions", logging.INFO) as logs:
        body = assert_api_error(api.get("/v2/filings/AAPL/congressional-trades"), 501)
    assert "upstream failure" not in logs.text()  # configuration, not an upstream's fault
    assert "FMP_API_KEY" in body["error"]
    assert len(yahoo.mock.calls) == 0
    notices = api.get("/v2/health").json()["notices"]
    (notice,) = [n for n in notices if n.startswith("Congressional trades")]
    assert "FMP_API_KEY" in notice and "not served" in notice


def test_both_chambers_newest_transaction_first(api, yahoo, keyed):
    yahoo.get(f"{STABLE}/senate-trades", SENATE)
    yahoo.get(f"{STABLE}/house-trades", HOUSE)
    response = api.get("/v2/filings/aapl/congressional-trades")
    assert response.status_code == 200, response.content
    assert response.json() == [
        {"symbol": "AAPL", "chamber": "house", "firstName": "Ro", "lastName": "Khanna",
         "office": "Ro Khanna", "district": "CA17", "tradeType": "Purchase",
         "amount": "$1,001 - $15,000", "assetDescription": "Apple Inc.", "assetType": "Stock",
         "owner": None, "transactionDate": "2025-01-10", "disclosureDate": "2025-02-03",
         "link": HOUSE[0]["link"]},
        {"symbol": "AAPL", "chamber": "senate", "firstName": "Markwayne", "lastName": "Mullin",
         "office": "Markwayne Mullin", "district": "OK", "tradeType": "Sale (Partial)",
         "amount": "$15,001 - $50,000", "assetDescription": "Apple Inc", "assetType": "Stock",
         "owner": "Self", "transactionDate": "2024-12-19", "disclosureDate": "2025-01-08",
         "link": SENATE[0]["link"]},
    ]
    for call in fmp_calls(yahoo):
        assert "symbol=AAPL" in call.request.url and f"apikey={KEY}" in call.request.url
    with_health = [n for n in api.get("/v2/health").json()["notices"]
                   if n.startswith("Congressional trades")]
    assert "(FMP_API_KEY set)" in with_health[0]


def test_trades_fields_paging_and_empty(api, yahoo, keyed):
    yahoo.get(f"{STABLE}/senate-trades", SENATE)
    yahoo.get(f"{STABLE}/house-trades", HOUSE)
    page = api.get("/v2/filings/AAPL/congressional-trades?limit=1&fields=lastName").json()
    assert page["nodes"] == [{"lastName": "Khanna"}] and page["pageInfo"]["hasNextPage"]
    assert list(api.get("/v2/filings/AAPL/congressional-trades").json()[0]) == \
        list(TRADE_MEMBERS)


def test_no_trades_is_an_empty_list(api, yahoo, keyed):
    yahoo.get(f"{STABLE}/senate-trades", [])
    yahoo.get(f"{STABLE}/house-trades", [])
    assert api.get("/v2/filings/KO/congressional-trades").json() == []


def test_a_failing_house_call_leaves_the_senate(api, yahoo, keyed):
    yahoo.get(f"{STABLE}/senate-trades", SENATE)
    yahoo.get(f"{STABLE}/house-trades", {"Error Message": "Restricted Endpoint: not "
                                                          "available under your current plan"},
              status=402)
    body = api.get("/v2/filings/AAPL/congressional-trades").json()
    assert [row["chamber"] for row in body] == ["senate"]


@pytest.mark.parametrize("kind", list(FAILURES))
def test_fmp_failures_name_the_provider(api, yahoo, keyed, kind):
    fail_url(yahoo.mock, f"{STABLE}/senate-trades", kind)
    status, _ = FAILURES[kind]
    body = assert_api_error(api.get("/v2/filings/AAPL/congressional-trades"), status)
    assert body["provider"] == "fmp" and KEY not in json.dumps(body)


def test_a_refused_key_is_502_without_the_key(api, yahoo, keyed):
    yahoo.get(f"{STABLE}/senate-trades", {"Error Message": "Invalid API KEY."}, status=401)
    body = assert_api_error(api.get("/v2/filings/AAPL/congressional-trades"), 502)
    assert body["provider"] == "fmp" and KEY not in json.dumps(body)


# -- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize("template", ["/v2/filings/{s}/fails-to-deliver",
                                      "/v2/filings/{s}/congressional-trades"])
@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_is_404_without_upstream_call(api, yahoo, keyed, template, raw):
    assert_api_error(api.get(template.format(s=raw)), 404)
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("query", ["months=0", "months=13", "months=abc", "months=",
                                   "limit=-1", "cursor=!!"])
def test_bad_query_is_400_before_any_upstream_call(api, yahoo, keyed, query):
    body = assert_api_error(api.get(f"/v2/filings/AAPL/fails-to-deliver?{query}"), 400)
    assert body["error"].split(":")[0] in ("months", "limit", "cursor")
    assert len(yahoo.mock.calls) == 0


def test_bad_paging_of_trades_is_400(api, yahoo, keyed):
    assert_api_error(api.get("/v2/filings/AAPL/congressional-trades?limit=1001"), 400)
    assert len(yahoo.mock.calls) == 0


# -- the sandbox --------------------------------------------------------------------------------
@pytest.fixture
def sandboxed(sandbox_upstream, monkeypatch):
    monkeypatch.setattr(records, "current_day", REAL_DAY)  # the sandbox clock's day
    return sandbox_upstream


@pytest.mark.parametrize("keyed_source", [False, True])
def test_sandbox_fails_for_an_equity_and_an_etf(api, sandboxed, settings, keyed_source):
    settings.FMP_API_KEY = KEY if keyed_source else ""
    for symbol in ("AAPL", "SPY"):
        body = api.get(f"/v2/filings/{symbol}/fails-to-deliver").json()
        assert body and all(row["symbol"] == symbol for row in body)
        dates = [row["date"] for row in body]
        assert dates == sorted(dates, reverse=True)
        assert all(row["quantity"] > 0 and row["price"] > 0 and row["cusip"] for row in body)
    assert body[0]["cusip"] == "78462F103"


def test_sandbox_sources_agree(api, sandboxed, settings):
    keyless = api.get("/v2/filings/AAPL/fails-to-deliver?months=2").json()
    settings.FMP_API_KEY = KEY
    assert api.get("/v2/filings/AAPL/fails-to-deliver?months=2").json() == keyless


@pytest.mark.parametrize("symbol", ["KO", "SAP.DE", "7203.T"])
def test_sandbox_without_fails(api, sandboxed, symbol):
    assert api.get(f"/v2/filings/{symbol}/fails-to-deliver").json() == []


def test_sandbox_trades(api, sandboxed, settings):
    assert_api_error(api.get("/v2/filings/AAPL/congressional-trades"), 501)
    settings.FMP_API_KEY = KEY
    for symbol in ("AAPL", "SPY", "MSFT"):
        body = api.get(f"/v2/filings/{symbol}/congressional-trades").json()
        assert isinstance(body, list)
        for row in body:
            assert row["symbol"] == symbol and row["chamber"] in ("senate", "house")
            assert row["amount"].startswith("$") and row["transactionDate"] <= \
                row["disclosureDate"]
    assert api.get("/v2/filings/SAP.DE/congressional-trades").json() == []


def test_trades_order_asc_is_oldest_transaction_first(api, yahoo, keyed):
    yahoo.get(f"{STABLE}/senate-trades", SENATE)
    yahoo.get(f"{STABLE}/house-trades", HOUSE)
    newest_first = api.get("/v2/filings/AAPL/congressional-trades").json()
    assert api.get("/v2/filings/AAPL/congressional-trades?order=desc").json() == newest_first
    oldest = api.get("/v2/filings/AAPL/congressional-trades?order=asc&limit=1").json()
    assert oldest["nodes"] == newest_first[-1:]
    assert oldest["nodes"][0]["transactionDate"] == "2024-12-19"
    assert_api_error(api.get("/v2/filings/AAPL/congressional-trades?order=newest"), 400)
