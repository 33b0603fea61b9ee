"""GET /v2/filings/{cik}/13f and /v2/filings/13f/search: an institutional manager's 13F
holdings and 13F filers by name, per status (200 with order, paging, `fields` and CSV; 400
for a bad CIK, period or name before any upstream call; 404 for an unknown CIK, a filer
without 13F reports and a quarter without one; 429/502/503/504 naming the provider), the
routes beside the symbol routes of /v2/filings, and the in-process sandbox.

EDGAR's bodies are hand-made in its documented shapes
(:mod:`tests.marketdata.providers.thirteenf_bodies`); the provider tests cover the parser.
"""

from __future__ import annotations

import csv
import dataclasses
import io

import pytest
from django.urls import get_resolver, resolve
from django.urls.resolvers import URLPattern, URLResolver

from apps.ownership.views import V2InstitutionalFilersView, V2InstitutionalHoldingsView
from marketdata.providers import sec
from marketdata.records.institutions import Holding, InstitutionalHoldings
from marketdata.records.members import member_names
from tests.apps.payloads import FAILURES, fail_url
from tests.conftest import calls_to
from tests.marketdata.providers import thirteenf_bodies as bodies
from tests.mcp import post_json

CIK, NAME = bodies.CIK, bodies.NAME
Q2, Q1, OLD = bodies.LATEST, bodies.ORIGINAL_Q1, bodies.ORIGINAL_Q3
FILINGS = [(Q2, "13F-HR", "2024-08-14", "2024-06-30"),
           (Q1, "13F-HR", "2024-05-15", "2024-03-31"),
           (OLD, "13F-HR", "2022-11-14", "2022-09-30")]
ROWS = [bodies.row("COCA COLA CO", "191216100", 28_676_000_000, 400_000_000),
        bodies.row("APPLE INC", "037833100", 84_248_000_000, 400_000_000),
        bodies.row("AMERICAN EXPRESS CO", "025816109", 41_093_000_000, 151_610_700,
                   discretion="DFND", others="4,11", voting=(0, 151_610_700, 0)),
        bodies.row("SPDR S&P 500 ETF TR", "78462F103", 5_461_000_000, 10_000_000,
                   title="TR UNIT", put_call="Put")]
SUBMISSIONS_URL = sec.SUBMISSIONS_URL.format(cik=CIK)
HOLDINGS_MEMBERS = list(member_names(InstitutionalHoldings))
HOLDING_MEMBERS = list(member_names(Holding))


@pytest.fixture(autouse=True)
def _fast(monkeypatch):
    fast = dataclasses.replace(sec.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001)
    monkeypatch.setattr(sec.SecProvider, "config", fast)


def serve(yahoo, accession: str, rows: list) -> None:
    folder = f"{bodies.ARCHIVES}/{CIK}/{accession.replace('-', '')}"
    yahoo.get(f"{folder}/{accession}-index.htm", bodies.index_page(CIK, accession),
              content_type="text/html")
    yahoo.get(f"{folder}/infotable.xml", bodies.table(rows), content_type="text/xml")


@pytest.fixture
def edgar(yahoo):
    yahoo.get(SUBMISSIONS_URL, bodies.submissions(CIK, NAME, FILINGS))
    serve(yahoo, Q2, ROWS)
    serve(yahoo, Q1, ROWS[:2])
    serve(yahoo, OLD, [bodies.row("APPLE INC", "037833100", 53_000, 900)])
    return yahoo


def assert_api_error(response, status: int) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and isinstance(body["error"], str) and body["error"]
    return body


# -- routes -------------------------------------------------------------------------------------
def _takers(resolver: URLResolver, path: str, prefix: str = "") -> list[str]:
    """Every pattern (of every app, included resolvers entered) that matches ``path``."""
    out = []
    for item in resolver.url_patterns:
        matched = item.pattern.match(path)
        if not matched:
            continue
        if isinstance(item, URLResolver):
            out += _takers(item, matched[0], prefix + str(item.pattern))
        elif isinstance(item, URLPattern):
            out.append(prefix + str(item.pattern))
    return out


