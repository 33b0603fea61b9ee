"""Futures quotes: a contract's quote from the ``futures`` capability, as the spec's
GqlFuturesQuote."""

from __future__ import annotations

import re
from typing import Any

from apps.core.symbols import require_symbol
from marketdata.capabilities import futures
from marketdata.records.quotes import FuturesQuote

MEMBERS = ("symbol", "name", "exchange", "underlying", "expirationDate", "price", "change",
           "changePercent", "openInterest", "volume", "timestamp")
# A bare root: letters and digits only (GC, ES, 6E, RTY); anything else is sent as typed.
_ROOT = re.compile(r"[A-Z0-9]+")


def contract_symbol(text_: str) -> str:
    """The contract's symbol for a path value: a malformed symbol is a 404 (never sent
    upstream); a bare root (``GC``) means its continuous front-month contract (``GC=F``);
    anything else (``GC=F``, ``GCZ26.CMX``) is used as given, upper-cased."""
    symbol = require_symbol(text_)
    return f"{symbol}=F" if _ROOT.fullmatch(symbol) else symbol


def futures_body(record: FuturesQuote) -> dict[str, Any]:
    """GqlFuturesQuote of a contract's record."""
    return {
        "symbol": record.symbol, "name": record.name, "exchange": record.exchange,
        "underlying": record.underlying, "expirationDate": record.expiration_date,
        "price": record.price, "change": record.change,
        "changePercent": record.change_percent, "openInterest": record.open_interest,
        "volume": record.volume, "timestamp": record.timestamp,
    }


def futures_quote(text_: str) -> dict[str, Any]:
    """The Futures quote of a path value."""
    return futures_body(futures.contract_quote(contract_symbol(text_)))
