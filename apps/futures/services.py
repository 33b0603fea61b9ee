"""Futures quotes from Yahoo's v7 quote of a ``GC=F``-style symbol.

Why an own v7 call: the shared v7 parsers (:mod:`marketdata.providers.yahoo.quote`) keep
the GqlQuote members only, and a contract's expiration (``expireDate``/``expireIsoDate``) and
open interest (``openInterest``) are not among them; v7 sends both for every FUTURE, so one
call (cached like every v7 quote) has everything and no quoteSummary call is needed. The
common members are read by the shared v7 parser (:func:`parse_gql_quote_v7`).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from apps.core.symbols import require_symbol
from marketdata.errors import NotFound
from marketdata.formatting import integer, number, text
from marketdata.providers import sources, yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_provider
from marketdata.providers.yahoo.quote import parse_gql_quote_v7, v7_results

MEMBERS = ("symbol", "name", "exchange", "underlying", "expirationDate", "price", "change",
           "changePercent", "openInterest", "volume", "timestamp")
# A bare root: letters and digits only (GC, ES, 6E, RTY); anything else is sent as typed.
_ROOT = re.compile(r"[A-Z0-9]+")


def contract_symbol(text_: str) -> str:
    """Yahoo's symbol for a path value: a malformed symbol is a 404 (never sent upstream);
    a bare root (``GC``) means its continuous front-month contract (``GC=F``); anything
    else (``GC=F``, ``GCZ26.CMX``) is used as given, upper-cased."""
    symbol = require_symbol(text_)
    return f"{symbol}=F" if _ROOT.fullmatch(symbol) else symbol


def expiration_date(item: dict[str, Any]) -> str | None:
    """``YYYY-MM-DD`` from ``expireIsoDate`` (``2025-04-28T00:00:00Z``), else from the
    ``expireDate`` epoch (UTC)."""
    iso = text(item.get("expireIsoDate"))
    if iso and re.match(r"\d{4}-\d{2}-\d{2}", iso):
        return iso[:10]
    seconds = integer(item.get("expireDate"))
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, UTC).date().isoformat()


def parse_contract(item: dict[str, Any]) -> dict[str, Any]:
    """One v7 result -> Futures quote; NotFound when Yahoo's quoteType is not FUTURE."""
    record = parse_gql_quote_v7(item)
    values = record.values
    if text(values.get("quoteType")) != "FUTURE":
        raise NotFound(f"{record.symbol} is not a futures contract")
    return {
        "symbol": record.symbol,
        "name": text(values.get("longName")) or text(values.get("shortName")),
        "exchange": text(values.get("exchange")),
        "underlying": text(values.get("underlyingSymbol")),
        "expirationDate": expiration_date(item),
        "price": number(values.get("regularMarketPrice")),
        "change": number(values.get("regularMarketChange")),
        "changePercent": number(values.get("regularMarketChangePercent")),
        "openInterest": integer(item.get("openInterest")),
        "volume": integer(values.get("regularMarketVolume")),
        "timestamp": integer(values.get("regularMarketTime")),
    }


def parse_contract_answer(payload: Any, symbol: str) -> dict[str, Any]:
    """v7 body asked for one symbol -> its Futures quote; NotFound when Yahoo left it out."""
    for item in v7_results(payload):
        if str(item["symbol"]).upper() == symbol:
            return parse_contract(item)
    raise NotFound(f"Futures contract not found: {symbol}")


def _fetch_contract(symbol: str) -> dict[str, Any]:
    payload = get_json("quote", f"{yahoo.QUERY1}/v7/finance/quote",
                       {"symbols": symbol, "formatted": "false"})
    return parse_contract_answer(payload, symbol)


def futures_quote(text_: str) -> dict[str, Any]:
    """The Futures quote of a path value (capability ``futures``: Yahoo only)."""
    symbol = contract_symbol(text_)
    return sources.serve("futures", {"yahoo": lambda: yahoo_provider().cached(
        "futures_quote", {"symbol": symbol}, lambda: _fetch_contract(symbol), "quote",
        group="quotes")})