def test_the_search_route_is_shadowed_by_no_symbol_route():
    """`/v2/filings/13f/search` reaches the filer search, and no other pattern of any app
    (`v2/filings/<str:symbol>/...` ones included) would take that path."""
    assert resolve("/v2/filings/13f/search").func.view_class is V2InstitutionalFilersView
    assert _takers(get_resolver(), "v2/filings/13f/search") == ["v2/filings/13f/search"]
    assert resolve("/v2/filings/1067983/13f").func.view_class is V2InstitutionalHoldingsView
    for other in ("/v2/filings/AAPL", "/v2/filings/AAPL/facts", "/v2/filings/search",
                  "/v2/filings/AAPL/cik", "/v2/filings/13f"):
        assert resolve(other).func.view_class not in (V2InstitutionalHoldingsView,
                                                      V2InstitutionalFilersView)


# -- /v2/filings/{cik}/13f: 200 -----------------------------------------------------------------
def test_the_latest_quarter_largest_first(api, edgar):
    response = api.get("/v2/filings/1067983/13f")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == HOLDINGS_MEMBERS
    assert {k: v for k, v in body.items() if k != "holdings"} == {
        "cik": CIK, "name": NAME, "period": "2024-06-30", "filedAt": "2024-08-14",
        "accessionNumber": Q2, "form": "13F-HR", "amendmentNumber": None,
        "amendmentType": None, "valueUnit": "dollars", "additions": [],
        "totalValue": 159_478_000_000, "holdingsCount": 4,
        "periods": ["2024-06-30", "2024-03-31", "2022-09-30"]}
    assert [h["issuer"] for h in body["holdings"]] == [
        "APPLE INC", "AMERICAN EXPRESS CO", "COCA COLA CO", "SPDR S&P 500 ETF TR"]
    assert body["holdings"][1] == {
        "issuer": "AMERICAN EXPRESS CO", "cusip": "025816109", "figi": None, "class": "COM",
        "value": 41_093_000_000, "shares": 151_610_700, "sharesType": "SH", "putCall": None,
        "discretion": "DFND", "otherManagers": "4,11", "votingSole": 0,
        "votingShared": 151_610_700, "votingNone": 0}
    assert list(body["holdings"][0]) == HOLDING_MEMBERS
    assert body["holdings"][3]["putCall"] == "Put"


def test_a_quarter_in_thousands_is_served_in_dollars(api, edgar):
    body = api.get("/v2/filings/0001067983/13f?period=2022-09-30").json()
    assert (body["cik"], body["valueUnit"], body["totalValue"]) == (CIK, "thousands",
                                                                   53_000_000)
    assert body["holdings"][0]["value"] == 53_000_000


def test_order_and_paging(api, edgar):
    desc = api.get("/v2/filings/1067983/13f").json()["holdings"]
    asc = api.get("/v2/filings/1067983/13f?order=asc").json()["holdings"]
    assert asc == desc[::-1]
    page = api.get("/v2/filings/1067983/13f?limit=2").json()
    assert page["holdings"]["nodes"] == desc[:2] and page["holdingsCount"] == 4
    cursor = page["holdings"]["pageInfo"]["endCursor"]
    rest = api.get(f"/v2/filings/1067983/13f?limit=2&cursor={cursor}").json()
    assert rest["holdings"]["nodes"] == desc[2:]
    assert rest["holdings"]["pageInfo"]["hasNextPage"] is False
    assert_api_error(api.get(f"/v2/filings/1067983/13f?order=asc&cursor={cursor}"), 400)


def test_fields_and_csv(api, edgar):
    body = api.get("/v2/filings/1067983/13f?fields=totalValue,nope").json()
    assert body == {"cik": CIK, "period": "2024-06-30", "totalValue": 159_478_000_000}
    response = api.get("/v2/filings/1067983/13f?format=csv&limit=2&fields=issuer,value")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows == [["issuer", "value"], ["APPLE INC", "84248000000"],
                    ["AMERICAN EXPRESS CO", "41093000000"]]
    assert "cursor=" in response["Link"]


# -- 400 before any upstream call ---------------------------------------------------------------
@pytest.mark.parametrize("cik", ["abc", "12345678901", "-5", "1.5", "1e5", "BRK-B",
                                 "１２３"])
def test_a_malformed_cik_is_a_400(api, yahoo, cik):
    body = assert_api_error(api.get(f"/v2/filings/{cik}/13f"), 400)
    assert "CIK" in body["error"]
    assert not calls_to(yahoo.mock, "sec.gov")


@pytest.mark.parametrize("period", ["2024-05-31", "2024Q2", "2024-6-30", "", "2024-06-31",
                                    "latest"])
