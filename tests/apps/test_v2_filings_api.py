"""GET /v2/filings/{symbol}, /v2/filings/{symbol}/facts, /v2/filings/{symbol}/cik and
/v2/filings/search (SEC EDGAR): the real AAPL recordings through the endpoints (values
exact), paging, fields, the `taxonomy`/`concepts`/`form` filters, the search's parameters,
every error status, the OpenAPI operations, and the in-process sandbox for an equity
(AAPL), a foreign issuer (BABA) and an ETF (SPY: not an EDGAR ticker there, a 404).

No recording exists of ``company_tickers.json`` or of a full-text search answer: they are
hand-made in EDGAR's shapes (the ticker list's ``{"0": {cik_str, ticker, title}}``; EFTS's
Elasticsearch ``hits``).
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.providers import sec
from tests.apps.payloads import FAILURES, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES

SUBMISSIONS = "sec/edgar-submissions/CIK0000320193-finance-query.json"
FACTS = "sec/edgar-companyfacts/CIK0000320193-finance-query.json"
TICKERS = {
    "0": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."},
    "1": {"cik_str": 1067983, "ticker": "BRK-B", "title": "BERKSHIRE HATHAWAY INC"},
    "2": {"cik_str": 1577552, "ticker": "BABA", "title": "Alibaba Group Holding Ltd"},
}
AAPL_SUBMISSIONS = sec.SUBMISSIONS_URL.format(cik=320193)
AAPL_FACTS = sec.COMPANY_FACTS_URL.format(cik=320193)
FILER_MEMBERS = ["cik", "name", "sic", "sicDescription", "fiscalYearEnd", "category", "ein",
                 "entityType", "stateOfIncorporation", "website", "tickers", "exchanges",
                 "insiderTransactionForOwnerExists", "insiderTransactionForIssuerExists",
                 "filings"]
FACT_MEMBERS = ["concept", "label", "description", "taxonomy", "unit", "dataPoints"]
SEARCH_HIT = {"_index": "edgar_file", "_score": 5.0, "_source": {
    "ciks": ["0000320193"], "display_names": ["Apple Inc.  (AAPL)  (CIK 0000320193)"],
    "file_date": "2024-11-01", "form": "10-K", "adsh": "0000320193-24-000123"}}


def search_body(hits: int, total: int) -> dict:
    return {"took": 10, "timed_out": False, "hits": {
        "total": {"value": total, "relation": "eq"}, "max_score": 5.0,
        "hits": [SEARCH_HIT] * hits}}


@pytest.fixture(autouse=True)
def _fast_and_unpaced(monkeypatch):
    monkeypatch.setattr(sec, "PACER", sec.RequestPacer(None))
    monkeypatch.setattr(sec.SecProvider, "config", dataclasses.replace(
        sec.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001))


@pytest.fixture
def edgar(yahoo, recording):
    yahoo.get(sec.TICKERS_URL, TICKERS)
    yahoo.get(AAPL_SUBMISSIONS, recording(SUBMISSIONS))
    yahoo.get(AAPL_FACTS, recording(FACTS))
    return yahoo


def calls(yahoo, fragment: str) -> list:
    return [c for c in yahoo.mock.calls if fragment in c.request.url]


def assert_api_error(response, status: int) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and isinstance(body["error"], str) and body["error"]
    return body


# -- /v2/filings/{symbol}/cik -----------------------------------------------------------------
def test_cik(api, edgar):
    assert api.get("/v2/filings/aapl/cik").json() == {"symbol": "AAPL", "cik": 320193}
    assert api.get("/v2/filings/BRK.B/cik?fields=cik").json() == {"cik": 1067983}
    assert len(calls(edgar, "company_tickers")) == 1  # the list is cached


def test_cik_unknown_ticker_is_404(api, edgar):
    body = assert_api_error(api.get("/v2/filings/ZZZZ/cik"), 404)
    assert body["error"] == "Symbol not found: 'ZZZZ'"


@pytest.mark.parametrize("kind", list(FAILURES))
def test_cik_ticker_list_failure(api, yahoo, kind):
    fail_url(yahoo.mock, sec.TICKERS_URL, kind)
    body = assert_api_error(api.get("/v2/filings/AAPL/cik"), FAILURES[kind][0])
    assert body["provider"] == "sec"


def test_edgar_refusing_the_user_agent_is_a_502_naming_the_setting(api, yahoo, settings):
    settings.SEC_USER_AGENT = "Example Research ops@example.com"
    yahoo.mock.get(sec.TICKERS_URL, status=403, body="<html>Undeclared Automated Tool</html>")
    body = assert_api_error(api.get("/v2/filings/AAPL"), 502)
    assert "SEC_USER_AGENT" in body["error"]


# -- /v2/filings/{symbol} ---------------------------------------------------------------------
def test_filings_exactly_as_recorded(api, edgar, recording, settings):
    settings.SEC_USER_AGENT = "Example Research ops@example.com"
    response = api.get("/v2/filings/AAPL")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == FILER_MEMBERS
    assert {k: v for k, v in body.items() if k != "filings"} == {
        "cik": 320193, "name": "Apple Inc.", "sic": "3571",
        "sicDescription": "Electronic Computers", "fiscalYearEnd": "0926",
        "category": "Large accelerated filer", "ein": "942404110", "entityType": "operating",
        "stateOfIncorporation": "CA", "website": None, "tickers": ["AAPL"],
        "exchanges": ["Nasdaq"], "insiderTransactionForOwnerExists": False,
        "insiderTransactionForIssuerExists": True}
    recent = recording(SUBMISSIONS)["filings"]["recent"]
    assert len(body["filings"]) == 1000
    assert [f["accessionNumber"] for f in body["filings"]] == recent["accessionNumber"]
    assert body["filings"][0] == {
        "accessionNumber": "0001140361-26-023363", "filingDate": "2026-05-29",
        "reportDate": "2026-05-27", "form": "4", "size": 6956,
        "primaryDocument": "xslF345X06/form4.xml", "primaryDocDescription": "FORM 4"}
    (call,) = calls(edgar, "/submissions/")
    assert call.request.headers["User-Agent"] == "Example Research ops@example.com"


def test_filings_paged_and_fields(api, edgar, recording):
    accessions = recording(SUBMISSIONS)["filings"]["recent"]["accessionNumber"]
    first = api.get("/v2/filings/AAPL?limit=3").json()["filings"]
    assert [f["accessionNumber"] for f in first["nodes"]] == accessions[:3]
    assert first["pageInfo"]["hasNextPage"] is True
    after = first["pageInfo"]["endCursor"]
    second = api.get(f"/v2/filings/AAPL?limit=2&cursor={after}").json()["filings"]
    assert [f["accessionNumber"] for f in second["nodes"]] == accessions[3:5]
    assert api.get("/v2/filings/AAPL?fields=cik,name").json() == {"cik": 320193,
                                                                  "name": "Apple Inc."}
    assert len(calls(edgar, "/submissions/")) == 1  # one cached document


@pytest.mark.parametrize("query", ["limit=-1", "limit=x", "cursor=%%%"])
def test_filings_bad_paging_is_400_before_any_upstream_call(api, yahoo, query):
    assert_api_error(api.get(f"/v2/filings/AAPL?{query}"), 400)
    assert len(yahoo.mock.calls) == 0


def test_filings_unknown_ticker_is_404_without_submissions_call(api, edgar):
    assert_api_error(api.get("/v2/filings/ZZZZ"), 404)
    assert not calls(edgar, "/submissions/")


def test_filings_of_a_cik_edgar_lacks_is_404(api, yahoo):
    yahoo.get(sec.TICKERS_URL, TICKERS)
    yahoo.mock.get(AAPL_SUBMISSIONS, status=404, body="<Error><Code>NoSuchKey</Code></Error>")
    assert assert_api_error(api.get("/v2/filings/AAPL"), 404)["error"] == \
        "Symbol not found: 'AAPL'"


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_is_404_without_upstream_call(api, yahoo, raw):
    for path in (f"/v2/filings/{raw}", f"/v2/filings/{raw}/facts", f"/v2/filings/{raw}/cik"):
        response = api.get(path)
        assert response.status_code == 404, (path, response.content)
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("kind", list(FAILURES))
def test_filings_upstream_failure(api, yahoo, kind):
    yahoo.get(sec.TICKERS_URL, TICKERS)
    fail_url(yahoo.mock, AAPL_SUBMISSIONS, kind)
    body = assert_api_error(api.get("/v2/filings/AAPL"), FAILURES[kind][0])
    assert body["provider"] == "sec"


# -- /v2/filings/{symbol}/facts ---------------------------------------------------------------
def test_facts_defaults_exactly_as_recorded(api, edgar, recording):
    response = api.get("/v2/filings/AAPL/facts")
    assert response.status_code == 200, response.content
    body = response.json()
    # Of the 17 default concepts the (cut) recording has Assets and AssetsCurrent only.
    assert [(f["concept"], f["unit"]) for f in body] == [("Assets", "USD"),
                                                         ("AssetsCurrent", "USD")]
    assert all(list(f) == FACT_MEMBERS and f["taxonomy"] == "us-gaap" for f in body)
    recorded = recording(FACTS)["facts"]["us-gaap"]["Assets"]
    assert body[0]["label"] == "Assets" and body[0]["description"] == recorded["description"]
    assert body[0]["dataPoints"] == recorded["units"]["USD"]
    assert body[1]["dataPoints"][-1] == {
        "start": None, "end": "2026-03-28", "val": 144114000000.0, "fy": 2026, "fp": "Q2",
        "form": "10-Q", "filed": "2026-05-01", "accn": "0000320193-26-000013",
        "frame": "CY2026Q1I"}


def test_facts_concepts_taxonomy_and_form(api, edgar, recording):
    facts = recording(FACTS)["facts"]
    body = api.get("/v2/filings/AAPL/facts?concepts=AccountsPayableCurrent, Nope,"
                   "AntidilutiveSecuritiesExcludedFromComputationOfEarningsPerShareAmount")
    assert [(f["concept"], f["unit"]) for f in body.json()] == [
        ("AccountsPayableCurrent", "USD"),
        ("AntidilutiveSecuritiesExcludedFromComputationOfEarningsPerShareAmount", "shares")]
    dei = api.get("/v2/filings/AAPL/facts?taxonomy=dei&concepts="
                  "EntityCommonStockSharesOutstanding").json()
    assert dei[0]["taxonomy"] == "dei" and dei[0]["unit"] == "shares"
    assert dei[0]["dataPoints"] == \
        facts["dei"]["EntityCommonStockSharesOutstanding"]["units"]["shares"]
    annual = api.get("/v2/filings/AAPL/facts?concepts=Assets&form=10-k").json()
    assert [p["form"] for p in annual[0]["dataPoints"]] == ["10-K"] * 36
    assert api.get("/v2/filings/AAPL/facts?concepts=Assets&form=20-F").json() == []
    assert api.get("/v2/filings/AAPL/facts?taxonomy=ifrs-full").json() == []
    assert len(calls(edgar, "/companyfacts/")) == 1  # the whole document, cached


def test_facts_paging_applies_to_every_item_and_fields(api, edgar, recording):
    usd = recording(FACTS)["facts"]["us-gaap"]
    body = api.get("/v2/filings/AAPL/facts?limit=2").json()
    assert [f["dataPoints"]["nodes"] for f in body] == [
        usd["Assets"]["units"]["USD"][:2], usd["AssetsCurrent"]["units"]["USD"][:2]]
    after = body[0]["dataPoints"]["pageInfo"]["endCursor"]
    second = api.get(f"/v2/filings/AAPL/facts?limit=1&cursor={after}").json()
    assert second[1]["dataPoints"]["nodes"] == usd["AssetsCurrent"]["units"]["USD"][2:3]
    assert api.get("/v2/filings/AAPL/facts?fields=concept,unit").json() == [
        {"concept": "Assets", "unit": "USD"}, {"concept": "AssetsCurrent", "unit": "USD"}]


@pytest.mark.parametrize("query", ["taxonomy=US%20GAAP", "taxonomy=", "limit=1001"])
def test_facts_bad_parameters_are_400_before_any_upstream_call(api, yahoo, query):
    assert_api_error(api.get(f"/v2/filings/AAPL/facts?{query}"), 400)
    assert len(yahoo.mock.calls) == 0


def test_facts_of_a_company_without_xbrl_is_empty(api, yahoo):
    yahoo.get(sec.TICKERS_URL, TICKERS)
    yahoo.mock.get(AAPL_FACTS, status=404, body="<Error><Code>NoSuchKey</Code></Error>")
    assert api.get("/v2/filings/AAPL/facts").json() == []
    assert_api_error(api.get("/v2/filings/ZZZZ/facts"), 404)


@pytest.mark.parametrize("kind", list(FAILURES))
def test_facts_upstream_failure(api, yahoo, kind):
    yahoo.get(sec.TICKERS_URL, TICKERS)
    fail_url(yahoo.mock, AAPL_FACTS, kind)
    body = assert_api_error(api.get("/v2/filings/AAPL/facts"), FAILURES[kind][0])
    assert body["provider"] == "sec"


# -- /v2/filings/search -----------------------------------------------------------------------
def test_search(api, yahoo):
    yahoo.get(sec.SEARCH_URL, search_body(2, 5))
    response = api.get('/v2/filings/search?q="net%20sales"&forms=10-K,%208-K&startDate='
                       "2024-01-01&endDate=2024-12-31&from=3&size=2")
    assert response.status_code == 200, response.content
    hit = {"fileDate": "2024-11-01", "form": "10-K", "adsh": "0000320193-24-000123",
           "displayNames": ["Apple Inc.  (AAPL)  (CIK 0000320193)"], "ciks": ["0000320193"]}
    assert response.json() == {"totalHits": 5, "hits": [hit, hit], "nextFrom": None}
    (call,) = calls(yahoo, "efts.sec.gov")
    assert parse_qs(urlsplit(call.request.url).query) == {
        "q": ['"net sales"'], "forms": ["10-K,8-K"], "dateRange": ["custom"],
        "startdt": ["2024-01-01"], "enddt": ["2024-12-31"], "from": ["3"], "size": ["2"]}


def test_search_next_page_and_fields(api, yahoo):
    yahoo.get(sec.SEARCH_URL, search_body(2, 9))
    assert api.get("/v2/filings/search?q=apple&size=2&fields=totalHits,nextFrom").json() \
        == {"totalHits": 9, "nextFrom": 2}
    assert api.get("/v2/filings/search?q=apple&size=2&from=4").json()["nextFrom"] == 6
    first, _ = calls(yahoo, "efts.sec.gov")
    assert "from" not in parse_qs(urlsplit(first.request.url).query)
    assert api.get("/v2/filings/search?q=apple&size=2").status_code == 200
    assert len(calls(yahoo, "efts.sec.gov")) == 2  # the repeat came from the cache


def test_search_pages_as_a_cursor_connection(api, yahoo):
    """With `cursor` or `limit`, `hits` is the v2 connection (cursors: positions in the
    whole result), `totalHits` and `nextFrom` kept; `from` is the cursor's numeric alias."""
    from apps.core.v2 import encode_cursor

    yahoo.get(sec.SEARCH_URL, search_body(2, 5))
    first = api.get("/v2/filings/search?q=apple&limit=2").json()
    assert set(first) == {"totalHits", "hits", "nextFrom"}
    assert first["totalHits"] == 5 and first["nextFrom"] == 2
    hits = first["hits"]
    assert set(hits) == {"edges", "nodes", "pageInfo"} and len(hits["nodes"]) == 2
    assert [e["cursor"] for e in hits["edges"]] == [encode_cursor(0), encode_cursor(1)]
    assert hits["pageInfo"] == {"startCursor": encode_cursor(0), "endCursor": encode_cursor(1),
                                "hasNextPage": True, "hasPreviousPage": False}
    second = api.get(f"/v2/filings/search?q=apple&limit=2&cursor={encode_cursor(1)}").json()
    assert [e["cursor"] for e in second["hits"]["edges"]] == [encode_cursor(2),
                                                              encode_cursor(3)]
    assert second["hits"]["pageInfo"]["hasPreviousPage"] is True
    alias = api.get("/v2/filings/search?q=apple&limit=2&from=2").json()
    assert alias == second  # `from=2` starts where the cursor of position 1 does
    last = api.get(f"/v2/filings/search?q=apple&cursor={encode_cursor(3)}").json()
    assert last["hits"]["pageInfo"]["hasNextPage"] is False and last["nextFrom"] is None
    queries = [parse_qs(urlsplit(c.request.url).query) for c in calls(yahoo, "efts.sec.gov")]
    assert [(q.get("from"), q["size"]) for q in queries] == [
        (None, ["2"]), (["2"], ["2"]), (["4"], ["100"])]  # the alias came from the cache
    # Without cursor/limit, `from`/`size` keep today's bare array; with both spellings the
    # connection's win (cursor of position 1 over from=0, limit=2 over size=7).
    assert isinstance(api.get("/v2/filings/search?q=apple&size=2&from=2").json()["hits"], list)
    both = f"/v2/filings/search?q=apple&limit=2&size=7&cursor={encode_cursor(1)}&from=0"
    assert api.get(both).json() == second


