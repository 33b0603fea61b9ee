"""Forex quotes: a pair's quote from the ``forex`` capability (Yahoo's live quote first,
the ECB reference rate after; see :mod:`marketdata.capabilities.forex` for the order), as
the spec's GqlForexQuote (the members are the record's:
:class:`~marketdata.records.quotes.ForexQuote`)."""

from __future__ import annotations

import time

from marketdata.capabilities import forex, market
from marketdata.records.market import CurrencyInfo
from marketdata.records.quotes import ForexQuote


def utc_now() -> int:
    """Unix seconds now (a function, so tests can freeze it)."""
    return int(time.time())


def identity_quote(currency: str) -> ForexQuote:
    """A currency against itself: 1.0 with no spread and no change, as of now."""
    return ForexQuote(currency, currency, price=1.0, bid=1.0, ask=1.0, change=0.0,
                      change_percent=0.0, timestamp=utc_now())


def forex_quote(base: str, quote: str) -> ForexQuote:
    """The Forex quote of validated, upper-cased codes; a currency against itself makes no
    upstream call."""
    if base == quote:
        return identity_quote(base)
    return forex.pair_quote(base, quote)


def currencies() -> list[CurrencyInfo]:
    """The currencies in the source's order."""
    return market.currencies()
