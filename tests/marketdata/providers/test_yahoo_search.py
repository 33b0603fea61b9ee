"""Yahoo v1 search quotes: every recording through parse_search_quotes, the request made,
the type filter and the cap."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.errors import UpstreamBadResponse
from marketdata.providers.yahoo.search import (
    SEARCH_URL,
    get_search,
    parse_search_quotes,
    query_key,
    search_quotes,
    select,
)
from tests.conftest import calls_to

from .helpers import recordings

SEARCH_FILES = recordings("yahoo/v1-search")

# What each recording gives: (symbol, exchange, type, name) per kept quote, in order.
EXPECTED = {
    "yahoo/v1-search/search-AAPL.json": [
        ("AAPL", "NMS", "stock", "Apple Inc."),
        # long name preferred: the short name is cut at 31 characters
        ("AAPU", "NGM", "etf", "Direxion Daily AAPL Bull 2X Shares"),
    ],
    # re-serialized by finance-query: no shortname/longname at all, so the symbol is the name
    "yahoo/v1-search/search-AAPL-finance-query-2026.json": [
        ("AAPL", "NMS", "stock", "AAPL"),
        ("AAPU", "NGM", "etf", "AAPU"),
        ("AAPL.NE", "NEO", "stock", "AAPL.NE"),
        ("AAPL.BA", "BUE", "stock", "AAPL.BA"),
        ("AAPL.SN", "SGO", "stock", "AAPL.SN"),
        ("AAPY.DE", "GER", "stock", "AAPY.DE"),
    ],
    "yahoo/v1-search/search-0P000071W8.TO.json": [
        ("0P000071W8.TO", "TOR", "trust", "TD Indiciel américain - e (C$)"),
    ],
    # five cryptocurrencies are dropped; the mutual fund stays
    "yahoo/v1-search/search-BTC-USD.json": [
        ("0P0001P539", "PNK", "trust", "Franklin Templeton SinoAm Btchlg -USD"),
    ],
    "yahoo/v1-search/search-Bayerische_Motoren_Werke_AG.json": [
        ("BMW.DE", "GER", "stock", "Bayerische Motoren Werke Aktiengesellschaft"),
        ("BMW.SG", "STU", "stock", "Bayerische Motoren Werke AG"),
        ("BAMXF", "PNK", "stock", "Bayerische Motoren Werke Aktiengesellschaft"),
        ("BMWM5N.MX", "MEX", "stock", "Bayerische Motoren Werke Aktiengesellschaft"),
        ("BMW3D.XC", "CXE", "stock", "Bayerische Motoren Werke Aktiengesellschaft"),
        ("BMW.DU", "DUS", "stock", "Bayerische Motoren Werke AG"),
    ],
    "yahoo/v1-search/search-EUR.json": [],  # currencies only
    "yahoo/v1-search/search-NO0010123060.json": [],  # no match at all
    "yahoo/v1-search/search-idx_VXAPL.json": [],  # an index
}


def test_every_recording_has_an_expectation():
    if not SEARCH_FILES:
        pytest.skip("../shared/upstream absent")
    assert sorted(EXPECTED) == SEARCH_FILES


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_parse_search_quotes(recording, path):
    parsed = parse_search_quotes(recording(path))
    assert [(r["symbol"], r["exchange"], r["type"], r["name"]) for r in parsed] == EXPECTED[path]
    for row in parsed:
        assert set(row) == {"name", "symbol", "exchange", "type"}
        assert all(isinstance(v, str) and v for v in row.values())


def test_aapl_first_quote(recording):
    first = parse_search_quotes(recording("yahoo/v1-search/search-AAPL.json"))[0]
    assert first == {"name": "Apple Inc.", "symbol": "AAPL", "exchange": "NMS", "type": "stock"}


def test_short_name_is_used_without_a_long_name_and_padding_is_collapsed():
    payload = {"quotes": [
        {"exchange": "GER", "shortname": "BAYERISCHE MOTOREN WERKE AG   S", "quoteType": "EQUITY",
         "symbol": "BMW.DE"},
        {"exchange": "NMS", "quoteType": "EQUITY", "symbol": "X", "longname": "  "},
    ]}
    assert [r["name"] for r in parse_search_quotes(payload)] == [
        "BAYERISCHE MOTOREN WERKE AG S", "X"]


def test_entries_without_symbol_type_or_exchange_are_left_out():
    payload = {"quotes": [
        {"index": "78ddc07626ff4bbcae663e88514c23a0", "name": "AAPlasma",
         "permalink": "aaplasma", "isYahooFinance": False},
        {"exchange": "NMS", "quoteType": "EQUITY"},
        {"quoteType": "ETF", "symbol": "NOEXCH"},
        {"exchange": "OPR", "quoteType": "OPTION", "symbol": "AAPL250620P00210000"},
        "garbage",
        {"exchange": "NYQ", "quoteType": "equity", "symbol": "KO", "shortname": "Coca-Cola"},
    ]}
    assert parse_search_quotes(payload) == [
        {"name": "Coca-Cola", "symbol": "KO", "exchange": "NYQ", "type": "stock"}]


@pytest.mark.parametrize("payload", [{"quotes": "nope"}, {"quotes": {"a": 1}}])
def test_quotes_that_are_not_a_list_are_a_bad_answer(payload):
    with pytest.raises(UpstreamBadResponse):
        parse_search_quotes(payload)


def test_missing_quotes_key_is_no_result():
    assert parse_search_quotes({"count": 0}) == []


def test_select_filters_by_type_before_the_cap(recording):
    rows = parse_search_quotes(recording("yahoo/v1-search/search-AAPL-finance-query-2026.json"))
    assert [r["symbol"] for r in select(rows, 2)] == ["AAPL", "AAPU"]
    assert [r["symbol"] for r in select(rows, 2, "stock")] == ["AAPL", "AAPL.NE"]
    assert [r["symbol"] for r in select(rows, 5, "etf")] == ["AAPU"]
    assert select(rows, 5, "trust") == []
    assert len(select(rows, 100)) == 6


def test_get_search_request(yahoo, recording):
    yahoo.get(SEARCH_URL, recording("yahoo/v1-search/search-AAPL.json"))
    payload = get_search("apple inc", quotes_count=7, news_count=0)
    assert payload["quotes"][0]["symbol"] == "AAPL"
    (call,) = calls_to(yahoo.mock, "/v1/finance/search")
    parts = urlsplit(call.request.url)
    assert (parts.scheme, parts.netloc, parts.path) == (
        "https", "query1.finance.yahoo.com", "/v1/finance/search")
    query = parse_qs(parts.query)
    assert query["q"] == ["apple inc"]
    assert query["quotesCount"] == ["7"]
    assert query["newsCount"] == ["0"]
    assert query["enableFuzzyQuery"] == ["false"]
    assert "crumb" not in query  # Yahoo answers search without one
    assert not calls_to(yahoo.mock, "getcrumb")


@pytest.mark.parametrize("status", [404, 400, 403])
def test_get_search_http_errors_are_bad_answers(yahoo, status):
    yahoo.get(SEARCH_URL, {"finance": {"result": None, "error": {"code": "x"}}}, status=status)
    with pytest.raises(UpstreamBadResponse) as info:
        get_search("AAPL", 6, 0)
    assert info.value.provider == "yahoo"
    assert info.value.status_code == 502


@pytest.mark.parametrize("body", ["[1, 2]", "not json"])
def test_get_search_unusable_bodies(yahoo, body):
    yahoo.get(SEARCH_URL, body)
    with pytest.raises(UpstreamBadResponse):
        get_search("AAPL", 6, 0)


def test_search_quotes_caches_by_normalised_query(yahoo, recording):
    yahoo.get(SEARCH_URL, recording("yahoo/v1-search/search-AAPL.json"))
    first = search_quotes("AAPL", 10)
    again = search_quotes("aapl", 10)
    assert first == again == parse_search_quotes(recording("yahoo/v1-search/search-AAPL.json"))
    assert len(calls_to(yahoo.mock, "/v1/finance/search")) == 1
    # another cap or type is another entry
    assert search_quotes("AAPL", 1) == first[:1]
    assert search_quotes("AAPL", 10, "etf") == [first[1]]
    assert len(calls_to(yahoo.mock, "/v1/finance/search")) == 3


@pytest.mark.parametrize(("query", "key"), [
    ("AAPL", "aapl"),
    ("brk-b", "brk-b"),
    ("^GSPC", "^gspc"),
])
def test_query_key_keeps_plain_tokens(query, key):
    assert query_key(query) == key


@pytest.mark.parametrize("query", ["apple inc", "Société Générale", "a" * 41, "a&b=c",
                                   "EURUSD=X", "AAPL\n"])
def test_query_key_hashes_everything_else(query):
    key = query_key(query)
    assert key.startswith("sha256:") and len(key) == 39
    assert key == query_key(query.upper())  # case-insensitive
    assert " " not in key and key.isascii()
