"""GET /v2/filings/{symbol}/insiders (SEC EDGAR ownership filings): the answer exactly, the
calls made (the raw XML, never the XSL rendering; only the window's Forms 4 and 5; each
document once), the filters, `fields`, paging, `order`, CSV, the summary, the caps and the
partial answers, every error status, and the filing list's older pages.

No recording of an ownership document or of ``company_tickers.json`` exists: the bodies are
hand-made in EDGAR's shapes (the submissions' columnar ``filings.recent``, the ownership
XML of tests/marketdata/providers/test_sec_insiders.py).
"""

from __future__ import annotations

import csv
import dataclasses
import io
from datetime import date

import pytest

from marketdata.providers import sec, sec_insiders
from marketdata.records import insiders as records
from tests.apps.payloads import FAILURES, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.apps.test_mcp_tools import _query, tools  # noqa: F401 (a fixture)
from tests.marketdata.providers.test_sec_insiders import FORM4, JOINT

TODAY = date(2025, 6, 30)
TICKERS = {"0": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."},
           "1": {"cik_str": 1067983, "ticker": "BRK-B", "title": "BERKSHIRE HATHAWAY INC"}}
SUBMISSIONS = sec.SUBMISSIONS_URL.format(cik=320193)
FOLDER = "https://www.sec.gov/Archives/edgar/data/320193"
AMENDED = FORM4.replace(b"<documentType>4</documentType>",
                        b"<documentType>4/A</documentType><dateOfOriginalSubmission>2025-04-03"
                        b"</dateOfOriginalSubmission>").replace(b"<value>20000</value>",
                                                                b"<value>21000</value>")
OTHER_ISSUER = JOINT.replace(b"<issuerCik>0000320193</issuerCik>",
                             b"<issuerCik>0000789019</issuerCik>")

# (form, accession, filed, reportDate, primaryDocument, body or None when never fetched)
LISTED = [
    ("4/A", "0000320193-25-000061", "2025-04-10", "2025-04-01",
     "xslF345X05/wk-form4_1744300000.xml", AMENDED),
    ("8-K", "0000320193-25-000060", "2025-04-08", "2025-04-08", "aapl-20250408.htm", None),
    ("4", "0000320193-25-000059", "2025-04-03", "2025-04-01",
     "xslF345X05/wk-form4_1743719610.xml", FORM4),
    ("3", "0000320193-25-000058", "2025-03-20", "2025-03-15",
     "xslF345X02/wk-form3_1742500000.xml", None),
    ("4", "0001111111-25-000003", "2025-03-12", "2025-03-10", "xslF345X06/form4.xml", JOINT),
    ("4", "0001111111-25-000002", "2025-03-11", "2025-03-10", "xslF345X06/form4.xml",
     OTHER_ISSUER),
    ("4", "0000320193-24-000100", "2024-05-02", "2024-04-30",
     "xslF345X05/wk-form4_1714600000.xml", None),  # before the window
]


def submissions(rows=LISTED, files=()) -> dict:
    """``submissions/CIK##########.json`` in EDGAR's shape (the columns the service reads)."""
    def column(i):
        return [row[i] for row in rows]

    return {"cik": "0000320193", "entityType": "operating", "name": "Apple Inc.",
            "tickers": ["AAPL"], "exchanges": ["Nasdaq"],
            "filings": {"recent": {"accessionNumber": column(1), "filingDate": column(2),
                                   "reportDate": column(3), "form": column(0),
                                   "primaryDocument": column(4),
                                   "primaryDocDescription": ["" for _ in rows],
                                   "size": [5000 for _ in rows]},
                        "files": list(files)}}


def raw_url(accession: str, primary: str) -> str:
    return f"{FOLDER}/{accession.replace('-', '')}/{primary.rsplit('/', 1)[-1]}"


