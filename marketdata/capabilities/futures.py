"""Futures contracts: one contract's quote.

Sources: the ``futures`` row of :mod:`marketdata.capabilities.table` (Yahoo's quote).
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.records.quotes import FuturesQuote


def contract_quote(symbol: str) -> FuturesQuote:
    """The quote of a contract by its validated symbol (a continuous ``GC=F`` or a dated
    ``GCZ26.CMX``); NotFound when it is unknown or no futures contract."""
    record: FuturesQuote = call("futures", symbol)
    return record
