"""SEC Form 13F (:mod:`marketdata.providers.sec_13f`): the streaming information-table parser
on hand-made tables (both unit eras, with and without a namespace prefix, put/call and
principal-amount rows, an empty table, malformed and hostile XML), the cover page, the
units rule, the fetchers through EDGAR's calls (which filings make a quarter: restatements
and new-holdings amendments; the periods; the 404s; the cache and its byte budget; the
older filing-list pages) and the filer search over full-text search.

No recording of a 13F filing exists under ../shared/upstream; the bodies are built in
EDGAR's documented shapes (:mod:`tests.marketdata.providers.thirteenf_bodies`). The real
AAPL submissions recording stands for a filer without 13F reports.
"""

from __future__ import annotations

import dataclasses
import time
from datetime import date
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.providers import sec, sec_13f
from marketdata.records.institutions import (
    DOLLARS_SINCE,
    Addition,
    Holding,
    nearest_periods,
    value_unit,
)
from tests.conftest import calls_to
from tests.marketdata.providers import thirteenf_bodies as bodies

CIK, NAME = bodies.CIK, bodies.NAME
APPLE = bodies.row("APPLE INC", "037833100", 84_248_000_000, 400_000_000)
AMEX = bodies.row("AMERICAN EXPRESS CO", "025816109", 41_093_000_000, 151_610_700,
                  discretion="DFND", others="4,11", voting=(0, 151_610_700, 0))
SPY_PUT = bodies.row("SPDR S&P 500 ETF TR", "78462F103", 5_461_000_000, 10_000_000,
                     title="TR UNIT", put_call="Put")
NOTE = bodies.row("ALLY FINL INC", "02005NAR1", 9_500_000, 10_000_000,
                  title="NOTE 4.700% 5/15", kind="PRN")


@pytest.fixture(autouse=True)
def _fast(monkeypatch):
    fast = dataclasses.replace(sec.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001)
    monkeypatch.setattr(sec.SecProvider, "config", fast)


# -- the parser -------------------------------------------------------------------------------
def test_rows_in_table_order_with_every_column():
    rows = sec_13f.parse_information_table(bodies.table([APPLE, AMEX, SPY_PUT, NOTE]))
    assert rows == [
        ["APPLE INC", "COM", "037833100", None, 84_248_000_000, 400_000_000, "SH", None,
         "SOLE", None, 400_000_000, 0, 0],
        ["AMERICAN EXPRESS CO", "COM", "025816109", None, 41_093_000_000, 151_610_700, "SH",
         None, "DFND", "4,11", 0, 151_610_700, 0],
        ["SPDR S&P 500 ETF TR", "TR UNIT", "78462F103", None, 5_461_000_000, 10_000_000,
         "SH", "Put", "SOLE", None, 10_000_000, 0, 0],
        ["ALLY FINL INC", "NOTE 4.700% 5/15", "02005NAR1", None, 9_500_000, 10_000_000,
         "PRN", None, "SOLE", None, 10_000_000, 0, 0]]


@pytest.mark.parametrize("style", ["prefixed", "default"])
def test_namespaced_tables_read_as_plain_ones(style):
    plain = sec_13f.parse_information_table(bodies.table([APPLE, AMEX, SPY_PUT], "plain"))
    assert sec_13f.parse_information_table(bodies.table([APPLE, AMEX, SPY_PUT], style)) == plain


def test_figi_and_loose_numbers():
    rows = sec_13f.parse_information_table(bodies.table([
        bodies.row("X CORP", "123456789", "1,234", "10.0", figi="BBG000B9XRY4",
                   voting=("5", " 2 ", "n/a"))]))
    assert rows[0][3] == "BBG000B9XRY4"
    assert rows[0][4:6] == [1234, 10]
    assert rows[0][10:] == [5, 2, None]


@pytest.mark.parametrize("content", [
    b'<?xml version="1.0"?><informationTable/>',
    f'<informationTable xmlns="{bodies.NAMESPACE}">\n</informationTable>'.encode(),
    bodies.table([], "prefixed"),
])
def test_an_empty_table_has_no_rows(content):
    assert sec_13f.parse_information_table(content) == []


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<informationTable><infoTable><nameOfIssuer>&lol3;</nameOfIssuer></infoTable></informationTable>"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<informationTable><infoTable><nameOfIssuer>&x;</nameOfIssuer></infoTable></informationTable>"""