@pytest.fixture(autouse=True)
def _setup(monkeypatch, settings):
    settings.SEC_USER_AGENT = "Example Research ops@example.com"
    monkeypatch.setattr(records, "current_day", lambda: TODAY)
    monkeypatch.setattr(sec, "PACER", sec.RequestPacer(None))
    monkeypatch.setattr(sec.SecProvider, "config", dataclasses.replace(
        sec.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001))


def serve(yahoo, rows=LISTED, files=(), answer=lambda body: body):
    """The ticker list, the filing list of ``rows`` (and older ``files``) and each listed
    document: ``answer(body)`` is what its URL gives, a body or a FAILURES kind."""
    yahoo.get(sec.TICKERS_URL, TICKERS)
    yahoo.get(SUBMISSIONS, submissions(rows, files))
    for _, accession, _, _, primary, body in rows:
        given = answer(body) if body is not None else None
        if isinstance(given, str) and given in FAILURES:
            fail_url(yahoo.mock, raw_url(accession, primary), given)
        elif given is not None:
            yahoo.get(raw_url(accession, primary), given, content_type="application/xml")
    return yahoo


@pytest.fixture
def edgar(yahoo):
    return serve(yahoo)


def calls(yahoo, fragment: str) -> list:
    return [c for c in yahoo.mock.calls if fragment in c.request.url]


def document_calls(yahoo) -> list[str]:
    return sorted(c.request.url.split("/Archives/edgar/data/", 1)[1]
                  for c in calls(yahoo, "/Archives/"))


def assert_api_error(response, status: int) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and isinstance(body["error"], str) and body["error"]
    return body


# -- the answer ---------------------------------------------------------------------------------
def test_the_answer_and_the_calls(api, edgar):
    response = api.get("/v2/filings/aapl/insiders")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == ["symbol", "cik", "start", "end", "filings", "filingsRead",
                          "truncated", "notices", "summary", "transactions"]
    assert {k: body[k] for k in list(body)[:8]} == {
        "symbol": "AAPL", "cik": 320193, "start": "2024-06-30", "end": "2025-06-30",
        "filings": 4, "filingsRead": 4, "truncated": False, "notices": []}
    rows = body["transactions"]
    # newest transaction first; within a day the later filing first, then the document's
    # order; the other issuer's document adds nothing; Form 3, the 8-K and the filing
    # before the window are never fetched
    assert [(r["transactionDate"], r["accessionNumber"][-6:], r["code"]) for r in rows] == [
        ("2025-04-02", "000061", "S"), ("2025-04-02", "000061", "S"),
        ("2025-04-02", "000061", "X"),
        ("2025-04-02", "000059", "S"), ("2025-04-02", "000059", "S"),
        ("2025-04-02", "000059", "X"),
        ("2025-04-01", "000061", "M"), ("2025-04-01", "000061", "F"),
        ("2025-04-01", "000061", "M"),
        ("2025-04-01", "000059", "M"), ("2025-04-01", "000059", "F"),
        ("2025-04-01", "000059", "M"),
        ("2025-03-10", "000003", "P")]
    assert document_calls(edgar) == sorted(
        f"320193/{a.replace('-', '')}/{p.rsplit('/', 1)[-1]}"
        for _, a, _, _, p, b in LISTED if b is not None)
    assert all(c.request.headers["User-Agent"] == "Example Research ops@example.com"
               for c in edgar.mock.calls)
    # the amendment supersedes the original: both listed, the original's rows flagged
    assert {(r["form"], r["superseded"], r["originalFiledAt"]) for r in rows[:12]} == {
        ("4/A", False, "2025-04-03"), ("4", True, None)}


