"""The v2 parsers of Yahoo's search and lookup: parse_search and parse_listing on every
search recording, parse_lookup on bodies in the documented shape (no recording exists), the
sandbox's answers through the real parsers."""

from __future__ import annotations

import pytest

from marketdata.errors import UpstreamBadResponse
from marketdata.providers.yahoo.lookup import parse_document, parse_lookup
from marketdata.providers.yahoo.news import parse_listing
from marketdata.providers.yahoo.search import parse_search, parse_thumbnail
from marketdata.records.members import as_json, member_names
from marketdata.records.search import LookupQuote, ResearchReport, SearchArticle, SearchQuote

from .helpers import recordings

SEARCH_QUOTE_MEMBERS = member_names(SearchQuote)
SEARCH_NEWS_MEMBERS = member_names(SearchArticle)
RESEARCH_REPORT_MEMBERS = member_names(ResearchReport)
LOOKUP_MEMBERS = member_names(LookupQuote)

SEARCH_FILES = recordings("yahoo/v1-search")

# Per recording: (count, totalTime, symbols of the quotes kept, articles kept, listed: the
# symbol searched for and whether the quotes list it).
EXPECTED = {
    "yahoo/v1-search/search-0P000071W8.TO.json": (
        10, 45, ["0P000071W8.TO"], 4, ("0P000071W8.TO", True)),
    "yahoo/v1-search/search-AAPL-finance-query-2026.json": (
        6, 70, ["AAPL", "AAPU", "AAPL.NE", "AAPL.BA", "AAPL.SN", "AAPY.DE"], 0,
        ("AAPL", True)),
    "yahoo/v1-search/search-AAPL.json": (
        11, 83, ["AAPL", "AAPU", "AAPL251219C00120000", "AAPL250620P00210000",
                 "AAPL260116P00170000", "AAPL250620P00200000"], 4, ("AAPL", True)),
    "yahoo/v1-search/search-BTC-USD.json": (
        10, 70, ["BTC-USD", "HBTC-USD", "CBBTC32994-USD", "LBTC33652-USD", "PBTC-USD",
                 "0P0001P539"], 4, ("BTC-USD", True)),
    "yahoo/v1-search/search-Bayerische_Motoren_Werke_AG.json": (
        13, 91, ["BMW.DE", "BMW.SG", "BAMXF", "BMWM5N.MX", "BMW3D.XC", "BMW.DU"], 4,
        ("BMW.DE", True)),
    "yahoo/v1-search/search-EUR.json": (
        11, 107, ["EURUSD=X", "EURHUF=X", "EURCHF=X", "GBPEUR=X", "EURRUB=X"], 4,
        ("EUR", False)),
    "yahoo/v1-search/search-NO0010123060.json": (0, 83, [], 0, ("NO0010123060", False)),
    "yahoo/v1-search/search-idx_VXAPL.json": (1, 50, ["^VXAPL"], 0, ("^VXAPL", True)),
}


def test_every_recording_has_an_expectation():
    if not SEARCH_FILES:
        pytest.skip("../shared/upstream absent")
    assert sorted(EXPECTED) == SEARCH_FILES


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_parse_search(recording, path):
    payload = recording(path)
    count, total_time, symbols, articles, (searched, listed) = EXPECTED[path]
    answer = parse_search(payload)
    assert (answer.count, answer.total_time) == (count, total_time)
    assert [q.symbol for q in answer.quotes] == symbols
    assert len(answer.news) == articles and answer.research_reports == []
    recorded = {q["symbol"]: q for q in payload["quotes"] if q.get("symbol")}
    for quote in as_json(answer.quotes):
        assert list(quote) == list(SEARCH_QUOTE_MEMBERS)
        source = recorded[quote["symbol"]]
        assert quote["shortName"] == source.get("shortname")  # as sent, padding included
        assert quote["longName"] == source.get("longname")
        for name in ("quoteType", "exchange", "exchDisp", "typeDisp", "industry", "sector",
                     "isYahooFinance", "dispSecIndFlag", "logoUrl", "score"):
            assert quote[name] == source.get(name), name
    for article, source in zip(as_json(answer.news), payload["news"], strict=True):
        assert list(article) == list(SEARCH_NEWS_MEMBERS)
        assert article == {name: source.get(name) for name in SEARCH_NEWS_MEMBERS}
    assert parse_listing(payload, searched)[0] is listed


def test_listing_names_the_instrument(recording):
    payload = recording("yahoo/v1-search/search-Bayerische_Motoren_Werke_AG.json")
    assert parse_listing(payload, "bmw.de") == (
        True, "Bayerische Motoren Werke Aktiengesellschaft")
    assert parse_listing(payload, "BMW") == (False, None)


