"""The news, search, macro and company capabilities: every row names fetchers that exist, the
query is validated before any source, and the rows' own rules (search: half the time for
the index, the secondary's failure shown, the secondary alone on request; press releases:
a keyed source with nothing to say passes to the next)."""

from __future__ import annotations

import pytest

from marketdata import capabilities, deadline
from marketdata.capabilities import companies, macro, news, search, table
from marketdata.errors import (
    BadRequest,
    NotFound,
    NotServed,
    UpstreamBadResponse,
    UpstreamTimeout,
)
from marketdata.records.companies import Constituent, PressRelease, constituent
from marketdata.records.macro import LEGACY, Commitments, cot_lookup
from marketdata.records.search import Security, SecurityMatches

ROWS = ("security_search", "news", "general_news", "world_news", "macro_series",
        "treasury_yields", "cot", "press_releases", "index_constituents")


@pytest.fixture(autouse=True)
def _no_keys(settings):
    settings.FMP_API_KEY = ""
    settings.FRED_API_KEY = ""
    capabilities.reset_warnings()


@pytest.fixture
def fetchers(monkeypatch):
    """Replace the fetchers of a row by test functions: ``fetchers(row, {source: fn})``;
    returns the calls made, ``(source, args, kwargs, deadline left)``."""
    calls: list[tuple[str, tuple, dict, float | None]] = []

    def install(row: str, functions: dict) -> list:
        for source in table.CAPABILITIES[row].sources:
            function = functions[source.name]

            def fetch(*args, _name=source.name, _function=function, **kwargs):
                calls.append((_name, args, kwargs, deadline.remaining()))
                return _function(*args, **kwargs)

            monkeypatch.setitem(table._fetchers, source.fetcher, fetch)
        return calls

    return install


def _raise(error: Exception):
    def fetch(*args, **kwargs):
        raise error
    return fetch


@pytest.mark.parametrize("row", ROWS)
def test_every_source_names_an_importable_fetcher(row):
    for source in table.CAPABILITIES[row].sources:
        assert source.fetcher and source.fetcher.startswith("marketdata.providers.")
        assert callable(source.fetch_function())


# -- search -----------------------------------------------------------------------------------
MATCHES = SecurityMatches([Security("Apple Inc.", "AAPL", "NASDAQ", "stock")], "algolia")


def test_search_normalises_the_query_and_gives_the_index_half_the_time(fetchers):
    calls = fetchers("security_search", {"algolia": lambda *a, **k: MATCHES,
                                         "yahoo": _raise(AssertionError("not asked"))})
    with deadline.within(10):
        assert search.securities("  apple   inc ", 5, "stock") is MATCHES
    ((name, args, kwargs, left),) = calls
    assert (name, args, kwargs) == ("algolia", ("apple inc", 5, "stock"),
                                    {"use_primary": True})
    assert left is not None and left <= 5.0 + 0.01


def test_search_both_failing_shows_the_secondarys_failure(fetchers):
    last = UpstreamTimeout("yahoo", "slow")
    fetchers("security_search", {"algolia": _raise(UpstreamBadResponse("algolia", "bad")),
                                 "yahoo": _raise(last)})
    with pytest.raises(UpstreamTimeout) as caught:
        search.securities("apple", 5)
    assert caught.value is last


def test_search_secondary_alone_on_request(fetchers):
    secondary = SecurityMatches([], "yahoo")
    calls = fetchers("security_search", {
        "algolia": _raise(NotServed("the caller asked for the secondary search provider")),
        "yahoo": lambda *a, **k: secondary})
    assert search.securities("apple", 5, use_primary=False) is secondary
    assert [(c[0], c[2]) for c in calls] == [("algolia", {"use_primary": False}),
                                             ("yahoo", {"use_primary": False})]


def test_search_refuses_an_unknown_type_before_any_source(fetchers):
    calls = fetchers("security_search", {"algolia": _raise(AssertionError()),
                                         "yahoo": _raise(AssertionError())})
    with pytest.raises(BadRequest):
        search.securities("apple", 5, "bond")
    assert calls == []


def test_algolia_fetcher_is_not_served_when_the_secondary_is_asked_for():
    from marketdata.providers import algolia

    with pytest.raises(NotServed):
        algolia.securities("apple", 5, use_primary=False)


# -- news -------------------------------------------------------------------------------------
def test_news_rows_pass_the_symbol(fetchers):
    calls = fetchers("news", {"yahoo": lambda symbol: [symbol]})
    fetchers("general_news", {"yahoo": lambda: ["market"]})
    fetchers("world_news", {"gdelt": lambda symbol: [f"world {symbol}"]})
    assert news.symbol_news("AAPL") == ["AAPL"]
    assert news.general_news() == ["market"]
    assert news.world_news("MSFT") == ["world MSFT"]
    assert [c[:2] for c in calls] == [("yahoo", ("AAPL",)), ("yahoo", ()),
                                      ("gdelt", ("MSFT",))]


# -- macro ------------------------------------------------------------------------------------
def test_macro_series_checks_the_id_before_any_source(fetchers):
    calls = fetchers("macro_series", {"fred_api": _raise(AssertionError()),
                                      "fred_graph": lambda series_id: []})
    with pytest.raises(NotFound, match="Series not found"):
        macro.series("DGS-10")
    assert calls == []
    series = macro.series(" dgs10 ")
    assert (series.id, series.observations) == ("DGS10", [])
    assert [c[:2] for c in calls] == [("fred_graph", ("DGS10",))]


def test_treasury_year_bounds(fetchers):
    calls = fetchers("treasury_yields", {"treasury": lambda year, current: [{"date": "x"}]})
    for year in (1989, 2031):
        with pytest.raises(BadRequest):
            macro.treasury_yields(year, 2030)
    assert calls == []
    assert macro.treasury_yields(2030, 2030) == [{"date": "x"}]


def test_cot_asks_with_the_lookup(fetchers):
    found = cot_lookup("ES=F")
    calls = fetchers("cot", {"cftc": lambda lookup: Commitments("legacy")})
    # The answer is under the symbol asked for, with the looked-up code when rows have none.
    assert macro.cot(found) == Commitments("legacy", "ES=F", "13874A")
    assert calls[0][1] == (found,)
    assert found.reports[0] is LEGACY


# -- companies --------------------------------------------------------------------------------
def test_press_releases_pass_a_keyed_source_with_nothing_to_say(fetchers, settings):
    settings.FMP_API_KEY = "k"
    release = PressRelease("2025-01-02", "AAPL", "Title", "Text")
    calls = fetchers("press_releases", {"fmp": _raise(NotServed("No press releases")),
                                        "sec": lambda symbol, limit: [release]})
    assert companies.press_releases("AAPL", 3) == [release]
    assert [c[:2] for c in calls] == [("fmp", ("AAPL", 3)), ("sec", ("AAPL", 3))]


def test_constituents_resolve_the_index_before_any_source(fetchers):
    calls = fetchers("index_constituents", {"fmp": _raise(AssertionError()),
                                            "wikipedia": lambda index: [index]})
    with pytest.raises(NotFound, match="constituents are available for"):
        companies.index_constituents("^FTSE")
    assert calls == []
    assert companies.index_constituents(" spx ") == ["sp500"]


def test_constituent_rows_get_one_spelling():
    row = {"symbol": "brk.b", "name": "Berkshire", "cik": "1067983", "subSector": "Insurance",
           "dateFirstAdded": None}
    assert constituent(row) == Constituent("BRK-B", "Berkshire", None, "Insurance", None,
                                           None, "0001067983", None)
    assert constituent({"cik": "n/a"}).cik == "n/a"