def test_a_row_exactly(api, edgar):
    rows = api.get("/v2/filings/AAPL/insiders?codes=P").json()["transactions"]
    assert rows == [{
        "filedAt": "2025-03-12", "accessionNumber": "0001111111-25-000003", "form": "4",
        "originalFiledAt": None, "superseded": False,
        "insider": {"name": "Harbor Capital Partners LP", "cik": 1111111, "relationship": {
            "director": False, "officer": False, "officerTitle": None,
            "tenPercentOwner": True, "other": False, "otherText": None}},
        "owners": [
            {"name": "Harbor Capital Partners LP", "cik": 1111111, "relationship": {
                "director": False, "officer": False, "officerTitle": None,
                "tenPercentOwner": True, "other": False, "otherText": None}},
            {"name": "Harbor Capital GP LLC", "cik": 2222222, "relationship": {
                "director": False, "officer": False, "officerTitle": None,
                "tenPercentOwner": True, "other": True,
                "otherText": "General partner of a 10% owner"}}],
        "transactionDate": "2025-03-10", "deemedExecutionDate": None, "code": "P",
        "codeMeaning": "Open market or private purchase of non-derivative or derivative "
                       "security",
        "equitySwap": False, "tradingPlan": None, "securityTitle": "Common Stock",
        "shares": 250000, "price": 180.25, "value": 45062500.0, "acquiredOrDisposed": "A",
        "sharesOwnedAfter": 150250000, "direct": False, "natureOfOwnership": "See footnote",
        "derivative": None,
        "footnotes": ["Held by Harbor Capital Partners LP; the GP disclaims beneficial "
                      "ownership."]}]


def test_the_summary_leaves_superseded_rows_out(api, edgar):
    summary = api.get("/v2/filings/AAPL/insiders").json()["summary"]
    # the 4/A's rows (sales of 21,000 and 12,500.5 at 223.1234 and 224.5) and the fund's
    # purchase; the original Form 4's rows are superseded
    assert summary == {
        "transactions": 7, "insiders": 3, "buys": 1, "sells": 2,
        "buyShares": 250000, "sellShares": 33500.5, "netShares": 216499.5,
        "buyValue": 45062500.0, "sellValue": round(21000 * 223.1234 + 12500.5 * 224.5, 2),
        "netValue": round(45062500.0 - round(21000 * 223.1234 + 12500.5 * 224.5, 2), 2),
        "acquiredShares": 108136 + 250000, "disposedShares": 59256 + 21000 + 12500.5}


def test_documents_are_read_once(api, edgar):
    api.get("/v2/filings/AAPL/insiders")
    first = len(calls(edgar, "/Archives/"))
    api.get("/v2/filings/AAPL/insiders?start=2025-04-01&end=2025-04-30&codes=S")
    api.get("/v2/filings/AAPL/insiders?fields=summary")
    assert len(calls(edgar, "/Archives/")) == first == 4
    assert len(calls(edgar, "/submissions/")) == 1 and len(calls(edgar, "company_tickers")) == 1


# -- filters, fields, paging, order, CSV ---------------------------------------------------------
@pytest.mark.parametrize(("query", "expected"), [
    ("codes=P,S", ["S", "S", "S", "S", "P"]),
    ("codes=s", ["S", "S", "S", "S"]),
    ("codes=%20m%20,%20f,", ["M", "F", "M", "M", "F", "M"]),
    ("insider=cook", ["S", "S", "X", "S", "S", "X", "M", "F", "M", "M", "F", "M"]),
    ("insider=GP%20llc", ["P"]),  # the second owner of the joint filing
    ("insider=2222222", ["P"]),
    ("insider=0001214156&codes=F", ["F", "F"]),
    ("insider=nobody", []),
    ("start=2025-03-01&end=2025-03-31", ["P"]),
    ("start=2025-04-02&end=2025-04-02", ["S", "S", "X", "S", "S", "X"]),
])
def test_filters(api, edgar, query, expected):
    rows = api.get(f"/v2/filings/AAPL/insiders?{query}").json()["transactions"]
    assert [row["code"] for row in rows] == expected


def test_the_summary_follows_the_filters(api, edgar):
    body = api.get("/v2/filings/AAPL/insiders?codes=P").json()
    assert body["summary"]["transactions"] == 1 and body["summary"]["sells"] == 0
    assert body["summary"]["insiders"] == 2  # both owners of the joint filing