def test_search_cursor_past_what_edgar_serves_is_an_empty_page(api, yahoo):
    from apps.core.v2 import encode_cursor

    body = api.get(f"/v2/filings/search?q=apple&cursor={encode_cursor(9_999)}").json()
    assert body["hits"]["nodes"] == [] and body["hits"]["pageInfo"]["hasNextPage"] is False
    assert body["nextFrom"] is None and not yahoo.mock.calls


@pytest.mark.parametrize("query", [
    "", "q=", "q=%20%20", "q=x&startDate=2024-13-01", "q=x&startDate=20240101",
    "q=x&endDate=yesterday", "q=x&startDate=2024-05-01&endDate=2024-04-30", "q=x&size=0",
    "q=x&size=101", "q=x&from=-1", "q=x&from=10000", "q=x&size=ten", "q=x&limit=0",
    "q=x&limit=101", "q=x&cursor=!!", "q=x&cursor=LTE"])
def test_search_bad_parameters_are_400_before_any_upstream_call(api, yahoo, query):
    assert_api_error(api.get(f"/v2/filings/search?{query}"), 400)
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("kind", list(FAILURES))
def test_search_upstream_failure(api, yahoo, kind):
    fail_url(yahoo.mock, sec.SEARCH_URL, kind)
    body = assert_api_error(api.get("/v2/filings/search?q=apple"), FAILURES[kind][0])
    assert body["provider"] == "sec"


