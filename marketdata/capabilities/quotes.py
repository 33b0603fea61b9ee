"""Quotes: v1 simple and full quotes, the v2 quote of one symbol or many, logos and the
quote type.

Sources: the ``quotes``, ``full_quote``, ``v2_quote``, ``v2_quotes``, ``logos``,
``quote_type`` and ``quote_push`` rows of :mod:`marketdata.capabilities.table`. Symbols
are validated (and normalised) by the caller; a batch asks for every symbol in one upstream
round trip.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from django.conf import settings

from marketdata.capabilities.table import CAPABILITIES, call
from marketdata.records.quotes import (
    FullQuote,
    GqlQuote,
    LogoUrls,
    QuoteSnapshot,
    QuoteTypeRecord,
)


def snapshots(symbols: list[str]) -> dict[str, QuoteSnapshot]:
    """The simple-quote snapshots of validated symbols, by symbol; unknown ones are absent."""
    found: dict[str, QuoteSnapshot] = call("quotes", symbols)
    return found


def full_quote(symbol: str) -> FullQuote:
    """The v1 full quote of a validated symbol; NotFound when the source has no such
    symbol."""
    record: FullQuote = call("full_quote", symbol)
    return record


def v2_quote(symbol: str, *, lang: str | None = None,
             region: str | None = None) -> GqlQuote:
    """Every GqlQuote member of a validated symbol, texts in ``lang``/``region`` when
    given; NotFound when the source has no such symbol."""
    record: GqlQuote = call("v2_quote", symbol, lang=lang, region=region)
    return record


def v2_quotes(symbols: list[str], *, lang: str | None = None,
              region: str | None = None) -> dict[str, GqlQuote]:
    """The batch GqlQuotes of validated symbols, by symbol; unknown ones are absent."""
    found: dict[str, GqlQuote] = call("v2_quotes", symbols, lang=lang, region=region)
    return found


def logos(symbols: list[str]) -> dict[str, LogoUrls]:
    """The logo images of validated symbols, by symbol; symbols without any are absent."""
    found: dict[str, LogoUrls] = call("logos", symbols)
    return found


def quote_type(symbol: str) -> QuoteTypeRecord:
    """The identity of a validated symbol (GqlQuoteTypeData); NotFound when unknown."""
    record: QuoteTypeRecord = call("quote_type", symbol)
    return record


class TickPush(Protocol):
    """A push source of live ticks: one upstream subscription, kept by whoever holds it."""

    def follow(self, symbols: Iterable[str]) -> None:
        """Subscribe to exactly these validated symbols (an empty set disconnects)."""

    def fresh(self, symbol: str, within: float) -> bool:
        """Connected, and ``symbol`` ticked in the last ``within`` seconds."""

    def close(self) -> None: ...

    def stats(self) -> dict[str, Any]: ...


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