def test_fields_paging_and_order(api, edgar):
    page = api.get("/v2/filings/AAPL/insiders?limit=2&fields=symbol,transactions").json()
    assert list(page) == ["symbol", "transactions"]
    nodes = page["transactions"]["nodes"]
    assert [n["code"] for n in nodes] == ["S", "S"] and page["transactions"]["pageInfo"][
        "hasNextPage"] is True
    after = page["transactions"]["pageInfo"]["endCursor"]
    rest = api.get(f"/v2/filings/AAPL/insiders?limit=100&cursor={after}").json()
    assert len(rest["transactions"]["nodes"]) == 11
    oldest = api.get("/v2/filings/AAPL/insiders?order=asc").json()["transactions"]
    newest = api.get("/v2/filings/AAPL/insiders").json()["transactions"]
    assert oldest == newest[::-1]
    assert_api_error(api.get(f"/v2/filings/AAPL/insiders?order=asc&cursor={after}"), 400)
    assert next(iter(api.get("/v2/filings/AAPL/insiders?fields=bogus").json())) == "symbol"


def test_csv_is_the_transactions_table(api, edgar):
    response = api.get("/v2/filings/AAPL/insiders?format=csv&codes=P")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    (row,) = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert row["insider.name"] == "Harbor Capital Partners LP"
    assert row["insider.relationship.tenPercentOwner"] == "true"
    assert row["price"] == "180.25" and row["derivative"] == ""


# -- caps and partial answers -----------------------------------------------------------------
def test_the_cap_reads_the_newest_filings_and_says_so(api, edgar, monkeypatch):
    monkeypatch.setattr(sec_insiders, "MAX_FILINGS", 2)
    body = api.get("/v2/filings/AAPL/insiders").json()
    assert body["truncated"] is True and body["filings"] == 4 and body["filingsRead"] == 2
    (notice,) = body["notices"]
    assert "holds 4 ownership filings; the 2 filed most recently" in notice
    assert "2025-04-03" in notice
    assert {r["accessionNumber"] for r in body["transactions"]} == {
        "0000320193-25-000061", "0000320193-25-000059"}
    assert len(calls(edgar, "/Archives/")) == 2


def test_out_of_time_the_filings_read_are_served(api, edgar, monkeypatch):
    monkeypatch.setattr(sec_insiders, "ROUND_SIZE", 1)
    monkeypatch.setattr(sec, "time_for_a_round", lambda: False)
    response = api.get("/v2/filings/AAPL/insiders")
    body = response.json()
    assert body["filingsRead"] == 1 and body["truncated"] is True
    (notice,) = body["notices"]
    assert "3 of the filings to read were not reached within the request's time" in notice
    assert "filed before 2025-04-10" in notice
    assert response["Cache-Control"] == "no-store"


def test_a_failing_document_leaves_a_partial_answer(api, yahoo):
    serve(yahoo, answer=lambda body: "yahoo_500" if body is FORM4 else body)
    response = api.get("/v2/filings/AAPL/insiders")
    assert response.status_code == 200
    body = response.json()
    assert body["truncated"] is True and body["filingsRead"] == 3
    (notice,) = body["notices"]
    assert notice.startswith("1 filings could not be read (SEC EDGAR: ")
    assert notice.endswith("their transactions are missing: 0000320193-25-000059.")
    assert "0000320193-25-000059" not in {r["accessionNumber"] for r in body["transactions"]}
    assert not any(r["superseded"] for r in body["transactions"])
    assert response["Cache-Control"] == "no-store"


def test_a_malformed_document_is_left_out_with_a_notice(api, yahoo):
    hostile = b'<!DOCTYPE x [<!ENTITY a "b">]><ownershipDocument/>'
    serve(yahoo, answer=lambda body: hostile if body is JOINT else body)
    body = api.get("/v2/filings/AAPL/insiders").json()
    assert "DOCTYPE" in body["notices"][0] and body["filingsRead"] == 3


