"""The sandbox's Form 13F managers (:mod:`marketdata.sandbox.sec.thirteenf`): EDGAR's shapes
read through the service's own parsers (submissions, index pages, cover pages, information
tables in each namespace style), the unit of each era, amendments, the older filing-list
page, the notice-only filer, full-text search over 13F forms, determinism and the clock."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from marketdata.providers import sec, sec_13f
from marketdata.records.institutions import value_unit
from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox.sec import thirteenf
from marketdata.sandbox.sec.companies import company

CLOCK = datetime(2025, 6, 2, 15, 0, tzinfo=UTC)
UA = {"user-agent": "Sandbox Tests tests@example.com"}


def sandbox(clock: datetime = CLOCK) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: clock)


def get(sb: UpstreamSandbox, host: str, path: str, query: dict | None = None,
        headers: dict | None = None):
    return sb.handle("GET", host, path, query or {}, UA if headers is None else headers)


def reports_of(sb: UpstreamSandbox, cik: int) -> list[sec_13f.Report]:
    response = get(sb, "data.sec.gov", f"/submissions/CIK{cik:010d}.json")
    assert response.status == 200
    return sec_13f._reports(sec.parse_company_submissions(json.loads(response.body)).filings)


def table_of(sb: UpstreamSandbox, cik: int, accession: str) -> tuple[str, list]:
    folder = f"/Archives/edgar/data/{cik}/{accession.replace('-', '')}"
    index = get(sb, "www.sec.gov", f"{folder}/{accession}-index.htm")
    assert index.status == 200
    documents = sec.parse_filing_index(index.body)
    name = next(d["document"] for d in documents if d["type"] == "INFORMATION TABLE")
    table = get(sb, "www.sec.gov", f"{folder}/{name}")
    assert table.status == 200 and table.headers["Content-Type"].startswith("text/xml")
    return name, sec_13f.parse_information_table(table.body)


def test_a_report_every_quarter_through_the_real_parsers():
    sb = sandbox()
    found = reports_of(sb, thirteenf.HARBORVIEW.cik)
    periods = [r.period for r in found]
    assert periods[0] == "2025-03-31" and periods[-1] == "2021-03-31"
    assert len(periods) == len(set(periods)) == 17
    assert all(r.form == "13F-HR" and r.primary == "xslForm13F_X02/primary_doc.xml"
               for r in found)
    name, rows = table_of(sb, thirteenf.HARBORVIEW.cik, found[0].accession)
    assert name == "infotable.xml" and len(rows) > 20
    assert {r[7] for r in rows} == {None, "Put", "Call"}


def test_each_era_in_its_unit():
    sb = sandbox()
    found = {r.period: r for r in reports_of(sb, thirteenf.HARBORVIEW.cik)}
    for period, unit in (("2022-09-30", "thousands"), ("2022-12-31", "dollars")):
        report = found[period]
        assert value_unit(report.filed) == unit
        _, rows = table_of(sb, thirteenf.HARBORVIEW.cik, report.accession)
        spy = next(r for r in rows if r[2] == "78462F103" and r[7] == "Put")
        # shares x the quarter's last close: in thousands before 2023-01-03
        price = spy[4] / spy[5] * (1000 if unit == "thousands" else 1)
        assert 300 < price < 700, (period, price)


def test_namespace_styles_read_alike():
    sb = sandbox()
    for manager, style in ((thirteenf.NORTHWIND, "ns1:"), (thirteenf.MERIDIAN, 'xmlns="')):
        report = reports_of(sb, manager.cik)[0]
        name, rows = table_of(sb, manager.cik, report.accession)
        folder = f"/Archives/edgar/data/{manager.cik}/{report.accession.replace('-', '')}"
        assert style in get(sb, "www.sec.gov", f"{folder}/{name}").body.decode()
        assert rows and all(r[0] and len(r[2]) == 9 for r in rows)
    _, meridian = table_of(sb, thirteenf.MERIDIAN.cik,
                           reports_of(sb, thirteenf.MERIDIAN.cik)[0].accession)
    assert {r[8] for r in meridian} == {"SOLE", "DFND", "OTR"}
    assert {r[6] for r in meridian} == {"SH", "PRN"}


def test_amendments_and_their_covers():
    sb = sandbox()
    listed = reports_of(sb, thirteenf.NORTHWIND.cik)
    amended = [r for r in listed if r.form == "13F-HR/A"]
    kinds = {}
    for report in amended:
        folder = f"/Archives/edgar/data/{thirteenf.NORTHWIND.cik}/" \
                 f"{report.accession.replace('-', '')}"
        cover = sec_13f.parse_cover(get(sb, "www.sec.gov", f"{folder}/primary_doc.xml").body)
        assert cover.period == report.period and cover.amendment
        assert cover.amendment_number == 1
        kinds[report.period] = cover.amendment_type
        original = next(r for r in listed if r.period == report.period and r.form == "13F-HR")
        assert original.filed < report.filed
    assert kinds == {"2024-03-31": "RESTATEMENT", "2023-09-30": "NEW HOLDINGS",
                     "2022-06-30": "NEW HOLDINGS"}
    added = next(r for r in amended if r.period == "2022-06-30")
    assert added.filed == "2023-02-10" and value_unit(added.filed) == "dollars"
    assert len({r[2] for r in table_of(sb, thirteenf.NORTHWIND.cik, added.accession)[1]}) == 2


def test_the_older_page_of_a_filing_list():
    sb = sandbox()
    body = json.loads(get(sb, "data.sec.gov", "/submissions/CIK0001990005.json").body)
    pages = sec_13f.history_pages(sec.parse_company_submissions(body).older_pages)
    assert [page.name for page in pages] == ["CIK0001990005-submissions-001.json"]
    recent = sec_13f._reports(sec.parse_company_submissions(body).filings)
    assert min(r.filed for r in recent) >= "2024-01-01"
    page = get(sb, "data.sec.gov", "/submissions/CIK0001990005-submissions-001.json")
    assert page.status == 200
    older = sec_13f._reports(sec.parse_company_submissions(
        {"cik": 1990005, "filings": {"recent": json.loads(page.body)}}).filings)
    assert older and max(r.filed for r in older) < "2024-01-01"
    assert get(sb, "data.sec.gov", "/submissions/CIK0001990001-submissions-001.json").status \
        == 404


def test_an_empty_table_and_a_notice_only_filer():
    sb = sandbox(datetime(2025, 9, 1, tzinfo=UTC))
    report = next(r for r in reports_of(sb, thirteenf.CEDAR_RIDGE.cik)
                  if r.period == "2025-06-30")
    assert table_of(sb, thirteenf.CEDAR_RIDGE.cik, report.accession)[1] == []
    body = json.loads(get(sb, "data.sec.gov", "/submissions/CIK0001990004.json").body)
    assert set(body["filings"]["recent"]["form"]) == {"13F-NT"}
    assert reports_of(sb, thirteenf.QUIETWATER.cik) == []


def test_a_listed_company_that_files_13f_reports_too():
    sb = sandbox()
    body = json.loads(get(sb, "data.sec.gov", "/submissions/CIK0001067983.json").body)
    forms = body["filings"]["recent"]["form"]
    assert "10-K" in forms and "13F-HR" in forms
    dates = body["filings"]["recent"]["filingDate"]
    assert dates == sorted(dates, reverse=True)
    assert body["name"] == company(1067983).name
    report = reports_of(sb, 1067983)[0]
    assert report.accession.startswith("0000950123-")  # a filer agent's number
    _, rows = table_of(sb, 1067983, report.accession)
    assert {r[2] for r in rows} >= {"037833100"}  # Apple


def test_full_text_search_over_13f_forms():
    sb = sandbox()
    query = {"q": '"Harborview Capital"', "forms": "13F-HR,13F-HR/A", "size": "100"}
    answer = json.loads(get(sb, "efts.sec.gov", "/LATEST/search-index", query).body)
    hits = sec.parse_search(answer).hits
    assert hits and {h.ciks[0] for h in hits} == {"0001990001"}
    assert hits[0].display_names == ["Harborview Capital Management LLC  (CIK 0001990001)"]
    dates = [h.file_date for h in hits]
    assert dates == sorted(dates, reverse=True)
    # An issuer's name is in other managers' tables: their filings are found too.
    apple = json.loads(get(sb, "efts.sec.gov", "/LATEST/search-index",
                           {**query, "q": "apple"}).body)
    assert len({h.ciks[0] for h in sec.parse_search(apple).hits}) >= 3
    paged = json.loads(get(sb, "efts.sec.gov", "/LATEST/search-index",
                           {**query, "size": "2", "from": "2"}).body)
    assert [h.adsh for h in sec.parse_search(paged).hits] == [h.adsh for h in hits[2:4]]


def test_filings_never_change_and_depend_only_on_the_clock():
    early = reports_of(sandbox(datetime(2024, 3, 1, tzinfo=UTC)), thirteenf.NORTHWIND.cik)
    later = reports_of(sandbox(), thirteenf.NORTHWIND.cik)
    assert set(early) <= set(later) and len(later) > len(early)
    one, two = sandbox(), sandbox()
    path = f"/Archives/edgar/data/1990002/{later[0].accession.replace('-', '')}/" \
           "form13fInfoTable.xml"
    assert get(one, "www.sec.gov", path).body == get(two, "www.sec.gov", path).body
    future = datetime(2025, 6, 2, tzinfo=UTC)
    assert all(r.filed <= future.date().isoformat() for r in later)


def test_edgar_wants_a_declared_user_agent_here_too():
    response = get(sandbox(), "data.sec.gov", "/submissions/CIK0001990001.json",
                   headers={"user-agent": "python-requests/2.32"})
    assert response.status == 403
