"""Market indices: one quoteSummary call per index, fanned out; formatted like quotes."""

from __future__ import annotations

from typing import Any

from marketdata import formatting as fmt
from marketdata.capabilities import market
from marketdata.concurrency import gather_partial
from marketdata.errors import UpstreamBadResponse
from marketdata.records.market import IndexSnapshot, MarketIndexInfo, select_indices
from marketdata.records.quotes import RETURN_NAMES


def has_level(snap: IndexSnapshot) -> bool:
    """Did Yahoo give the index's level and move (an index without them is left out)?"""
    return not (snap.price is None or snap.change is None or snap.change_fraction is None)


def market_index(info: MarketIndexInfo, snap: IndexSnapshot) -> dict[str, Any] | None:
    """The v1 MarketIndex, or None when Yahoo gave no level or move for the index.

    ``change`` uses the index's precision with thousands separators and a sign, as full
    quotes do; ``percentChange`` and the period returns are signed percents ('+0.69%').
    """
    if not has_level(snap):
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
