"""Market indices (v1: one quoteSummary call per index, fanned out, formatted like
quotes; v2: one quote batch), a region's market summary and its trending symbols."""

from __future__ import annotations

from typing import Any

from marketdata import formatting as fmt
from marketdata.capabilities import market, quotes
from marketdata.concurrency import gather_partial
from marketdata.errors import UpstreamBadResponse
from marketdata.records.market import (
    REGION_ALIASES,
    IndexSnapshot,
    MarketIndexInfo,
    TrendingSymbol,
    index_group_symbols,
    select_indices,
)
from marketdata.records.members import as_json, members_of
from marketdata.records.quotes import RETURN_NAMES, GqlQuote, present_value
from marketdata.symbols import normalize_symbol


def has_level(snap: IndexSnapshot) -> bool:
    """Did Yahoo give the index's level and move (an index without them is left out)?"""
    return not (snap.price is None or snap.change is None or snap.change_fraction is None)


def market_index(info: MarketIndexInfo, snap: IndexSnapshot) -> dict[str, Any] | None:
    """The v1 MarketIndex, or None when Yahoo gave no level or move for the index.

    ``change`` uses the index's precision with thousands separators and a sign, as full
    quotes do; ``percentChange`` and the period returns are signed percents ('+0.69%').
    """
    if not has_level(snap) or snap.price is None:
        return None
    out: dict[str, Any] = {
        "name": info.name or snap.long_name or snap.short_name or info.id,
        "value": fmt.round_half_up(snap.price, 2),
        "change": fmt.signed(fmt.price(snap.change, snap.price_hint)),
        "percentChange": fmt.percent(snap.change_fraction, fraction=True),
    }
    for name, _ in RETURN_NAMES:
        if name in snap.returns:
            out[name] = fmt.percent(snap.returns[name], fraction=True)
    return out


def market_indices(ids: list[str] | None = None, region: str | None = None
                   ) -> list[dict[str, Any]]:
    """The selected indices in contract order, fetched concurrently.

    An index that fails (unknown to Yahoo, upstream error, no price) is left out and
    logged; the request fails only when no index could be served, with the upstream error
    when there was one.
    """
    selected = select_indices(ids or (), region)
    fetched = gather_partial(market.index, selected, what="index",
                             label=lambda info: info.id,
                             log_fields=lambda info: {"index": info.id, "symbol": info.symbol},
                             accept=has_level)
    if selected:
        fetched.raise_if_empty(lambda: UpstreamBadResponse(
            "yahoo", "Yahoo Finance has no data for the requested indices"))
    return [item for info, snap in fetched.values
            if (item := market_index(info, snap)) is not None]


# -- v2: indices, market summary, trending ----------------------------------------------------
def yahoo_region(region: str) -> str:
    """A validated Region as Yahoo spells it (``UK`` is ``GB``)."""
    return REGION_ALIASES.get(region, region)


def v2_indices(group: str | None) -> list[GqlQuote]:
    """The quotes of a group's indices (every group's when None), in the groups' order,
    from one quote batch; an index the batch does not return is left out (an upstream
    failure fails the route)."""
    symbols = index_group_symbols(group)
    found = quotes.v2_quotes(symbols)
    return [found[s] for s in symbols if s in found]


def v2_market_summary(region: str, lang: str | None, value_format: str
                      ) -> list[dict[str, Any]]:
    """A region's market summary in Yahoo's order (the members of
    :class:`~marketdata.records.market.MarketSummaryItem`), numbers in the client's
    ``format``."""
    return present_value(as_json(market.market_summary(yahoo_region(region), lang)),
                         value_format)


def v2_trending(region: str) -> list[TrendingSymbol]:
    """A region's trending symbols in Yahoo's order, with name, price and percent change
    (percent units) from one quote batch; null where the batch has no quote."""
    symbols = [s for s in map(normalize_symbol, market.trending(yahoo_region(region)))
               if s is not None]
    found = quotes.v2_quotes(symbols) if symbols else {}
    out = []
    for symbol in symbols:
        quote = found.get(symbol)
        out.append(TrendingSymbol(symbol, **{
            m.attribute: present_value(getattr(quote, m.attribute, None), "raw")
            for m in members_of(TrendingSymbol)[1:]}))
    return out