def test_search_answer_without_hits_is_502(api, yahoo):
    yahoo.get(sec.SEARCH_URL, {"error": "unexpected"})
    assert_api_error(api.get("/v2/filings/search?q=apple"), 502)


# -- OpenAPI ----------------------------------------------------------------------------------
def openapi() -> dict:
    """The served document, built once per test process (tests/openapi_validation.py)."""
    from tests.openapi_validation import served_document

    return served_document()


def test_openapi_operations():
    paths = openapi()["paths"]
    expected = {
        "/v2/filings/{symbol}": ("get_filings", {"symbol", "fields", "cursor", "limit",
                                                 "order", "format"}),
        "/v2/filings/{symbol}/facts": ("get_filings_facts", {
            "symbol", "fields", "cursor", "limit", "taxonomy", "concepts", "form"}),
        "/v2/filings/{symbol}/cik": ("get_filings_cik", {"symbol", "fields"}),
        "/v2/filings/search": ("get_filings_search", {
            "q", "forms", "startDate", "endDate", "cursor", "limit", "from", "size",
            "fields"}),
    }
    for path, (operation_id, params) in expected.items():
        op = paths[path]["get"]
        assert op["operationId"] == operation_id and op["tags"] == ["Filings (v2)"]
        assert {p["name"] for p in op["parameters"]} == params, path
        assert {"200", "400"} <= op["responses"].keys()
    search = {p["name"]: p for p in paths["/v2/filings/search"]["get"]["parameters"]}
    assert search["q"]["required"] is True
    assert search["size"]["schema"]["maximum"] == 100


