"""SEC EDGAR parsers of /v2/filings (:mod:`marketdata.providers.sec`): submissions as a
record, XBRL company facts and full-text search.

The submissions and companyfacts parsers run on the real AAPL recordings (re-serialised
by finance-query: keys alphabetised, floats for integral values, ``""`` cells already
dropped from some columns, so ``reportDate`` and ``primaryDocDescription`` are shorter
than the other columns). No recording exists of a full-text search answer: that test
uses a hand-made body in EFTS's documented Elasticsearch shape.
"""

from __future__ import annotations

import pytest

from marketdata.errors import UpstreamBadResponse
from marketdata.providers import sec
from marketdata.records.filings import Concept, DataPoint, Filing, SearchHit
from marketdata.records.members import as_json

SUBMISSIONS = "sec/edgar-submissions/CIK0000320193-finance-query.json"
FACTS = "sec/edgar-companyfacts/CIK0000320193-finance-query.json"


def test_submissions_recording(recording):
    payload = recording(SUBMISSIONS)
    found = sec.parse_company_submissions(payload)
    assert found.cik == 320193
    header = {key: value for key, value in as_json(found).items()
              if key not in ("cik", "tickers", "exchanges", "filings")}
    assert header == {
        "name": "Apple Inc.", "sic": "3571", "sicDescription": "Electronic Computers",
        "fiscalYearEnd": "0926", "category": "Large accelerated filer", "ein": "942404110",
        "entityType": "operating", "stateOfIncorporation": "CA", "website": None,
        "insiderTransactionForOwnerExists": False, "insiderTransactionForIssuerExists": True}
    assert found.tickers == ["AAPL"] and found.exchanges == ["Nasdaq"]
    assert len(found.filings) == 1000
    assert found.filings[:2] == [
        Filing(accession_number="0001140361-26-023363", filing_date="2026-05-29",
               report_date="2026-05-27", form="4", primary_document="xslF345X06/form4.xml",
               primary_doc_description="FORM 4", size=6956),
        Filing(accession_number="0001140361-26-023149", filing_date="2026-05-28",
               report_date="2026-05-08", form="SD", primary_document="ef20073373_sd.htm",
               primary_doc_description="SD", size=31060)]
    recent = payload["filings"]["recent"]
    # Zipped by index: each row keeps its own accession, form and size...
    assert [f.accession_number for f in found.filings] == recent["accessionNumber"]
    assert [f.size for f in found.filings] == recent["size"]
    # ...and a column shorter than the others (the recording's) gives None past its end,
    # never another row's value.
    assert [f.report_date for f in found.filings[:769]] == recent["reportDate"]
    assert all(f.report_date is None for f in found.filings[769:])
    assert all(f.primary_doc_description is None for f in found.filings[910:])


def test_empty_cells_are_null_each_on_its_own_row():
    payload = {"cik": "0000000042", "name": "X", "website": "", "tickers": ["X"],
               "exchanges": [None], "insiderTransactionForOwnerExists": 1,
               "filings": {"recent": {
                   "accessionNumber": ["0000000042-25-000002", "0000000042-25-000001", ""],
                   "filingDate": ["2025-02-01", "2025-01-01", "2024-12-01"],
                   "reportDate": ["", "2024-12-31", ""], "form": ["8-K", "10-K", "4"],
                   "size": [10, "x", 3], "primaryDocDescription": ["", "10-K", ""]}}}
    found = sec.parse_company_submissions(payload)
    assert found.cik == 42 and found.website is None
    assert found.insider_transaction_for_owner_exists is True
    assert found.insider_transaction_for_issuer_exists is None
    assert found.exchanges == []
    assert [(f.report_date, f.primary_doc_description, f.size) for f in found.filings] \
        == [(None, None, 10), ("2024-12-31", "10-K", None)]  # the row without accession: out


@pytest.mark.parametrize("payload", [[], {"cik": "1"}, {"filings": {"recent": {}}},
                                     {"cik": "x", "filings": {"recent": {}}}])
def test_malformed_submissions_are_502(payload):
    with pytest.raises(UpstreamBadResponse):
        sec.parse_company_submissions(payload)


