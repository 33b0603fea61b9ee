"""SEC N-PORT (:mod:`marketdata.providers.sec_nport`): the report parser on a hand-made
N-PORT-P in the real layout (several asset categories, derivatives with nested reference
identifiers, a bond, a euro holding, OTHER categories, missing identifiers, a short), the
refusals (malformed XML, a DOCTYPE with entities, another root, too many holdings), the
filing list and ticker list parsers, ticker resolution, and the fetches through a mocked
EDGAR: the requests, which filing is chosen (amendments), the caches, NotServed. No
recording of these calls exists: the bodies are in ``nport_bodies`` (EDGAR's shapes)."""

from __future__ import annotations

import dataclasses

import pytest
import responses
from responses import matchers

from marketdata.errors import NotServed, UpstreamBadResponse
from marketdata.providers import sec, sec_nport
from marketdata.providers.sec_nport import (
    issuer_key,
    parse_company_names,
    parse_fund_tickers,
    parse_nport,
    parse_series_filings,
)
from marketdata.records.funds import ASSET_CATEGORIES
from tests.marketdata.providers.nport_bodies import (
    ARCHIVES,
    BROWSE,
    FUND_TICKERS,
    FUND_TICKERS_URL,
    atom,
    nport_xml,
)

NAMES = {
    "0": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."},
    "1": {"cik_str": 1652044, "ticker": "GOOGL", "title": "Alphabet Inc."},
    "2": {"cik_str": 1652044, "ticker": "GOOG", "title": "Alphabet Inc."},
    "3": {"cik_str": 19617, "ticker": "JPM", "title": "JPMORGAN CHASE & CO"},
    "4": {"cik_str": 19617, "ticker": "JPM-PC", "title": "JPMORGAN CHASE & CO"},
    "5": {"cik_str": 1067983, "ticker": "BRK-A", "title": "BERKSHIRE HATHAWAY INC"},
    "6": {"cik_str": 1067983, "ticker": "BRK-B", "title": "BERKSHIRE HATHAWAY INC"},
    "7": {"cik_str": 1018724, "ticker": "AMZN", "title": "AMAZON COM INC"},
    "8": {"cik_str": 111, "ticker": "ACME", "title": "Acme Corp"},
    "9": {"cik_str": 222, "ticker": "ACMX", "title": "ACME CORPORATION /DE/"},
    "10": {"cik_str": 1318605, "ticker": "TSLA", "title": "Tesla, Inc."},
}


@pytest.fixture
def report():
    return parse_nport(nport_xml().encode())


def by_name(report, name):
    return next(h for h in report.holdings if h.name == name)


# -- the report -----------------------------------------------------------------------------
def test_header(report):
    assert (report.form, report.series_id, report.series_name, report.registrant) == (
        "NPORT-P", "S000002839", "Vanguard 500 Index Fund", "VANGUARD INDEX FUNDS")
    assert (report.as_of, report.fiscal_year_end) == ("2024-09-30", "2024-12-31")
    assert (report.net_assets, report.total_assets) == (1_000_000.0, 1_010_000.0)
    assert len(report.holdings) == 9


def test_holdings_by_weight_largest_first_unknown_last(report):
    weights = [h.weight_percent for h in report.holdings]
    assert weights == [22.6, 9.80005, 7.0, 5.0, 2.0, 0.4, -0.125075, -1.5, None]
    assert report.holdings[0].name == "Apple Inc"


def test_common_equity(report):
    apple = by_name(report, "Apple Inc")
    assert dataclasses.asdict(apple) == {
        "name": "Apple Inc", "title": "Apple Inc", "cusip": "037833100",
        "isin": "US0378331005", "ticker": None, "lei": "HWUPKR0MPOU8FGXBT394",
        "balance": 1000.0, "units": "NS", "currency": "USD", "value": 226000.0,
        "weight_percent": 22.6, "payoff_profile": "long", "asset_category": "EC",
        "asset_category_name": "Equity-common", "issuer_category": "CORP",
        "issuer_category_name": "Corporate", "country": "US", "fair_value_level": 1,
        "restricted": False, "derivative_type": None, "maturity_date": None,
        "coupon_rate": None}