@pytest.mark.parametrize(("content", "says"), [
    (bodies.table([APPLE])[:-40], "not well-formed XML"),
    (b"<html><body>Page Not Found</body></html>", "not an information table"),
    (b"", "not well-formed XML"),
    (b"<informationTable><infoTable>&undefined;</infoTable></informationTable>",
     "not well-formed XML"),
    (b"<ns1:informationTable><ns1:infoTable/></ns1:informationTable>", "not well-formed"),
    (BILLION_LAUGHS, "document type declaration"),
    (EXTERNAL, "document type declaration"),
])
def test_malformed_or_hostile_xml_is_a_bad_answer(content, says):
    with pytest.raises(UpstreamBadResponse) as caught:
        sec_13f.parse_information_table(content)
    assert caught.value.provider == "sec" and says in caught.value.detail


def test_a_large_table_streams():
    rows = [bodies.row(f"ISSUER {n}", f"{n:09d}", n * 1000, n) for n in range(1, 30_001)]
    content = bodies.table(rows, "prefixed")
    started = time.perf_counter()
    parsed = sec_13f.parse_information_table(content)
    elapsed = time.perf_counter() - started
    assert len(parsed) == 30_000 and parsed[-1][0] == "ISSUER 30000"
    assert parsed[-1][4] == 30_000_000
    print(f"30,000 rows ({len(content) / 1e6:.1f} MB) parsed in {elapsed:.2f} s")


def test_cover_page():
    found = sec_13f.parse_cover(bodies.cover("2024-03-31", (2, "RESTATEMENT")))
    assert found == sec_13f.Cover("2024-03-31", True, 2, "RESTATEMENT")
    assert sec_13f.parse_cover(bodies.cover("2024-06-30")) == \
        sec_13f.Cover("2024-06-30", False, None, None)
    with pytest.raises(UpstreamBadResponse):
        sec_13f.parse_cover(bodies.table([APPLE]))


# -- units --------------------------------------------------------------------------------------
def test_the_unit_follows_the_filing_date():
    assert DOLLARS_SINCE == date(2023, 1, 3)
    assert value_unit("2023-01-02") == "thousands"
    assert value_unit("2023-01-03") == "dollars"
    row = sec_13f.parse_information_table(bodies.table([APPLE]))[0]
    assert sec_13f.holding_of(row, "thousands").value == 84_248_000_000_000
    assert sec_13f.holding_of(row, "dollars") == Holding(
        issuer="APPLE INC", cusip="037833100", figi=None, class_="COM",
        value=84_248_000_000, shares=400_000_000, shares_type="SH", put_call=None,
        discretion="SOLE", other_managers=None, voting_sole=400_000_000, voting_shared=0,
        voting_none=0)


def test_put_call_and_share_type_spellings():
    row = ["X", "COM", "1", None, 12.4, 3.0, "sh", "CALL", "dfnd", "1", None, None, None]
    held = sec_13f.holding_of(row, "thousands")
    assert (held.value, held.shares, held.shares_type, held.put_call, held.discretion) == \
        (12_400, 3, "SH", "Call", "DFND")
    assert sec_13f.holding_of([*row[:6], "BOND", *row[7:]], "dollars").shares_type is None


def test_nearest_periods():
    periods = ["2024-06-30", "2024-03-31", "2023-12-31", "2022-09-30", "2021-03-31"]
    # 2023-12-31 is 92 days away, 2022-09-30 365, 2024-03-31 183, 2024-06-30 274
    assert nearest_periods(periods, "2023-09-30", 3) == ["2024-06-30", "2024-03-31",
                                                         "2023-12-31"]
    assert nearest_periods(periods, "2030-12-31", 2) == ["2024-06-30", "2024-03-31"]


# -- the fetchers through EDGAR ---------------------------------------------------------------
LATEST, ORIGINAL_Q1, ORIGINAL_Q3 = bodies.LATEST, bodies.ORIGINAL_Q1, bodies.ORIGINAL_Q3
RESTATED = "0000950123-24-006999"
ADDED = "0000950123-23-002000"
TEXT_ERA = "0000950123-13-000100"
FILINGS = [(LATEST, "13F-HR", "2024-08-14", "2024-06-30"),
           (RESTATED, "13F-HR/A", "2024-05-30", "2024-03-31"),
           (ORIGINAL_Q1, "13F-HR", "2024-05-15", "2024-03-31"),
           ("0000950123-24-001000", "10-K", "2024-02-26", "2023-12-31"),
           (ADDED, "13F-HR/A", "2023-02-10", "2022-09-30"),
           (ORIGINAL_Q3, "13F-HR", "2022-11-14", "2022-09-30"),
           (TEXT_ERA, "13F-HR", "2013-02-14", "2012-12-31")]


