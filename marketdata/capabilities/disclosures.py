"""Disclosures: a security's fails-to-deliver balances and the trades members of Congress
disclosed in it.

Sources: the ``fails_to_deliver`` row of :mod:`marketdata.capabilities.table` (FMP with its
key, else the SEC's published files) and the ``congressional_trades`` row (FMP only: without
``FMP_API_KEY`` a 501 naming the setting).
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.records.disclosures import CongressionalTrade, FailToDeliver


def fails_to_deliver(symbol: str, months: int) -> list[FailToDeliver]:
    """A validated symbol's fails-to-deliver balances over the latest ``months`` months of
    published data, newest settlement day first (``[]`` when there are none)."""
    found: list[FailToDeliver] = call("fails_to_deliver", symbol, months)
    return found


def congressional_trades(symbol: str) -> list[CongressionalTrade]:
    """The trades in a validated symbol disclosed by senators and representatives, newest
    transaction first; NotConfigured without a source's key."""
    found: list[CongressionalTrade] = call("congressional_trades", symbol)
    return found