def test_a_period_that_is_no_quarter_end_is_a_400(api, yahoo, period):
    body = assert_api_error(api.get(f"/v2/filings/1067983/13f?period={period}"), 400)
    assert "period" in body["error"]
    assert not calls_to(yahoo.mock, "sec.gov")


def test_a_period_with_blanks_around_is_read(api, edgar):
    body = api.get("/v2/filings/1067983/13f?period=%202024-03-31%20").json()
    assert body["period"] == "2024-03-31" and body["holdingsCount"] == 2


# -- 404 ----------------------------------------------------------------------------------------
def test_cik_zero_is_no_filer_without_a_call(api, yahoo):
    body = assert_api_error(api.get("/v2/filings/0000000000/13f"), 404)
    assert body["error"] == "No EDGAR filer has CIK 0"
    assert not calls_to(yahoo.mock, "sec.gov")


def test_an_unknown_cik(api, yahoo):
    yahoo.get(sec.SUBMISSIONS_URL.format(cik=42), "<Error><Code>NoSuchKey</Code></Error>",
              status=404, content_type="application/xml")
    body = assert_api_error(api.get("/v2/filings/42/13f"), 404)
    assert body["error"] == "No EDGAR filer has CIK 42"


def test_a_filer_without_13f_reports(api, yahoo):
    yahoo.get(sec.SUBMISSIONS_URL.format(cik=320193), bodies.submissions(320193, "Apple Inc.",
                                                                         []))
    body = assert_api_error(api.get("/v2/filings/320193/13f"), 404)
    assert body["error"] == "CIK 320193 (Apple Inc.) has filed no 13F holdings report (13F-HR)"


def test_a_quarter_without_a_report_lists_the_nearest(api, edgar):
    body = assert_api_error(api.get("/v2/filings/1067983/13f?period=2023-12-31"), 404)
    assert body["error"] == (f"CIK {CIK} ({NAME}) filed no 13F-HR for the quarter ending "
                             "2023-12-31; nearest quarters with one: 2024-06-30, 2024-03-31, "
                             "2022-09-30")


# -- upstream failures --------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(FAILURES))
def test_the_filing_list_failing(api, yahoo, kind):
    fail_url(yahoo.mock, SUBMISSIONS_URL, kind)
    body = assert_api_error(api.get("/v2/filings/1067983/13f"), FAILURES[kind][0])
    assert body["provider"] == "sec"


@pytest.mark.parametrize("kind", list(FAILURES))
def test_the_table_failing(api, yahoo, kind):
    yahoo.get(SUBMISSIONS_URL, bodies.submissions(CIK, NAME, FILINGS[:1]))
    folder = f"{bodies.ARCHIVES}/{CIK}/{Q2.replace('-', '')}"
    yahoo.get(f"{folder}/{Q2}-index.htm", bodies.index_page(CIK, Q2), content_type="text/html")
    fail_url(yahoo.mock, f"{folder}/infotable.xml", kind)
    body = assert_api_error(api.get("/v2/filings/1067983/13f"), FAILURES[kind][0])
    assert body["provider"] == "sec"


def test_a_table_that_is_not_xml_is_a_502(api, yahoo):
    yahoo.get(SUBMISSIONS_URL, bodies.submissions(CIK, NAME, FILINGS[:1]))
    folder = f"{bodies.ARCHIVES}/{CIK}/{Q2.replace('-', '')}"
    yahoo.get(f"{folder}/{Q2}-index.htm", bodies.index_page(CIK, Q2), content_type="text/html")
    yahoo.get(f"{folder}/infotable.xml", "<informationTable><infoTable>", content_type="text/xml")
    body = assert_api_error(api.get("/v2/filings/1067983/13f"), 502)
    assert body["provider"] == "sec" and "not well-formed XML" in body["error"]


# -- /v2/filings/13f/search ---------------------------------------------------------------------
def search_hits() -> dict:
    return bodies.search_answer([
        bodies.search_hit(Q2, "13F-HR", "2024-08-14", CIK,
                          "BERKSHIRE HATHAWAY INC  (BRK-B, BRK-A)  (CIK 0001067983)"),
        bodies.search_hit("0001990001-24-000101", "13F-HR", "2024-08-01", 1990001,
                          "Harbor Capital LLC  (CIK 0001990001)"),
        bodies.search_hit("0001234567-24-000001", "13F-HR/A", "2024-09-01", 1234567,
                          "Berkshire Hathaway Energy Co  (CIK 0001234567)")])