def folder(accession: str) -> str:
    return f"{bodies.ARCHIVES}/{CIK}/{accession.replace('-', '')}"


def serve_filing(yahoo, accession: str, rows: list | None, style: str = "plain",
                 name: str = "infotable.xml", cover: bytes | None = None) -> None:
    yahoo.get(f"{folder(accession)}/{accession}-index.htm",
              bodies.index_page(CIK, accession, name if rows is not None else None),
              content_type="text/html")
    if rows is not None:
        yahoo.get(f"{folder(accession)}/{name}", bodies.table(rows, style),
                  content_type="text/xml")
    if cover is not None:
        yahoo.get(f"{folder(accession)}/primary_doc.xml", cover, content_type="text/xml")


@pytest.fixture
def edgar(yahoo):
    yahoo.get(f"{bodies.SUBMISSIONS}/CIK{CIK:010d}.json",
              bodies.submissions(CIK, NAME, FILINGS))
    serve_filing(yahoo, LATEST, [APPLE, AMEX, SPY_PUT], "default", "46994.xml")
    serve_filing(yahoo, RESTATED, [APPLE, AMEX], "prefixed", "form13fInfoTable.xml",
                 bodies.cover("2024-03-31", (1, "RESTATEMENT")))
    serve_filing(yahoo, ORIGINAL_Q1, [APPLE])
    serve_filing(yahoo, ADDED, [NOTE], cover=bodies.cover("2022-09-30", (1, "NEW HOLDINGS")))
    serve_filing(yahoo, ORIGINAL_Q3, [bodies.row("APPLE INC", "037833100", 53_000, 900)])
    return yahoo


def test_the_latest_quarter_by_default(edgar):
    found = sec_13f.institutional_holdings(CIK, None)
    assert (found.cik, found.name, found.period, found.filed_at, found.accession_number,
            found.form, found.amendment_number, found.amendment_type, found.value_unit) == \
        (CIK, NAME, "2024-06-30", "2024-08-14", LATEST, "13F-HR", None, None, "dollars")
    assert found.periods == ["2024-06-30", "2024-03-31", "2022-09-30"]  # XML-era only
    assert [h.issuer for h in found.holdings] == ["APPLE INC", "AMERICAN EXPRESS CO",
                                                  "SPDR S&P 500 ETF TR"]
    assert found.holdings[2].put_call == "Put"
    assert found.holdings[1].other_managers == "4,11"
    assert found.total_value == 84_248_000_000 + 41_093_000_000 + 5_461_000_000
    assert found.holdings_count == 3 and found.additions == []
    calls = calls_to(edgar.mock, "sec.gov")
    assert all("@" in c.request.headers["User-Agent"] for c in calls)
    assert not calls_to(edgar.mock, "primary_doc.xml")  # no amendment: no cover read


def test_a_restatement_replaces_the_report(edgar):
    found = sec_13f.institutional_holdings(CIK, "2024-03-31")
    assert (found.accession_number, found.form, found.amendment_number,
            found.amendment_type, found.filed_at) == \
        (RESTATED, "13F-HR/A", 1, "RESTATEMENT", "2024-05-30")
    assert [h.issuer for h in found.holdings] == ["APPLE INC", "AMERICAN EXPRESS CO"]
    assert not calls_to(edgar.mock, ORIGINAL_Q1.replace("-", ""))  # never read


def test_new_holdings_are_added_each_in_its_own_unit(edgar):
    found = sec_13f.institutional_holdings(CIK, "2022-09-30")
    assert (found.accession_number, found.value_unit, found.amendment_type) == \
        (ORIGINAL_Q3, "thousands", None)
    assert found.additions == [Addition(ADDED, "2023-02-10", 1, "dollars", 1)]
    assert [(h.issuer, h.value) for h in found.holdings] == [
        ("APPLE INC", 53_000_000), ("ALLY FINL INC", 9_500_000)]
    assert found.total_value == 62_500_000 and found.holdings_count == 2


@pytest.mark.parametrize(("period", "nearest"), [
    ("2023-12-31", "2024-06-30, 2024-03-31, 2022-09-30"),
    ("2012-12-31", "2024-06-30, 2024-03-31, 2022-09-30"),  # a text-era table: not served
])
def test_a_quarter_without_a_report_names_the_nearest(edgar, period, nearest):
    with pytest.raises(NotFound) as caught:
        sec_13f.institutional_holdings(CIK, period)
    assert caught.value.detail == (f"CIK {CIK} ({NAME}) filed no 13F-HR for the quarter "
                                   f"ending {period}; nearest quarters with one: {nearest}")
    assert not calls_to(edgar.mock, "Archives")


