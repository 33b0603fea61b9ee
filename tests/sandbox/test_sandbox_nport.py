"""The SEC simulator's fund calls (``marketdata/sandbox/sec/nport.py``): the fund ticker
list, a series' filing list as browse-edgar's Atom (type prefix, count, the clock), each
report through the service's own parsers, reports that never change once filed, an
amendment, holdings that agree with the sandbox's companies (names, CUSIPs, tickers), and
EDGAR's rules (404 pages, the declared User-Agent). The current-filings feed still answers
on the same path."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest

from marketdata.providers import sec, sec_nport
from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox import index_members as members
from marketdata.sandbox.sec import nport
from marketdata.sandbox.sec.fails import cusip

CLOCK = datetime(2025, 6, 2, 15, 0, tzinfo=UTC)
UA = {"user-agent": "Sandbox Tests tests@example.com"}


def sandbox(clock: datetime = CLOCK) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: clock)


def get(sb: UpstreamSandbox, path: str, query: dict | None = None,
        headers: dict | None = None):
    return sb.handle("GET", "www.sec.gov", path, query or {}, UA if headers is None else headers)


def filings(sb: UpstreamSandbox, series: str, **query) -> list[sec_nport.FilingRef]:
    response = get(sb, "/cgi-bin/browse-edgar", {
        "action": "getcompany", "CIK": series, "type": "NPORT-P", "dateb": "",
        "owner": "include", "count": "10", "output": "atom", **query})
    assert response.status == 200, response.body[:200]
    assert response.headers["Content-Type"].startswith("application/atom+xml")
    return sec_nport.parse_series_filings(response.body)


def report(sb: UpstreamSandbox, cik: int, filing: sec_nport.FilingRef):
    response = get(sb, f"/Archives/edgar/data/{cik}/{filing.accession.replace('-', '')}/"
                       "primary_doc.xml")
    assert response.status == 200
    return sec_nport.parse_nport(response.body)


def test_fund_tickers_through_the_parser():
    response = get(sandbox(), "/files/company_tickers_mf.json")
    table = sec_nport.parse_fund_tickers(json.loads(response.body))
    assert {"SPY", "QQQ", "VOO", "VFIAX", "VTI", "VTSAX", "TLT", "ARKK", "SCHD"} <= set(table)
    assert "GLD" not in table  # a grantor trust, not a registered fund
    assert table["VOO"].series_id == table["VFIAX"].series_id != table["VTI"].series_id
    assert table["VOO"].class_id != table["VFIAX"].class_id
    assert table["SPY"].cik == 884394


def test_quarterly_reports_filed_about_two_months_later():
    listed = filings(sandbox(), "S000004310")
    assert [f.form for f in listed] == ["NPORT-P"] * 10
    latest = listed[0]
    assert latest.filed.startswith("2025-05") and latest.filed >= "2025-05-25"
    parsed = report(sandbox(), 884394, latest)
    assert parsed.as_of == "2025-03-31" and parsed.series_id == "S000004310"
    assert parsed.fiscal_year_end == "2025-09-30"
    assert len(filings(sandbox(), "S000004310", count="40")) == 25  # 2019 Q1 .. 2025 Q1


def test_reports_never_change_and_appear_with_the_clock():
    early = filings(sandbox(datetime(2025, 5, 20, tzinfo=UTC)), "S000004310")
    later = filings(sandbox(), "S000004310")
    assert early[0].accession == later[1].accession
    assert report(sandbox(), 884394, later[1]) == report(
        sandbox(datetime(2025, 5, 20, tzinfo=UTC)), 884394, early[0])


def test_amendments_are_listed_and_restate_the_report():
    listed = filings(sandbox(datetime(2025, 6, 30, tzinfo=UTC)), "S000042977")
    assert [f.form for f in listed[:2]] == ["NPORT-P/A", "NPORT-P"]
    amended, original = (report(sandbox(datetime(2025, 6, 30, tzinfo=UTC)), 1579982, f)
                         for f in listed[:2])
    assert amended.form == "NPORT-P/A" and amended.as_of == original.as_of
    assert amended.holdings != original.holdings
    only_amendments = filings(sandbox(datetime(2025, 6, 30, tzinfo=UTC)), "S000042977",
                              type="NPORT-P/A")
    assert {f.form for f in only_amendments} == {"NPORT-P/A"}


def test_holdings_agree_with_the_sandbox_companies():
    parsed = report(sandbox(), 884394, filings(sandbox(), "S000004310")[0])
    equities = [h for h in parsed.holdings if h.asset_category == "EC"]
    assert len(equities) == len(members.sp500())
    apple = next(h for h in equities if h.cusip == cusip("AAPL"))
    assert apple.name == "APPLE INC" and apple.isin == "US0378331005"
    names = sec_nport.parse_company_names(json.loads(
        get(sandbox(), "/files/company_tickers.json").body))
    resolved = sec_nport.with_tickers(parsed.holdings, names)
    tickers = {h.ticker for h in resolved if h.ticker}
    assert set(members.sp500()) - tickers == {"GOOGL", "GOOG"}  # one name, two classes
    assert sum(h.weight_percent for h in parsed.holdings) == pytest.approx(100, abs=0.01)
    for h in equities:
        assert h.value == pytest.approx(h.weight_percent * parsed.net_assets / 100, rel=1e-6)


def test_funds_with_derivatives_bonds_and_foreign_holdings():
    voo = report(sandbox(), 36405, filings(sandbox(), "S000002839")[0])
    future = next(h for h in voo.holdings if h.derivative_type == "future")
    assert (future.units, future.asset_category, future.cusip) == ("NC", "DE", None)
    tlt = report(sandbox(), 1100663, filings(sandbox(), "S000004347")[0])
    bonds = [h for h in tlt.holdings if h.asset_category == "DBT"]
    assert len(bonds) == 40 and {h.issuer_category for h in bonds} == {"UST"}
    assert all(h.maturity_date > "2045" and h.units == "PA" for h in bonds)
    arkk = report(sandbox(), 1579982, filings(sandbox(), "S000042977")[0])
    assert {h.currency for h in arkk.holdings} == {"USD", "EUR"}
    assert any(h.asset_category_name == "Other: Grantor trust shares" for h in arkk.holdings)


def test_a_series_without_reports_and_an_unknown_series():
    assert filings(sandbox(), "S000033655") == []  # SCHD: registered, nothing filed
    response = get(sandbox(), "/cgi-bin/browse-edgar", {"action": "getcompany",
                                                        "CIK": "S000000001",
                                                        "output": "atom"})
    assert response.status == 404


@pytest.mark.parametrize("path", [
    "/Archives/edgar/data/884394/000175272499100000/primary_doc.xml",
    "/Archives/edgar/data/884394/000175272425100050/other.xml"])
def test_documents_that_do_not_exist_are_edgar_404s(path):
    assert get(sandbox(), path).status == 404


def test_the_filing_index_page_lists_the_report():
    latest = filings(sandbox(), "S000004310")[0]
    folder = latest.accession.replace("-", "")
    page = get(sandbox(), f"/Archives/edgar/data/884394/{folder}/{latest.accession}-index.htm")
    assert page.status == 200
    assert sec.parse_filing_index(page.body) == [{"type": "NPORT-P",
                                                  "document": "primary_doc.xml"}]


def test_edgar_wants_a_declared_user_agent():
    response = get(sandbox(), "/files/company_tickers_mf.json", headers={
        "user-agent": "python-requests/2.32"})
    assert response.status == 403


def test_the_current_filings_feed_still_answers():
    response = get(sandbox(), "/cgi-bin/browse-edgar", {"action": "getcurrent",
                                                        "type": "8-K", "output": "atom"})
    assert response.status == 200 and b"<feed" in response.body


def test_report_dates_are_quarter_ends():
    assert nport.fiscal_year_end(nport.SERIES[0], date(2025, 3, 31)) == date(2025, 9, 30)
    assert nport.fiscal_year_end(nport.SERIES[0], date(2025, 12, 31)) == date(2026, 9, 30)
    assert nport.isin("US", "037833100") == "US0378331005"
