"""Quotes: v1 simple and full quotes, the v2 quote of one symbol or many, logos and the
quote type.

Sources: the ``quotes``, ``full_quote``, ``v2_quote``, ``v2_quotes``, ``logos`` and
``quote_type`` rows of :mod:`marketdata.capabilities.table`. Symbols are validated (and
normalised) by the caller; a batch asks for every symbol in one upstream round trip.
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.records.quotes import (
    FullQuote,
    GqlQuoteRecord,
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
             region: str | None = None) -> GqlQuoteRecord:
    """Every GqlQuote member of a validated symbol, texts in ``lang``/``region`` when
    given; NotFound when the source has no such symbol."""
    record: GqlQuoteRecord = call("v2_quote", symbol, lang=lang, region=region)
    return record


def v2_quotes(symbols: list[str], *, lang: str | None = None,
              region: str | None = None) -> dict[str, GqlQuoteRecord]:
    """The batch GqlQuotes of validated symbols, by symbol; unknown ones are absent."""
    found: dict[str, GqlQuoteRecord] = call("v2_quotes", symbols, lang=lang, region=region)
    return found


def logos(symbols: list[str]) -> dict[str, LogoUrls]:
    """The logo images of validated symbols, by symbol; symbols without any are absent."""
    found: dict[str, LogoUrls] = call("logos", symbols)
    return found


def quote_type(symbol: str) -> QuoteTypeRecord:
    """The identity of a validated symbol (GqlQuoteTypeData); NotFound when unknown."""
    record: QuoteTypeRecord = call("quote_type", symbol)
    return record
