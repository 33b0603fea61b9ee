"""The quote and market-overview capabilities: each function hands its query to its row's
fetcher as given and returns the answer; every row names a fetcher that imports."""

from __future__ import annotations

import pytest

from marketdata.capabilities import futures, market, quotes, table
from marketdata.records.market import BY_ID

ROWS = ("quotes", "full_quote", "v2_quote", "v2_quotes", "logos", "quote_type", "indices",
        "movers", "sectors", "symbol_sector", "similar", "forex", "futures")


@pytest.mark.parametrize("name", ROWS)
def test_every_source_names_a_fetcher_that_imports(name):
    for source in table.CAPABILITIES[name].sources:
        assert callable(source.fetch_function()), (name, source.name)


@pytest.mark.parametrize(("ask", "row", "args", "kwargs"), [
    (lambda: quotes.snapshots(["AAPL"]), "quotes", (["AAPL"],), {}),
    (lambda: quotes.full_quote("AAPL"), "full_quote", ("AAPL",), {}),
    (lambda: quotes.v2_quote("AAPL", lang="fr-FR", region="FR"), "v2_quote", ("AAPL",),
     {"lang": "fr-FR", "region": "FR"}),
    (lambda: quotes.v2_quotes(["AAPL"]), "v2_quotes", (["AAPL"],),
     {"lang": None, "region": None}),
    (lambda: quotes.logos(["AAPL"]), "logos", (["AAPL"],), {}),
    (lambda: quotes.quote_type("AAPL"), "quote_type", ("AAPL",), {}),
    (lambda: market.index(BY_ID["snp"]), "indices", (BY_ID["snp"],), {}),
    (lambda: market.movers("gainers", 25), "movers", ("gainers", 25), {}),
    (lambda: market.sector("energy"), "sectors", ("energy",), {}),
    (lambda: market.sector_key_of("XOM"), "symbol_sector", ("XOM",), {}),
    (lambda: market.peers("AAPL", 6), "similar", ("AAPL", 6), {}),
    (lambda: futures.contract_quote("GC=F"), "futures", ("GC=F",), {}),
])
def test_the_query_reaches_the_fetcher_as_given(monkeypatch, ask, row, args, kwargs):
    calls = []
    answer = object()

    def fetch(*got_args, **got_kwargs):
        calls.append((got_args, got_kwargs))
        return answer

    (source,) = table.CAPABILITIES[row].sources
    monkeypatch.setitem(table._fetchers, source.fetcher, fetch)
    assert ask() is answer
    assert calls == [(args, kwargs)]


def test_an_unknown_mover_list_is_a_programming_error():
    with pytest.raises(ValueError, match="mover list"):
        market.movers("decliners", 25)
