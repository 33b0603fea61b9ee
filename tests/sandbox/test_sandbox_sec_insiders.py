"""The sandbox's Form 4 documents (``marketdata/sandbox/sec/insiders.py``): one raw XML
ownership document per Form 4 of a company's filing list, read by the service's own parser,
consistent with the list (period of report, filing day), the company (issuer, its officers)
and the sandbox's prices; the XSL rendering unchanged; EDGAR's 404 and 403 elsewhere; and
``/v2/filings/{symbol}/insiders`` through the in-process sandbox."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, date, datetime

import pytest

from marketdata.providers.sec_insiders import parse_ownership_document, raw_document
from marketdata.records.insiders import CODES, OwnershipFiling
from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox.sec import companies, insiders
from marketdata.sandbox.yahoo.quote_summary import _officers

CLOCK = datetime(2025, 6, 2, 15, 0, tzinfo=UTC)
UA = {"user-agent": "Sandbox Tests tests@example.com"}
SYMBOLS = ("AAPL", "MSFT", "JPM", "KO")


def sandbox() -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: CLOCK)


def get(sb: UpstreamSandbox, path: str, headers: dict | None = None):
    host = "data.sec.gov" if path.startswith("/submissions/") else "www.sec.gov"
    return sb.handle("GET", host, path, {}, UA if headers is None else headers)


def form4s(sb: UpstreamSandbox, cik: int) -> list[dict]:
    recent = json.loads(get(sb, f"/submissions/CIK{cik:010d}.json").body)["filings"]["recent"]
    return [{name: recent[name][i] for name in recent}
            for i, form in enumerate(recent["form"]) if form == "4"]


def raw_path(cik: int, row: dict) -> str:
    folder = row["accessionNumber"].replace("-", "")
    return f"/Archives/edgar/data/{cik}/{folder}/{raw_document(row['primaryDocument'])}"


def read(sb: UpstreamSandbox, cik: int, row: dict):
    response = get(sb, raw_path(cik, row))
    assert response.status == 200 and response.headers["Content-Type"].startswith(
        "application/xml")
    filing = OwnershipFiling(accession_number=row["accessionNumber"], form=row["form"],
                             filed_at=row["filingDate"], report_date=row["reportDate"],
                             document=raw_document(row["primaryDocument"]))
    return parse_ownership_document(response.body, filing)


@pytest.mark.parametrize("symbol", SYMBOLS)
def test_every_form4_has_a_document_the_service_reads(symbol):
    sb = sandbox()
    cik = companies.cik_for(symbol)
    c = companies.company(cik)
    rows = form4s(sb, cik)
    assert len(rows) >= 16  # eight a year, the list's three years
    officers = {" ".join(reversed(o["name"].split(" ", 1)[1].split(" ", 1)))
                for o in _officers(c.instrument)}
    for row in rows:
        document = read(sb, cik, row)
        assert document.issuer_cik == cik and document.period == row["reportDate"]
        assert document.rows, row["accessionNumber"]
        for item in document.rows:
            assert row["reportDate"] <= item.transaction_date <= row["filingDate"]
            assert item.code in CODES and item.code_meaning == CODES[item.code]
            assert item.shares > 0 and item.price is not None and item.price >= 0
            assert item.acquired_or_disposed in ("A", "D") and item.direct is not None
        insider = document.owners[0]
        relation = insider.relationship
        assert relation.director or relation.officer
        if relation.officer:
            assert insider.name in officers and relation.officer_title
        # the plan box exists on forms filed since April 2023 only
        assert (document.rows[0].trading_plan is None) == (row["filingDate"] < "2023-04-01")


def test_documents_never_change_and_prices_are_the_series_closes():
    sb = sandbox()
    cik = companies.cik_for("AAPL")
    c = companies.company(cik)
    for row in form4s(sb, cik)[:8]:
        first = get(sb, raw_path(cik, row)).body
        assert get(sandbox(), raw_path(cik, row)).body == first
        for item in read(sb, cik, row).rows:
            if item.derivative is None and item.code in ("S", "P", "F"):
                assert item.price == insiders.close(
                    c, date.fromisoformat(item.transaction_date))


def test_the_patterns_cover_the_common_codes_and_both_tables():
    sb = sandbox()
    codes: Counter[str] = Counter()
    tables: Counter[bool] = Counter()
    owners: Counter[int] = Counter()
    for symbol in SYMBOLS:
        cik = companies.cik_for(symbol)
        for row in form4s(sb, cik):
            document = read(sb, cik, row)
            owners[len(document.owners)] += 1
            for item in document.rows:
                codes[item.code] += 1
                tables[item.derivative is None] += 1
    assert {"S", "M", "F", "A", "P", "G"} <= set(codes)
    assert tables[True] and tables[False] and owners[2]  # a joint filing among them


def test_other_paths_are_edgar_s_answers():
    sb = sandbox()
    cik = companies.cik_for("AAPL")
    row = form4s(sb, cik)[0]
    folder = row["accessionNumber"].replace("-", "")
    # the XSL rendering is still the HTML page
    rendering = get(sb, f"/Archives/edgar/data/{cik}/{folder}/{row['primaryDocument']}")
    assert rendering.status == 200 and rendering.headers["Content-Type"].startswith(
        "text/html")
    assert get(sb, f"/Archives/edgar/data/{cik}/{folder}/other.xml").status == 404
    assert get(sb, raw_path(cik, row).replace(f"/{cik}/", "/789019/")).status == 404
    assert get(sb, raw_path(cik, row), headers={}).status == 403
    # a filing after the clock does not exist yet
    later = UpstreamSandbox(clock=lambda: datetime(2025, 12, 31, tzinfo=UTC))
    newest = form4s(later, cik)[0]
    assert newest["filingDate"] > "2025-06-02"
    assert get(sb, raw_path(cik, newest)).status == 404


def test_the_route_through_the_sandbox(api, sandbox_upstream):
    listed = api.get("/v2/filings/MSFT").json()["filings"]
    body = api.get("/v2/filings/MSFT/insiders").json()
    assert body["notices"] == [] and body["truncated"] is False
    start, end = body["start"], body["end"]
    expected = {f["accessionNumber"] for f in listed if f["form"] == "4"
                and f["filingDate"] >= start and f["reportDate"] <= end}
    assert body["filings"] == body["filingsRead"] == len(expected) > 0
    assert {row["accessionNumber"] for row in body["transactions"]} <= expected
    days = [row["transactionDate"] for row in body["transactions"]]
    assert days == sorted(days, reverse=True) and all(start <= d <= end for d in days)
    summary = body["summary"]
    assert summary["transactions"] == len(body["transactions"])
    assert summary["netShares"] == summary["buyShares"] - summary["sellShares"]