def test_bond_has_its_debt_section(report):
    bond = by_name(report, "United States Treasury")
    assert (bond.units, bond.balance, bond.asset_category, bond.issuer_category) == (
        "PA", 100000.0, "DBT", "UST")
    assert bond.issuer_category_name == "U.S. Treasury" and bond.fair_value_level == 2
    assert (bond.maturity_date, bond.coupon_rate) == ("2034-02-15", 4.0)


def test_missing_identifiers_are_null(report):
    cash = by_name(report, "Vanguard Market Liquidity Fund")
    assert cash.cusip is cash.isin is cash.lei is cash.ticker is None  # 000000000, N/A
    assert (cash.asset_category, cash.issuer_category_name) == ("STIV", "Registered fund")


def test_a_future_keeps_its_own_identifiers_not_its_reference_instruments(report):
    future = by_name(report, "Chicago Mercantile Exchange")
    assert future.isin is None and future.ticker is None and future.cusip is None
    assert future.derivative_type == "future" and future.payoff_profile is None
    assert (future.units, future.balance, future.value) == ("NC", 10.0, -1250.75)
    assert future.asset_category_name == "Derivative-equity"


def test_currency_conditional_and_other_categories(report):
    sap = by_name(report, "SAP SE")
    assert (sap.currency, sap.country, sap.isin, sap.cusip) == ("EUR", "DE", "DE0007164600",
                                                                  None)
    trust = by_name(report, "Example Gold Trust")
    assert (trust.asset_category, trust.asset_category_name) == ("OTHER",
                                                                 "Other: Grantor trust")
    assert (trust.issuer_category, trust.issuer_category_name) == ("OTHER",
                                                                   "Other: Commodity trust")
    assert trust.ticker == "EXGT"  # the filing's own ticker identifier


def test_restricted_short_and_swap(report):
    private = by_name(report, "Private Robotics Inc")
    assert private.restricted is True and private.fair_value_level == 3
    assert private.asset_category == "EP"
    short = by_name(report, "Tesla Inc")
    assert short.payoff_profile == "short" and short.balance == -50.0
    swap = by_name(report, "Goldman Sachs Bank USA")
    assert (swap.units, swap.derivative_type, swap.value, swap.weight_percent) == (
        "OU", "swap", None, None)
    assert swap.asset_category_name == ASSET_CATEGORIES["DIR"]


def test_weights_are_sums_of_the_filings_pct_values(report):
    countries = {w.country: w for w in report.country_weights}
    assert list(countries) == ["US", "DE"]
    assert countries["US"].weight_percent == pytest.approx(
        22.6 + 9.80005 + 5.0 + 2.0 + 0.4 - 0.125075 - 1.5)
    assert countries["US"].holdings == 8 and countries["DE"].value == 70000.0
    categories = {w.code: w for w in report.asset_category_weights}
    assert list(categories)[:2] == ["EC", "DBT"]
    assert categories["EC"].weight_percent == pytest.approx(22.6 + 7.0 - 1.5)
    assert categories["EC"].holdings == 3 and categories["EC"].name == "Equity-common"
    assert categories["DIR"].value is None and categories["DIR"].weight_percent == 0


def test_namespace_prefixes_are_dropped():
    prefixed = nport_xml().replace("<edgarSubmission xmlns=", "<n:edgarSubmission xmlns:n=") \
        .replace("</edgarSubmission>", "</n:edgarSubmission>") \
        .replace("<invstOrSecs>", "<n:invstOrSecs>").replace("</invstOrSecs>",
                                                             "</n:invstOrSecs>")
    assert parse_nport(prefixed.encode()) == parse_nport(nport_xml().encode())


@pytest.mark.parametrize("body", [
    nport_xml()[:-200],  # cut short
    nport_xml().replace("<pctVal>22.6</pctVal>", "<pctVal>22.6</pct>"),
    "<html><body>Page Not Found</body></html",
    "",
])
def test_malformed_xml_is_a_502(body):
    with pytest.raises(UpstreamBadResponse, match="not well-formed") as caught:
        parse_nport(body.encode())
    assert caught.value.provider == "sec"


def test_entities_are_never_expanded():
    laughs = ('<?xml version="1.0"?>\n<!DOCTYPE edgarSubmission [\n'
              '<!ENTITY a "aaaaaaaaaa">\n<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\n'
              '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">\n]>\n'
              '<edgarSubmission><formData><genInfo><seriesName>&c;</seriesName></genInfo>'
              '</formData></edgarSubmission>')
    with pytest.raises(UpstreamBadResponse, match="DOCTYPE"):
        parse_nport(laughs.encode())
    external = ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
                '<edgarSubmission>&e;</edgarSubmission>')
    with pytest.raises(UpstreamBadResponse, match="DOCTYPE"):
        parse_nport(external.encode())