def test_an_unknown_cik(yahoo):
    yahoo.get(f"{bodies.SUBMISSIONS}/CIK0000000042.json",
              '<?xml version="1.0"?><Error><Code>NoSuchKey</Code></Error>', status=404,
              content_type="application/xml")
    with pytest.raises(NotFound, match="No EDGAR filer has CIK 42"):
        sec_13f.institutional_holdings(42, None)


def test_a_filer_without_13f_reports(yahoo, recording):
    yahoo.get(f"{bodies.SUBMISSIONS}/CIK0000320193.json",
              recording("sec/edgar-submissions/CIK0000320193-finance-query.json"))
    # The recording's older page (filings up to 2015-05-11, so read): no 13F there either.
    yahoo.get(f"{bodies.SUBMISSIONS}/CIK0000320193-submissions-001.json",
              {"accessionNumber": ["0000320193-15-000001"], "form": ["10-Q"],
               "filingDate": ["2015-04-28"], "reportDate": ["2015-03-28"]})
    with pytest.raises(NotFound) as caught:
        sec_13f.institutional_holdings(320193, None)
    assert caught.value.detail == ("CIK 320193 (Apple Inc.) has filed no 13F holdings "
                                   "report (13F-HR)")


def test_a_new_holdings_amendment_alone_is_the_report(yahoo):
    yahoo.get(f"{bodies.SUBMISSIONS}/CIK{CIK:010d}.json",
              bodies.submissions(CIK, NAME, [(ADDED, "13F-HR/A", "2023-02-10", "2022-09-30")]))
    serve_filing(yahoo, ADDED, [NOTE], cover=bodies.cover("2022-09-30", (3, "NEW HOLDINGS")))
    found = sec_13f.institutional_holdings(CIK, None)
    assert (found.accession_number, found.form, found.amendment_number,
            found.amendment_type, found.additions) == \
        (ADDED, "13F-HR/A", 3, "NEW HOLDINGS", [])
    assert [h.value for h in found.holdings] == [9_500_000]


def test_a_report_without_an_information_table_has_no_holdings(yahoo):
    yahoo.get(f"{bodies.SUBMISSIONS}/CIK{CIK:010d}.json",
              bodies.submissions(CIK, NAME, FILINGS[:1]))
    serve_filing(yahoo, LATEST, None)
    found = sec_13f.institutional_holdings(CIK, None)
    assert found.holdings == [] and found.total_value == 0


def test_tables_are_kept_per_accession(edgar):
    sec_13f.institutional_holdings(CIK, None)
    sec_13f.institutional_holdings(CIK, None)
    assert len(calls_to(edgar.mock, "46994.xml")) == 1
    assert len(calls_to(edgar.mock, "/submissions/")) == 1


def test_a_table_over_the_budget_is_not_kept(edgar, monkeypatch):
    monkeypatch.setattr(sec_13f, "TABLE_CACHE_MAX_BYTES", 10)
    first = sec_13f.institutional_holdings(CIK, None)
    second = sec_13f.institutional_holdings(CIK, None)
    assert first == second
    assert len(calls_to(edgar.mock, "46994.xml")) == 2  # parsed again, not kept
    packed = sec_13f.pack([["X"] * 13])
    assert packed.packed is None and packed.rows == 1


def test_a_table_round_trips_through_its_packed_form():
    rows = sec_13f.parse_information_table(bodies.table([APPLE, AMEX, SPY_PUT, NOTE]))
    assert sec_13f.unpack(sec_13f.pack(rows)) == rows


def test_a_failing_table_is_the_providers_502(yahoo):
    yahoo.get(f"{bodies.SUBMISSIONS}/CIK{CIK:010d}.json",
              bodies.submissions(CIK, NAME, FILINGS[:1]))
    yahoo.get(f"{folder(LATEST)}/{LATEST}-index.htm", bodies.index_page(CIK, LATEST),
              content_type="text/html")
    yahoo.get(f"{folder(LATEST)}/infotable.xml", "<html>Internal error</html>", status=500,
              content_type="text/html")
    with pytest.raises(UpstreamBadResponse) as caught:
        sec_13f.institutional_holdings(CIK, None)
    assert caught.value.provider == "sec" and "HTTP 500" in caught.value.detail


