"""Futures quotes: a contract's quote from the ``futures`` capability, as the spec's
GqlFuturesQuote (the members are the record's:
:class:`~marketdata.records.quotes.FuturesQuote`)."""

from __future__ import annotations

import re

from apps.core.symbols import require_symbol
from marketdata.capabilities import futures
from marketdata.records.quotes import FuturesQuote

# A bare root: letters and digits only (GC, ES, 6E, RTY); anything else is sent as typed.
_ROOT = re.compile(r"[A-Z0-9]+")


def contract_symbol(text_: str) -> str:
    """The contract's symbol for a path value: a malformed symbol is a 404 (never sent
    upstream); a bare root (``GC``) means its continuous front-month contract (``GC=F``);
    anything else (``GC=F``, ``GCZ26.CMX``) is used as given, upper-cased."""
    symbol = require_symbol(text_)
    return f"{symbol}=F" if _ROOT.fullmatch(symbol) else symbol


def futures_quote(text_: str) -> FuturesQuote:
    """The Futures quote of a path value."""
    return futures.contract_quote(contract_symbol(text_))