def test_another_document_is_a_502():
    with pytest.raises(UpstreamBadResponse, match="edgarSubmission"):
        parse_nport(b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"/>')


def test_too_many_holdings_is_a_502(monkeypatch):
    monkeypatch.setattr(sec_nport, "MAX_HOLDINGS", 3)
    with pytest.raises(UpstreamBadResponse, match="over 3 holdings"):
        parse_nport(nport_xml().encode())


def test_long_texts_are_cut():
    long_name = "X" * 5000
    body = nport_xml().replace("<name>Apple Inc</name>", f"<name>{long_name}</name>")
    assert len(parse_nport(body.encode()).holdings[0].name) == sec_nport.MAX_TEXT_CHARS


# -- the lists --------------------------------------------------------------------------------
def test_fund_tickers_by_column_name():
    table = parse_fund_tickers(FUND_TICKERS)
    assert set(table) == {"VOO", "VFIAX", "VTSAX", "TLT"}
    assert table["VOO"] == sec_nport.FundClass(36405, "S000002839", "C000092055")
    assert table["VTSAX"].cik == 36405  # a CIK written as digits
    reordered = {"fields": ["symbol", "classId", "seriesId", "cik"],
                 "data": [["VOO", "C000092055", "S000002839", 36405]]}
    assert parse_fund_tickers(reordered) == {"VOO": table["VOO"]}


@pytest.mark.parametrize("payload", [{}, [], {"fields": ["cik"], "data": []},
                                     {"fields": ["cik", "seriesId", "classId", "symbol"],
                                      "data": []}])
def test_fund_tickers_without_rows_is_a_502(payload):
    with pytest.raises(UpstreamBadResponse):
        parse_fund_tickers(payload)


def test_series_filings_newest_first_each_once():
    body = atom([("NPORT-P/A", "0001752724-24-300002", "2024-12-10"),
                 ("NPORT-P", "0001752724-24-300001", "2024-11-26"),
                 ("NPORT-P", "0001752724-24-300001", "2024-11-26"),  # listed twice
                 ("NPORT-EX", "0001752724-24-300003", "2024-11-27"),
                 ("NPORT-P", "not-an-accession", "2024-11-25"),
                 ("NPORT-P", "0001752724-24-200001", "2024-08-27")])
    filings = parse_series_filings(body.encode("latin-1"))
    assert [(f.form, f.accession, f.filed) for f in filings] == [
        ("NPORT-P/A", "0001752724-24-300002", "2024-12-10"),
        ("NPORT-P", "0001752724-24-300001", "2024-11-26"),
        ("NPORT-P", "0001752724-24-200001", "2024-08-27")]
    assert filings[1].url == f"{ARCHIVES}/36405/000175272424300001/0001752724-24-300001-index.htm"
    assert parse_series_filings(atom([]).encode()) == []


@pytest.mark.parametrize("body", [b"<html><body>No matching CIK</body></html>",
                                  b"<?xml version='1.0'?><rss/>"])
def test_a_filing_list_that_is_no_feed_is_a_502(body):
    with pytest.raises(UpstreamBadResponse):
        parse_series_filings(body)


@pytest.mark.parametrize(("name", "key"), [
    ("Amazon.com, Inc.", "AMAZON COM"), ("AMAZON COM INC", "AMAZON COM"),
    ("The Coca-Cola Company", "COCA COLA"), ("Coca-Cola Co/The", "COCA COLA"),
    ("JPMorgan Chase & Co.", "JPMORGAN CHASE AND"), ("ACME CORPORATION /DE/", "ACME"),
    ("Inc.", None), ("", None), (None, None)])
def test_issuer_keys(name, key):
    assert issuer_key(name) == key


def test_company_names_resolve_only_one_company_with_one_common_ticker():
    names = parse_company_names(NAMES)
    assert names["APPLE"] == "AAPL" and names["AMAZON COM"] == "AMZN"
    assert names["JPMORGAN CHASE AND"] == "JPM"  # its preferred ticker left aside
    assert names["ALPHABET"] is None  # two share classes
    assert names["BERKSHIRE HATHAWAY"] is None  # two dashed classes
    assert names["ACME"] is None  # two companies
    with pytest.raises(UpstreamBadResponse):
        parse_company_names({})


def test_with_tickers_names_common_equity_only(report):
    holdings = {h.name: h for h in sec_nport.with_tickers(report.holdings,
                                                          parse_company_names(NAMES))}
    assert holdings["Apple Inc"].ticker == "AAPL"
    assert holdings["Tesla Inc"].ticker == "TSLA"
    assert holdings["Example Gold Trust"].ticker == "EXGT"  # the filing's own
    assert holdings["United States Treasury"].ticker is None
    assert holdings["SAP SE"].ticker is None


# -- the fetches ----------------------------------------------------------------------------------
@pytest.fixture
def unpaced(monkeypatch, settings):
    monkeypatch.setattr(sec, "PACER", sec.RequestPacer(None))
    settings.SEC_USER_AGENT = "Example Corp ops@example.com"


def browse_params(series_id: str) -> dict[str, str]:
    return {"action": "getcompany", "CIK": series_id, "type": "NPORT-P", "dateb": "",
            "owner": "include", "count": "10", "output": "atom"}


def document_url(accession: str, cik: int = 36405) -> str:
    return f"{ARCHIVES}/{cik}/{accession.replace('-', '')}/primary_doc.xml"


def test_fund_holdings_calls_and_answer(unpaced):
    with responses.RequestsMock() as mock:
        mock.get(FUND_TICKERS_URL, json=FUND_TICKERS)
        mock.get(BROWSE, match=[matchers.query_param_matcher(browse_params("S000002839"))],
                 body=atom([("NPORT-P", "0001752724-24-300001", "2024-11-26"),
                            ("NPORT-P", "0001752724-24-200001", "2024-08-27")]))
        mock.get(document_url("0001752724-24-300001"), body=nport_xml())
        mock.get(sec.TICKERS_URL, json=NAMES)
        portfolio = sec_nport.fund_holdings("VFIAX")
        again = sec_nport.fund_holdings("VOO")
        assert len(mock.calls) == 4  # the same series: every call cached
        assert {c.request.headers["User-Agent"] for c in mock.calls} == {
            "Example Corp ops@example.com"}
    assert portfolio.source == "sec" and portfolio.symbol == "VFIAX"
    assert portfolio.fund == sec_nport.FundIdentity(
        name="Vanguard 500 Index Fund", registrant="VANGUARD INDEX FUNDS", cik=36405,
        series_id="S000002839", class_id="C000007773")
    assert again.fund.class_id == "C000092055"
    assert (portfolio.form, portfolio.as_of, portfolio.filed_at, portfolio.accession_number) \
        == ("NPORT-P", "2024-09-30", "2024-11-26", "0001752724-24-300001")
    assert portfolio.filing_url == \
        f"{ARCHIVES}/36405/000175272424300001/0001752724-24-300001-index.htm"
    assert portfolio.holdings_count == 9 and portfolio.holdings[0].ticker == "AAPL"
    assert portfolio.top == portfolio.holdings[:10]
    assert portfolio.sector_weights is None
    assert any("pctVal" in notice for notice in portfolio.notices)


def test_a_newer_amendment_restates_the_latest_report(unpaced):
    with responses.RequestsMock() as mock:
        mock.get(FUND_TICKERS_URL, json=FUND_TICKERS)
        mock.get(BROWSE, body=atom([("NPORT-P/A", "0001752724-24-300002", "2024-12-10"),
                                    ("NPORT-P", "0001752724-24-300001", "2024-11-26")]))
        mock.get(document_url("0001752724-24-300002"),
                 body=nport_xml(form="NPORT-P/A", series_name="Restated"))
        mock.get(document_url("0001752724-24-300001"), body=nport_xml())
        mock.get(sec.TICKERS_URL, json=NAMES)
        portfolio = sec_nport.fund_holdings("VOO")
    assert (portfolio.form, portfolio.accession_number, portfolio.fund.name) == (
        "NPORT-P/A", "0001752724-24-300002", "Restated")


def test_a_late_amendment_of_an_older_quarter_does_not_hide_the_latest(unpaced):
    with responses.RequestsMock() as mock:
        mock.get(FUND_TICKERS_URL, json=FUND_TICKERS)
        mock.get(BROWSE, body=atom([("NPORT-P/A", "0001752724-24-300002", "2024-12-10"),
                                    ("NPORT-P", "0001752724-24-300001", "2024-11-26")]))
        mock.get(document_url("0001752724-24-300002"),
                 body=nport_xml(form="NPORT-P/A", as_of="2024-06-30"))
        mock.get(document_url("0001752724-24-300001"), body=nport_xml(as_of="2024-09-30"))
        mock.get(sec.TICKERS_URL, json=NAMES)
        portfolio = sec_nport.fund_holdings("VOO")
    assert (portfolio.form, portfolio.as_of) == ("NPORT-P", "2024-09-30")


def test_no_nport_is_not_served(unpaced):
    with responses.RequestsMock() as mock:
        mock.get(FUND_TICKERS_URL, json=FUND_TICKERS)
        mock.get(BROWSE, body=atom([]))
        with pytest.raises(NotServed, match="no registered fund"):
            sec_nport.fund_holdings("AAPL")
        with pytest.raises(NotServed, match="no N-PORT-P filing of series S000004347"):
            sec_nport.fund_holdings("TLT")
        assert len(mock.calls) == 2


def test_a_browse_404_is_no_filing(unpaced):
    with responses.RequestsMock() as mock:
        mock.get(FUND_TICKERS_URL, json=FUND_TICKERS)
        mock.get(BROWSE, status=404, body="<html>No matching CIK</html>")
        with pytest.raises(NotServed):
            sec_nport.fund_holdings("TLT")


ACCESSION = "0001752724-24-300001"


def one_report(mock, status: int = 200, **body) -> None:
    """EDGAR listing one report of VOO's series, ``primary_doc.xml`` answering ``status``
    with :func:`nport_xml` of ``body``."""
    mock.get(FUND_TICKERS_URL, json=FUND_TICKERS)
    mock.get(BROWSE, body=atom([("NPORT-P", ACCESSION, "2024-11-26")]))
    mock.get(document_url(ACCESSION), status=status,
             body=nport_xml(**body) if status == 200 else "Not Found")


def test_a_report_of_another_series_is_a_502(unpaced):
    with responses.RequestsMock() as mock:
        one_report(mock, series_id="S000009999")
        with pytest.raises(UpstreamBadResponse, match="reports series S000009999"):
            sec_nport.fund_holdings("VOO")


def test_a_missing_report_is_a_502(unpaced):
    with responses.RequestsMock() as mock:
        one_report(mock, status=404)
        with pytest.raises(UpstreamBadResponse):
            sec_nport.fund_holdings("VOO")


def test_an_oversized_report_is_refused(unpaced, monkeypatch):
    monkeypatch.setattr(sec_nport, "MAX_DOCUMENT_BYTES", 1000)
    with responses.RequestsMock() as mock:
        one_report(mock)
        with pytest.raises(UpstreamBadResponse, match="over 1,000 bytes"):
            sec_nport.fund_holdings("VOO")


def test_tickers_left_unresolved_when_the_company_list_fails(unpaced):
    with responses.RequestsMock() as mock:
        one_report(mock)
        mock.get(sec.TICKERS_URL, status=500, body="oops")
        portfolio = sec_nport.fund_holdings("VOO")
    assert portfolio.holdings[0].ticker is None and portfolio.holdings_count == 9
    assert any("company list could not be read" in notice for notice in portfolio.notices)


def test_a_parsed_report_is_kept_in_memory_under_the_budget(unpaced, settings):
    accession = ACCESSION
    with responses.RequestsMock() as mock:
        mock.get(document_url(accession), body=nport_xml())
        first = sec_nport.nport_report(36405, accession)
        from django.core.cache import cache

        cache.clear()  # the shared cache gone: the process still has it
        assert sec_nport.nport_report(36405, accession) is first
        assert len(mock.calls) == 1
    assert sec_nport._reports.usage()["entries"] == 1
    settings.SEC_NPORT_MEMORY_BYTES = 0  # nothing kept: the shared cache answers
    sec_nport._reports.clear()
    with responses.RequestsMock() as mock:
        mock.get(document_url(accession), body=nport_xml())
        sec_nport.nport_report(36405, accession)
        sec_nport.nport_report(36405, accession)
        assert len(mock.calls) == 1
    assert sec_nport._reports.usage()["entries"] == 0
