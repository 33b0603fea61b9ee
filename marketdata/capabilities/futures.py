"""Futures contracts: one contract's quote.

Sources: Yahoo's quote.
"""

from __future__ import annotations

from marketdata.capabilities.table import YAHOO, Source, declare
from marketdata.records.quotes import FuturesQuote


@declare("futures", "Futures (/v2/futures/{symbol})",
         Source("yahoo", YAHOO, fetcher="marketdata.providers.yahoo.quote:futures_quote"))
def contract_quote(symbol: str) -> FuturesQuote:
    """The quote of a contract by its validated symbol (a continuous ``GC=F`` or a dated
    ``GCZ26.CMX``); NotFound when it is unknown or no futures contract."""