def test_research_reports_and_bad_bodies():
    answer = parse_search({"quotes": None, "researchReports": [
        {"reportHeadline": "Apple: steady", "author": "A. Analyst", "reportDate": 1740441600000,
         "id": "ARGUS_1", "provider": "Argus", "extra": 1}, "garbage"]})
    assert answer.quotes == [] and answer.count is None
    assert as_json(answer.research_reports) == [{"reportHeadline": "Apple: steady",
                                        "author": "A. Analyst", "reportDate": 1740441600000,
                                        "id": "ARGUS_1", "provider": "Argus"}]
    assert list(as_json(answer.research_reports[0])) == list(RESEARCH_REPORT_MEMBERS)
    for body in ([], {"quotes": "x"}, {"news": {}}, {"researchReports": 1}):
        with pytest.raises(UpstreamBadResponse):
            parse_search(body)


def test_thumbnails_without_a_url_are_null():
    assert parse_thumbnail(None) is None
    assert parse_thumbnail({"resolutions": [{"width": 10}]}) is None
    assert as_json(parse_thumbnail({"resolutions": [{"url": "https://x/y.jpg",
                                                     "width": "0"}]})) == {
        "resolutions": [{"url": "https://x/y.jpg", "width": None, "height": None,
                         "tag": None}]}


# -- lookup -----------------------------------------------------------------------------------
DOCUMENT = {"symbol": "AAPL", "shortName": "Apple Inc.", "exchange": "NMS",
            "quoteType": "equity", "rank": 20000, "industryName": "Consumer Electronics",
            "industryLink": "https://finance.yahoo.com/sectors/technology/consumer-electronics",
            "regularMarketPrice": 244.87, "regularMarketChange": 3.34,
            "regularMarketPercentChange": 1.3828}


def test_parse_lookup_documented_shape():
    answer = parse_lookup({"finance": {"result": [{
        "start": 0, "count": 2, "total": 57,
        "documents": [DOCUMENT, {"shortName": "no symbol"},
                      {"symbol": "SPY", "quoteType": "etf",
                       "regularMarketPrice": {"raw": 601.5, "fmt": "601.50"},
                       "regularMarketPercentChange": {"raw": -0.25, "fmt": "-0.25%"}}]}],
        "error": None}})
    assert (answer.start, answer.total) == (0, 57)
    aapl, spy = as_json(answer.quotes)
    assert list(aapl) == list(LOOKUP_MEMBERS)
    assert aapl == {"symbol": "AAPL", "shortName": "Apple Inc.", "longName": None,
                    "quoteType": "EQUITY", "exchange": "NMS", "exchDisp": None,
                    "typeDisp": None, "industry": "Consumer Electronics", "sector": None,
                    "regularMarketPrice": 244.87, "regularMarketChange": 3.34,
                    "regularMarketChangePercent": 1.3828, "regularMarketPreviousClose": None,
                    "logoUrl": None, "companyLogoUrl": None}
    assert spy["regularMarketPrice"] == 601.5 and spy["regularMarketChangePercent"] == -0.25
    assert spy["quoteType"] == "ETF" and spy["shortName"] is None


def test_parse_lookup_without_a_match_and_bad_bodies():
    assert parse_lookup({"finance": {"result": [], "error": None}}).quotes == []
    assert parse_lookup({"finance": {"result": [{"start": 0, "count": 0, "total": 0,
                                                 "documents": []}]}}).quotes == []
    for body in ({}, [], {"finance": {"result": None, "error": {"code": "Bad Request",
                                                                 "description": "Invalid"}}},
                 {"finance": {"result": "x"}},
                 {"finance": {"result": [{"documents": "x"}]}}):
        with pytest.raises(UpstreamBadResponse):
            parse_lookup(body)
    assert parse_document({"symbol": "  "}) is None


def test_the_sandbox_answers_through_the_real_parsers(sandbox_upstream):
    from marketdata.providers.yahoo.lookup import lookup
    from marketdata.providers.yahoo.news import symbol_news_listed
    from marketdata.providers.yahoo.search import search

    answer = search("SPY", quotes=3, news=2, fuzzy=False, logo=True, research=True,
                    cultural=False, lang="en-US", region="US")
    assert answer.quotes[0].symbol == "SPY" and len(answer.news) == 2
    assert answer.research_reports == []  # an ETF has none
    found = lookup("7203.T", type_="equity", count=5, lang="en-US", region="US")
    assert found.quotes[0].symbol == "7203.T" and found.quotes[0].regular_market_price
    news = symbol_news_listed("SAP.DE")
    assert news.listed and news.name and news.items
    assert all("SAP.DE" in (item.related or ()) for item in news.items)
    assert not symbol_news_listed("ZZZZ").listed