def test_filings_without_an_xml_document_are_named(api, yahoo):
    serve(yahoo, [("4", "0000320193-25-000050", "2025-01-06", "2025-01-02", "form4.txt",
                   None)])
    body = api.get("/v2/filings/AAPL/insiders").json()
    assert body["transactions"] == [] and body["filings"] == 1 and body["filingsRead"] == 0
    assert body["notices"] == ["1 ownership filings have no XML document (filed on paper or "
                               "as text) and are not read: 0000320193-25-000050."]
    assert not calls(yahoo, "/Archives/")


def test_a_company_without_ownership_filings(api, yahoo):
    serve(yahoo, [LISTED[1]])
    body = api.get("/v2/filings/AAPL/insiders").json()
    assert body["transactions"] == [] and body["filings"] == 0 and body["notices"] == []
    assert body["summary"]["transactions"] == 0 and body["summary"]["netValue"] == 0


# -- the filing list's older pages ---------------------------------------------------------------
PAGE = "CIK0000320193-submissions-001.json"
PAGE_URL = f"https://data.sec.gov/submissions/{PAGE}"
OLDER = ("4", "0000320193-23-000040", "2023-11-02", "2023-10-31",
         "xslF345X05/wk-form4_1698900000.xml",
         FORM4.replace(b"2025-04-01", b"2023-10-30").replace(b"2025-04-02", b"2023-10-31"))


FILES = [{"name": PAGE, "filingCount": 1, "filingFrom": "2019-01-01", "filingTo": "2024-12-31"}]


def page_body(rows) -> dict:
    return submissions(rows)["filings"]["recent"]


def test_an_older_page_is_read_when_the_window_reaches_before_the_list(api, yahoo):
    recent = [row for row in LISTED if row[2] >= "2025-01-01"]
    serve(yahoo, recent, FILES)
    yahoo.get(PAGE_URL, page_body([OLDER]))
    yahoo.get(raw_url(OLDER[1], OLDER[4]), OLDER[5])
    body = api.get("/v2/filings/AAPL/insiders?start=2023-06-01").json()
    assert "0000320193-23-000040" in {r["accessionNumber"] for r in body["transactions"]}
    assert body["filings"] == 5 and body["notices"] == []
    assert len(calls(yahoo, PAGE)) == 1
    # a window the recent part covers reads no older page
    api.get("/v2/filings/AAPL/insiders?start=2025-02-01")
    assert len(calls(yahoo, PAGE)) == 1


def test_older_pages_past_their_cap_are_named(api, yahoo, monkeypatch):
    monkeypatch.setattr(sec_insiders, "MAX_OLDER_PAGES", 0)
    serve(yahoo, [LISTED[1]], FILES)
    body = api.get("/v2/filings/AAPL/insiders?start=2023-06-01").json()
    assert body["truncated"] is True
    assert body["notices"][0].startswith("1 older pages of the company's filing list")
    assert not calls(yahoo, PAGE)


# -- bad input: 400 before any call ----------------------------------------------------------------
@pytest.mark.parametrize(("query", "member"), [
    ("start=2025-05-01&end=2025-04-01", "end"),
    ("start=2020-01-01&end=2025-06-30", "start"),  # over five years
    ("start=2019-01-01", "start"),  # five and a half years to today
    ("end=2025-13-01", "end"), ("start=", "start"), ("start=yesterday", "start"),
    ("codes=Q", "codes"), ("codes=P,XX", "codes"), ("codes=,", "codes"), ("codes=", "codes"),
    ("insider=", "insider"), ("insider=" + "x" * 101, "insider"),
    ("limit=-1", "limit"), ("cursor=!!", "cursor"), ("order=newest", "order"),
])
def test_bad_query_is_400_before_any_upstream_call(api, yahoo, query, member):
    body = assert_api_error(api.get(f"/v2/filings/AAPL/insiders?{query}"), 400)
    assert body["error"].startswith(member)
    assert len(yahoo.mock.calls) == 0


