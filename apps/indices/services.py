"""Market indices (v1: one quoteSummary call per index, fanned out, formatted like
quotes; v2: one quote batch), a region's market summary and its trending symbols."""

from __future__ import annotations

from dataclasses import dataclass
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
from marketdata.records.members import DOUBLE, as_json, member, members_of
from marketdata.records.quotes import GqlQuote, present_value
from marketdata.symbols import normalize_symbol


def has_level(snap: IndexSnapshot) -> bool:
    """Did Yahoo give the index's level and move (an index without them is left out)?"""
    return not (snap.price is None or snap.change is None or snap.change_fraction is None)


_RETURN = "Signed percent return"


@dataclass(frozen=True, slots=True)
class MarketIndex:
    """The v1 MarketIndex: an index's level, and its moves as v1's signed text (:meth:`of`);
    a period return is left out when Yahoo has none."""

    name: str = member()
    value: float = member("Index level, rounded to 2 decimals", schema=DOUBLE)
    change: str = member("Signed change in points, e.g. '+12.34'")
    percent_change: str = member("Signed percent change, e.g. '-0.52%'")
    five_days_return: str | None = member(_RETURN, optional=True, default=None)
    one_month_return: str | None = member(_RETURN, optional=True, default=None)
    three_month_return: str | None = member(_RETURN, optional=True, default=None)
    six_month_return: str | None = member(_RETURN, optional=True, default=None)
    ytd_return: str | None = member(_RETURN, optional=True, default=None)
    year_return: str | None = member(_RETURN, optional=True, default=None)
    three_year_return: str | None = member(_RETURN, optional=True, default=None)
    five_year_return: str | None = member(_RETURN, optional=True, default=None)
    ten_year_return: str | None = member(_RETURN, optional=True, default=None)
    max_return: str | None = member(_RETURN, optional=True, default=None)

    @classmethod
    def of(cls, info: MarketIndexInfo, snap: IndexSnapshot) -> MarketIndex | None:
        """The index's MarketIndex, or None when Yahoo gave no level or move for it.

        ``change`` uses the index's precision with thousands separators and a sign, as full
        quotes do; ``percentChange`` and the period returns are signed percents ('+0.69%';
        the snapshot's numbers are finite: never an empty text)."""
        if not has_level(snap) or snap.price is None:
            return None
        return cls(info.name or snap.long_name or snap.short_name or info.id,
                   fmt.round_half_up(snap.price, 2),
                   fmt.signed(fmt.price(snap.change, snap.price_hint)) or "",
                   fmt.percent(snap.change_fraction, fraction=True) or "",
                   **{_RETURNS[name]: fmt.percent(value, fraction=True)
                      for name, value in snap.returns.items()})


# A period return's attribute by its member name (the snapshot's returns are keyed by it).
_RETURNS = {m.name: m.attribute for m in members_of(MarketIndex) if m.optional}


def market_indices(ids: list[str] | None = None, region: str | None = None
                   ) -> list[MarketIndex]:
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
            if (item := MarketIndex.of(info, snap)) is not None]


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