def test_older_filing_list_pages_are_read(yahoo):
    old = "0000950123-15-000300"
    files = [{"name": "CIK0001067983-submissions-001.json", "filingCount": 2,
              "filingFrom": "2014-01-01", "filingTo": "2015-12-31"},
             {"name": "CIK0001067983-submissions-002.json", "filingCount": 900,
              "filingFrom": "1994-01-01", "filingTo": "2012-12-31"},
             {"name": "../../etc/passwd", "filingTo": "2020-01-01"}]
    yahoo.get(f"{bodies.SUBMISSIONS}/CIK{CIK:010d}.json",
              bodies.submissions(CIK, NAME, FILINGS[:1], files))
    page = bodies.submissions(CIK, NAME, [(old, "13F-HR", "2015-05-15", "2015-03-31")])
    yahoo.get(f"{bodies.SUBMISSIONS}/CIK0001067983-submissions-001.json",
              page["filings"]["recent"])
    serve_filing(yahoo, old, [APPLE])
    found = sec_13f.institutional_holdings(CIK, "2015-03-31")
    assert found.periods == ["2024-06-30", "2015-03-31"]
    assert found.accession_number == old and found.value_unit == "thousands"
    assert not calls_to(yahoo.mock, "submissions-002")  # before XML tables: not read
    assert [page.name for page in sec_13f.history_pages(sec.older_pages(files))] == [
        files[0]["name"]]


# -- filers by name ---------------------------------------------------------------------------
def test_display_names():
    assert sec_13f.display_name("BERKSHIRE HATHAWAY INC  (BRK-B, BRK-A)  (CIK 0001067983)") \
        == "BERKSHIRE HATHAWAY INC"
    assert sec_13f.display_name("Scion Asset Management, LLC  (CIK 0001649339)") == \
        "Scion Asset Management, LLC"
    assert sec_13f.display_name("Plain Name (CIK 0000000001)") == "Plain Name"


def test_filers_whose_name_holds_every_word(yahoo):
    hits = [
        bodies.search_hit("0000950123-24-008631", "13F-HR", "2024-08-14", CIK,
                          "BERKSHIRE HATHAWAY INC  (BRK-B, BRK-A)  (CIK 0001067983)"),
        # a manager whose table holds Berkshire shares: the text matches, the name not
        bodies.search_hit("0001990001-24-000101", "13F-HR", "2024-08-01", 1990001,
                          "Harbor Capital LLC  (CIK 0001990001)"),
        bodies.search_hit("0000950123-24-005000", "13F-HR", "2024-05-15", CIK,
                          "BERKSHIRE HATHAWAY INC  (BRK-B, BRK-A)  (CIK 0001067983)"),
        bodies.search_hit("0001234567-24-000001", "13F-HR/A", "2024-09-01", 1234567,
                          "Berkshire Hathaway Energy Co  (CIK 0001234567)"),
        bodies.search_hit("0000950123-24-009999", "10-K", "2024-09-30", CIK,
                          "BERKSHIRE HATHAWAY INC  (BRK-B, BRK-A)  (CIK 0001067983)"),
    ]
    yahoo.get(bodies.SEARCH, bodies.search_answer(hits))
    found = sec_13f.institutional_filers("Berkshire Hath")
    assert [(f.cik, f.name, f.latest_filed_at) for f in found] == [
        (CIK, NAME, "2024-08-14"), (1234567, "Berkshire Hathaway Energy Co", "2024-09-01")]
    (call,) = calls_to(yahoo.mock, "search-index")
    query = parse_qs(urlsplit(call.request.url).query)
    assert query["q"] == ['"Berkshire Hath"'] and query["forms"] == ["13F-HR,13F-HR/A"]
    assert query["size"] == ["100"] and "from" not in query


def test_filer_search_reads_two_pages_at_most(yahoo):
    hit = bodies.search_hit("0000950123-24-008631", "13F-HR", "2024-08-14", CIK,
                            "BERKSHIRE HATHAWAY INC  (CIK 0001067983)")
    yahoo.get(bodies.SEARCH, bodies.search_answer([hit] * 100, total=5000))
    assert len(sec_13f.institutional_filers("berkshire")) == 1
    calls = calls_to(yahoo.mock, "search-index")
    assert [parse_qs(urlsplit(c.request.url).query).get("from") for c in calls] == \
        [None, ["100"]]
    assert sec_13f.institutional_filers("&&") == []  # no word: no call
    assert len(calls_to(yahoo.mock, "search-index")) == 2