# -- sandbox ----------------------------------------------------------------------------------
SANDBOX_DAY = datetime(2025, 6, 2, 15, 0, tzinfo=UTC)


@pytest.fixture
def frozen_sandbox(sandbox_upstream, monkeypatch):
    monkeypatch.setattr(sandbox_upstream, "clock", lambda: SANDBOX_DAY)
    return sandbox_upstream


def test_sandbox_equity(api, frozen_sandbox):
    from marketdata.sandbox.sec import companies, filings

    assert api.get("/v2/filings/AAPL/cik").json() == {"symbol": "AAPL", "cik": 320193}
    body = api.get("/v2/filings/AAPL?limit=5").json()
    assert body["cik"] == 320193 and body["name"].startswith("Apple")
    assert body["tickers"] == ["AAPL"]
    recent = filings.recent_filings(320193, SANDBOX_DAY.date())
    assert [f["accessionNumber"] for f in body["filings"]["nodes"]] == \
        [f.accession for f in recent[:5]]
    facts = api.get("/v2/filings/AAPL/facts").json()
    assert len(facts) == 17 and all(f["dataPoints"] for f in facts)
    by_concept = {f["concept"]: f for f in facts}
    assert by_concept["EarningsPerShareDiluted"]["unit"] == "USD/shares"
    revenue, cost, gross = (by_concept[c]["dataPoints"] for c in
                            ("Revenues", "CostOfRevenue", "GrossProfit"))
    assert [g["val"] for g in gross] == [r["val"] - c["val"] for r, c in zip(revenue, cost,
                                                                             strict=True)]
    tens = {f.accession for f in recent if f.form in ("10-Q", "10-K")}
    assert tens <= {p["accn"] for p in revenue}
    quarterly = api.get("/v2/filings/AAPL/facts?concepts=Assets&form=10-Q").json()
    assert {p["form"] for p in quarterly[0]["dataPoints"]} == {"10-Q"}
    search = api.get("/v2/filings/search?q=Apple&forms=10-K&size=2").json()
    assert search["hits"] and all(h["form"] == "10-K" and h["ciks"] == ["0000320193"]
                                  for h in search["hits"])
    assert companies.cik_for("AAPL") == 320193
    assert {e["provider"] for e in frozen_sandbox.request_log} == {"sec"}


