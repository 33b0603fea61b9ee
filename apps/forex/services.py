"""Forex quotes: a pair's quote from the ``forex`` capability (Yahoo's live quote first,
the ECB reference rate after; see :mod:`marketdata.capabilities.forex` for the order), as
the spec's GqlForexQuote."""

from __future__ import annotations

import time
from typing import Any

from marketdata.capabilities import forex, market
from marketdata.records.quotes import ForexQuote

MEMBERS = ("symbol", "baseCurrency", "quoteCurrency", "price", "bid", "ask", "change",
           "changePercent", "timestamp")


def utc_now() -> int:
    """Unix seconds now (a function, so tests can freeze it)."""
    return int(time.time())


def _quote(base: str, quote: str, **values: Any) -> dict[str, Any]:
    return {"symbol": f"{base}{quote}", "baseCurrency": base, "quoteCurrency": quote,
            **{name: values.get(name) for name in MEMBERS[3:]}}


def identity_quote(currency: str) -> dict[str, Any]:
    """A currency against itself: 1.0 with no spread and no change, as of now."""
    return _quote(currency, currency, price=1.0, bid=1.0, ask=1.0, change=0.0,
                  changePercent=0.0, timestamp=utc_now())


def forex_body(record: ForexQuote) -> dict[str, Any]:
    """GqlForexQuote of a pair's record."""
    return _quote(record.base, record.quote, price=record.price, bid=record.bid,
                  ask=record.ask, change=record.change, changePercent=record.change_percent,
                  timestamp=record.timestamp)


def forex_quote(base: str, quote: str) -> dict[str, Any]:
    """The Forex quote of validated, upper-cased codes; a currency against itself makes no
    upstream call."""
    if base == quote:
        return identity_quote(base)
    return forex_body(forex.pair_quote(base, quote))


def currencies() -> list[dict[str, Any]]:
    """``[{symbol, shortName, longName, localLongName}]`` in the source's order."""
    return [{"symbol": c.symbol, "shortName": c.short_name, "longName": c.long_name,
             "localLongName": c.local_long_name} for c in market.currencies()]