def test_company_facts_recording(recording):
    payload = recording(FACTS)
    found = sec.parse_company_facts(payload)
    assert found.cik == 320193 and found.name == "Apple Inc."
    assert set(found.taxonomies) == {"dei", "us-gaap"}
    assert len(found.taxonomies["us-gaap"]) == 40
    current = found.taxonomies["us-gaap"]["AssetsCurrent"]
    assert current.label == "Assets, Current"
    assert list(current.units) == ["USD"] and len(current.units["USD"]) == 142
    assert current.units["USD"][-1] == DataPoint(
        start=None, end="2026-03-28", val=144114000000.0, fy=2026, fp="Q2", form="10-Q",
        filed="2026-05-01", accn="0000320193-26-000013", frame="CY2026Q1I")
    assert current.units["USD"][0].frame is None
    shares = found.taxonomies["dei"]["EntityCommonStockSharesOutstanding"].units["shares"]
    assert shares[-1].val == 14687356000.0 and shares[-1].end == "2026-04-17"
    recorded = payload["facts"]["us-gaap"]["Assets"]["units"]["USD"]
    assert [p.val for p in found.taxonomies["us-gaap"]["Assets"].units["USD"]] == \
        [p["val"] for p in recorded]


def test_malformed_company_facts():
    with pytest.raises(UpstreamBadResponse):
        sec.parse_company_facts({"cik": 1})
    found = sec.parse_company_facts({"cik": 1, "facts": {
        "us-gaap": {"A": {"label": "A", "units": {"USD": [{"val": True, "fy": 2024.0}, 7]}},
                    "B": "not a concept"}, "dei": []}})
    assert found.taxonomies == {"us-gaap": {"A": Concept(label="A", description=None, units={
        "USD": [DataPoint(start=None, end=None, val=None, fy=2024, fp=None, form=None,
                          filed=None, accn=None, frame=None)]})}}


SEARCH = {"took": 52, "timed_out": False, "hits": {
    "total": {"value": 2, "relation": "eq"}, "max_score": 9.1,
    "hits": [
        {"_index": "edgar_file", "_id": "0000320193-24-000123:aapl-20240928.htm",
         "_score": 9.1, "_source": {
             "ciks": ["0000320193"], "display_names": ["Apple Inc.  (AAPL)  (CIK 0000320193)"],
             "file_date": "2024-11-01", "form": "10-K", "adsh": "0000320193-24-000123",
             "root_forms": ["10-K"]}},
        {"_index": "edgar_file", "_id": "broken"},
        {"_index": "edgar_file", "_id": "0000320193-24-000081:x.htm", "_score": 3.0,
         "_source": {"ciks": "0000320193", "file_date": "", "form": "10-Q",
                     "adsh": "0000320193-24-000081"}}]}}


def test_search_answer():
    found = sec.parse_search(SEARCH)
    assert found.total_hits == 2
    assert found.hits == [
        SearchHit(file_date="2024-11-01", form="10-K", adsh="0000320193-24-000123",
                  display_names=["Apple Inc.  (AAPL)  (CIK 0000320193)"],
                  ciks=["0000320193"]),
        SearchHit(file_date=None, form="10-Q", adsh="0000320193-24-000081",
                  display_names=[], ciks=[])]
    with pytest.raises(UpstreamBadResponse):
        sec.parse_search({"error": "bad"})


def test_search_params():
    assert sec.search_params("apple", [], None, None, 0, 100, "2025-06-02") == {
        "q": "apple", "size": 100}
    assert sec.search_params('"net sales"', ["10-K", "8-K"], None, "2024-12-31", 200, 50,
                             "2025-06-02") == {
        "q": '"net sales"', "forms": "10-K,8-K", "dateRange": "custom",
        "startdt": sec.SEARCH_FIRST_DAY, "enddt": "2024-12-31", "from": 200, "size": 50}
    assert sec.search_params("x", [], "2024-01-01", None, 0, 1, "2025-06-02")["enddt"] == \
        "2025-06-02"