def test_filers_by_name(api, yahoo):
    yahoo.get(bodies.SEARCH, search_hits())
    response = api.get("/v2/filings/13f/search?name=berkshire%20hathaway")
    assert response.status_code == 200, response.content
    assert response.json() == [
        {"cik": CIK, "name": NAME, "latestFiledAt": "2024-08-14"},
        {"cik": 1234567, "name": "Berkshire Hathaway Energy Co", "latestFiledAt": "2024-09-01"}]
    page = api.get("/v2/filings/13f/search?name=berkshire&limit=1&fields=cik").json()
    assert page["nodes"] == [{"cik": CIK}] and page["pageInfo"]["hasNextPage"] is True
    table = api.get("/v2/filings/13f/search?name=berkshire&format=csv").content.decode()
    assert table.splitlines()[0] == "cik,name,latestFiledAt"


def test_no_filer_of_that_name(api, yahoo):
    yahoo.get(bodies.SEARCH, bodies.search_answer([]))
    assert api.get("/v2/filings/13f/search?name=nobody").json() == []


@pytest.mark.parametrize("query", ["", "?name=", "?name=%20%20", "?name=%3Dcmd", "?name=-x",
                                   "?name=a%22b", "?name=" + "a" * 101])
def test_a_bad_name_is_a_400(api, yahoo, query):
    body = assert_api_error(api.get(f"/v2/filings/13f/search{query}"), 400)
    assert "name" in body["error"]
    assert not calls_to(yahoo.mock, "sec.gov")


@pytest.mark.parametrize("kind", list(FAILURES))
def test_the_search_failing(api, yahoo, kind):
    fail_url(yahoo.mock, bodies.SEARCH, kind)
    body = assert_api_error(api.get("/v2/filings/13f/search?name=berkshire"),
                            FAILURES[kind][0])
    assert body["provider"] == "sec"


# -- the sandbox --------------------------------------------------------------------------------
def test_the_sandbox_serves_both_routes(api, sandbox_upstream):
    body = api.get("/v2/filings/1067983/13f?period=2024-06-30&limit=3").json()
    assert (body["name"], body["period"], body["valueUnit"]) == \
        ("Berkshire Hathaway Inc.", "2024-06-30", "dollars")
    assert body["holdingsCount"] == 8 and len(body["holdings"]["nodes"]) == 3
    values = [h["value"] for h in body["holdings"]["nodes"]]
    assert values == sorted(values, reverse=True)
    old = api.get("/v2/filings/1067983/13f?period=2022-06-30").json()
    assert old["valueUnit"] == "thousands" and all(h["value"] % 1000 == 0
                                                   for h in old["holdings"])
    found = api.get("/v2/filings/13f/search?name=berkshire").json()
    assert found[0]["cik"] == CIK and found[0]["name"] == "Berkshire Hathaway Inc"
    assert api.get("/v2/filings/13f/search?name=apple").json() == []
    assert api.get("/v2/filings/1990004/13f").status_code == 404  # 13F-NT notices only


def test_the_graphql_root_fields(api, sandbox_upstream, unvalidated_responses):
    rest = api.get("/v2/filings/1067983/13f?period=2024-06-30&limit=2").json()
    status, _, answer = post_json("/graphql", {"query": (
        '{ institutionalHoldings(cik: "1067983", period: "2024-06-30", first: 2) '
        "{ cik period valueUnit totalValue holdingsCount "
        "holdings { nodes { issuer cusip class value putCall } } } "
        'institutionalFilers(name: "berkshire") { nodes { cik name } } '
        'bad: institutionalHoldings(cik: "x1") { cik } }')})
    assert status == 200, answer
    found = answer["data"]["institutionalHoldings"]
    assert {k: found[k] for k in ("cik", "period", "valueUnit", "totalValue")} == \
        {k: rest[k] for k in ("cik", "period", "valueUnit", "totalValue")}
    assert [n["value"] for n in found["holdings"]["nodes"]] == \
        [n["value"] for n in rest["holdings"]["nodes"]]
    assert answer["data"]["institutionalFilers"]["nodes"][0] == {
        "cik": CIK, "name": "Berkshire Hathaway Inc"}
    assert answer["data"]["bad"] is None
    (error,) = [e for e in answer["errors"] if e["path"] == ["bad"]]
    assert error["extensions"]["status"] == 400
