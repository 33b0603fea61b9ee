"""Quotes: v1 simple and full quotes, the v2 quote of one symbol or many, logos and the
quote type; pushed ticks.

Sources: Yahoo Finance's v7 quote, quoteSummary and price streamer. Symbols are validated
(and normalised) by the caller; a batch asks for every symbol in one upstream round trip.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from django.conf import settings

from marketdata.capabilities.table import (
    CAPABILITIES,
    YAHOO,
    Capability,
    Source,
    declare,
    register,
)
from marketdata.records.quotes import (
    FullQuote,
    GqlQuote,
    LogoUrls,
    QuoteSnapshot,
    QuoteTypeRecord,
)

QUOTE = "marketdata.providers.yahoo.quote"
FULL_QUOTE = "marketdata.providers.yahoo.full_quote"


@declare("quotes", "Simple quotes (/v1/simple-quotes, /v1/similar, /v1/stream/quotes)",
         Source("yahoo", f"{YAHOO} v7 quote", fetcher=f"{QUOTE}:fetch_quotes"))
def snapshots(symbols: list[str]) -> dict[str, QuoteSnapshot]:
    """The simple-quote snapshots of validated symbols, by symbol; unknown ones are absent."""


@declare("full_quote", "Full quotes (/v1/quotes)",
         Source("yahoo", f"{YAHOO} quoteSummary", fetcher=f"{FULL_QUOTE}:fetch_full_quote"))
def full_quote(symbol: str) -> FullQuote:
    """The v1 full quote of a validated symbol; NotFound when the source has no such
    symbol."""


@declare("v2_quote", "Quote of one symbol (/v2/quote/{symbol})",
         Source("yahoo", f"{YAHOO} quoteSummary", fetcher=f"{FULL_QUOTE}:fetch_gql_quote"))
def v2_quote(symbol: str, *, lang: str | None = None,
             region: str | None = None) -> GqlQuote:
    """Every GqlQuote member of a validated symbol, texts in ``lang``/``region`` when
    given; NotFound when the source has no such symbol."""


@declare("v2_quotes", "Quotes of many symbols (/v2/quotes)",
         Source("yahoo", f"{YAHOO} v7 quote", fetcher=f"{QUOTE}:fetch_gql_quotes"))
def v2_quotes(symbols: list[str], *, lang: str | None = None,
              region: str | None = None) -> dict[str, GqlQuote]:
    """The batch GqlQuotes of validated symbols, by symbol; unknown ones are absent."""


@declare("logos", "Logos (/v2/quote/{symbol} and /v2/quotes with logo=true)",
         Source("yahoo", f"{YAHOO} v7 quote logo images", fetcher=f"{QUOTE}:fetch_logos"))
def logos(symbols: list[str]) -> dict[str, LogoUrls]:
    """The logo images of validated symbols, by symbol; symbols without any are absent."""


@declare("quote_type", "Quote type (/v2/quote-type/{symbol})",
         Source("yahoo", f"{YAHOO} quoteSummary quoteType",
                fetcher=f"{FULL_QUOTE}:fetch_quote_type"))
def quote_type(symbol: str) -> QuoteTypeRecord:
    """The identity of a validated symbol (GqlQuoteTypeData); NotFound when unknown."""


class TickPush(Protocol):
    """A push source of live ticks: one upstream subscription, kept by whoever holds it."""

    def follow(self, symbols: Iterable[str]) -> None:
        """Subscribe to exactly these validated symbols (an empty set disconnects)."""

    def fresh(self, symbol: str, within: float) -> bool:
        """Connected, and ``symbol`` ticked in the last ``within`` seconds."""

    def close(self) -> None: ...

    def stats(self) -> dict[str, Any]: ...


# Read by tick_push, not through call: one push source per caller, kept open.
register(Capability("quote_push", "Ticks pushed to the WebSocket stream (/v2/stream; the "
                    "stream polls simple quotes for the symbols without pushed ticks)", (
    Source("yahoo", f"{YAHOO} price streamer (one connection per process)",
           fetcher="marketdata.providers.yahoo.streamer:open_pricing_stream"),)))


def tick_push(on_tick: Callable[[dict[str, Any]], None]) -> TickPush | None:
    """A new push source calling ``on_tick`` (in the running event loop) with each tick's
    members (those the upstream sent: tick member names, raw values), or None when pushed
    ticks are switched off (``STREAM_PUSH``). Nothing connects before ``follow``."""
    if not settings.STREAM_PUSH:
        return None
    sources = CAPABILITIES["quote_push"].active_sources()
    if not sources:
        return None
    push: TickPush = sources[0].fetch_function()(on_tick)
    return push