def test_sandbox_foreign_issuer_and_etf(api, frozen_sandbox):
    body = api.get("/v2/filings/BABA").json()
    assert body["cik"] == 1577552
    assert {f["form"] for f in body["filings"]} == {"6-K", "20-F"}
    facts = api.get("/v2/filings/BABA/facts?concepts=Revenues").json()
    assert {p["form"] for p in facts[0]["dataPoints"]} == {"20-F"}
    assert {p["fp"] for p in facts[0]["dataPoints"]} == {"FY"}
    for path in ("/v2/filings/SPY", "/v2/filings/SPY/facts", "/v2/filings/SPY/cik"):
        assert_api_error(api.get(path), 404)  # a fund: not an EDGAR ticker in the sandbox


def test_sandbox_search_paging_and_dates(api, frozen_sandbox):
    first = api.get("/v2/filings/search?q=cloud%20revenue&size=3").json()
    assert first["totalHits"] > 3 and len(first["hits"]) == 3 and first["nextFrom"] == 3
    second = api.get("/v2/filings/search?q=cloud%20revenue&size=3&from=3").json()
    assert {h["adsh"] for h in first["hits"]}.isdisjoint(h["adsh"] for h in second["hits"])
    ranged = api.get("/v2/filings/search?q=cloud%20revenue&startDate=2025-01-01"
                     "&endDate=2025-03-31").json()
    assert ranged["hits"] and all("2025-01-01" <= h["fileDate"] <= "2025-03-31"
                                  for h in ranged["hits"])