def test_an_unknown_code_names_the_table(api, yahoo):
    body = assert_api_error(api.get("/v2/filings/AAPL/insiders?codes=P,Q"), 400)
    assert "'Q'" in body["error"] and "P, S, V, A, D, F" in body["error"]


def test_five_years_is_the_limit(api, edgar):
    assert api.get("/v2/filings/AAPL/insiders?start=2020-07-01&end=2025-06-30"
                   ).status_code == 200


# -- 404 ------------------------------------------------------------------------------------------
def test_unknown_ticker_is_404_before_the_filing_list(api, yahoo):
    yahoo.get(sec.TICKERS_URL, TICKERS)
    body = assert_api_error(api.get("/v2/filings/ZZZZ/insiders"), 404)
    assert body["error"] == "Symbol not found: 'ZZZZ'"
    assert [c.request.url for c in yahoo.mock.calls] == [sec.TICKERS_URL]


def test_a_cik_edgar_has_no_filing_list_for_is_404(api, yahoo):
    yahoo.get(sec.TICKERS_URL, TICKERS)
    yahoo.get(SUBMISSIONS, "<?xml version='1.0'?><Error><Code>NoSuchKey</Code></Error>",
              status=404, content_type="application/xml")
    assert_api_error(api.get("/v2/filings/AAPL/insiders"), 404)
    assert not calls(yahoo, "/Archives/")


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_is_404_without_upstream_call(api, yahoo, raw):
    assert_api_error(api.get(f"/v2/filings/{raw}/insiders"), 404)
    assert len(yahoo.mock.calls) == 0


# -- upstream failures name SEC EDGAR ------------------------------------------------------------
@pytest.mark.parametrize("kind", list(FAILURES))
@pytest.mark.parametrize("failing", ["ticker list", "filing list", "every document"])
def test_upstream_failures_name_sec_edgar(api, yahoo, failing, kind):
    if failing == "ticker list":
        fail_url(yahoo.mock, sec.TICKERS_URL, kind)
    elif failing == "filing list":
        yahoo.get(sec.TICKERS_URL, TICKERS)
        fail_url(yahoo.mock, SUBMISSIONS, kind)
    else:
        serve(yahoo, answer=lambda body: kind)
    body = assert_api_error(api.get("/v2/filings/AAPL/insiders"), FAILURES[kind][0])
    assert body["provider"] == "sec"


def test_every_document_unusable_is_a_502(api, yahoo):
    serve(yahoo, answer=lambda body: b"<html>maintenance</html>")
    body = assert_api_error(api.get("/v2/filings/AAPL/insiders"), 502)
    assert body["provider"] == "sec" and "ownershipDocument" in body["error"]


def test_health_lists_the_capability(api):
    notices = api.get("/v2/health").json()["notices"]
    (notice,) = [n for n in notices if n.startswith("Insider transactions")]
    assert "SEC EDGAR ownership filings" in notice


def test_the_mcp_filings_tool_has_an_insiders_view(tools):  # noqa: F811 (the fixture)
    from apps.mcp.tools import ArgumentsRefused

    filings = tools["get_filings"]
    request = filings.request({"symbol": "AAPL", "view": "insiders", "startDate": "2025-01-01",
                               "codes": "P,S", "insider": "cook"})
    assert request.path == "/v2/filings/AAPL/insiders"
    assert _query(request) == {"start": "2025-01-01", "codes": "P,S", "insider": "cook",
                               "limit": "25"}
    assert filings.request({"symbol": "AAPL"}).path == "/v2/filings/AAPL"
    with pytest.raises(ArgumentsRefused):
        filings.request({"symbol": "AAPL", "codes": "P"})  # not a filter of the filings list
