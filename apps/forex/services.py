"""Forex quotes: Yahoo's live quote of the pair first, the ECB reference rate after.

Sources (``marketdata.providers.sources``, capability ``forex``):

1. ``yahoo``: the v7 quote of ``{FROM}{TO}=X`` through the v2 batch quote fetch and its
   cache (:func:`marketdata.providers.yahoo.quote.fetch_gql_quotes`), so a pair asked here
   and in ``/v2/quotes`` is one cache entry. Live price, bid and ask.
2. ``frankfurter``: the last ECB fix and the one before it
   (:func:`marketdata.providers.frankfurter.fetch_reference_rate`).

``sources.serve`` moves on when Yahoo *fails*; a pair Yahoo does not list (it lacks some
crosses) ends its search with NotFound, so this module asks the ECB then. When the ECB has no
rate either, the answer is a 404, unless Yahoo had failed: then nobody said the pair does not
exist, and Yahoo's failure (502/503/504/429) is the answer.
"""

from __future__ import annotations

import time
from typing import Any

from marketdata.errors import NotFound, UpstreamError
from marketdata.formatting import integer, number, text
from marketdata.providers import sources
from marketdata.providers.frankfurter import ReferenceRate, fetch_reference_rate
from marketdata.providers.yahoo.quote import fetch_gql_quotes

MEMBERS = ("symbol", "baseCurrency", "quoteCurrency", "price", "bid", "ask", "change",
           "changePercent", "timestamp")


def utc_now() -> int:
    """Unix seconds now (a function, so tests can freeze it)."""
    return int(time.time())


def yahoo_symbol(base: str, quote: str) -> str:
    return f"{base}{quote}=X"


def _quote(base: str, quote: str, **values: Any) -> dict[str, Any]:
    return {"symbol": f"{base}{quote}", "baseCurrency": base, "quoteCurrency": quote,
            **{name: values.get(name) for name in MEMBERS[3:]}}


def identity_quote(currency: str) -> dict[str, Any]:
    """A currency against itself: 1.0 with no spread and no change, as of now."""
    return _quote(currency, currency, price=1.0, bid=1.0, ask=1.0, change=0.0,
                  changePercent=0.0, timestamp=utc_now())


def _side(value: Any) -> float | None:
    """A bid or ask: Yahoo sends 0 when it has no book, which is no price."""
    value = number(value)
    return value if value else None


def yahoo_quote(base: str, quote: str) -> dict[str, Any]:
    """The pair from Yahoo's quote. NotFound when Yahoo does not list it (or lists it
    without a price, or as something other than a currency)."""
    symbol = yahoo_symbol(base, quote)
    record = fetch_gql_quotes([symbol]).get(symbol)
    values = record.values if record is not None else {}
    price = number(values.get("regularMarketPrice"))
    kind = text(values.get("quoteType"))
    if price is None or (kind is not None and kind != "CURRENCY"):
        raise NotFound(f"No quote for {base}/{quote}")
    return _quote(base, quote, price=price, bid=_side(values.get("bid")),
                  ask=_side(values.get("ask")),
                  change=number(values.get("regularMarketChange")),
                  changePercent=number(values.get("regularMarketChangePercent")),
                  timestamp=integer(values.get("regularMarketTime")))


def reference_quote(base: str, quote: str) -> dict[str, Any]:
    """The pair from the ECB's last fix: no bid or ask (a reference rate is no market)."""
    rate: ReferenceRate = fetch_reference_rate(base, quote)
    return _quote(base, quote, price=rate.rate, bid=None, ask=None, change=rate.change,
                  changePercent=rate.change_percent, timestamp=rate.timestamp)


def forex_quote(base: str, quote: str) -> dict[str, Any]:
    """The Forex quote of validated, upper-cased codes (see the module doc for the order)."""
    if base == quote:
        return identity_quote(base)
    yahoo_failure: UpstreamError | None = None

    def from_yahoo() -> dict[str, Any]:
        nonlocal yahoo_failure
        try:
            return yahoo_quote(base, quote)
        except UpstreamError as exc:
            yahoo_failure = exc
            raise

    try:
        return sources.serve("forex", {"yahoo": from_yahoo,
                                       "frankfurter": lambda: reference_quote(base, quote)})
    except NotFound:
        if yahoo_failure is not None:  # the ECB has no rate, and Yahoo never answered
            raise yahoo_failure from None
    try:  # Yahoo does not list the pair: the ECB may
        return reference_quote(base, quote)
    except NotFound:
        raise NotFound(f"No quote for {base}/{quote}") from None
