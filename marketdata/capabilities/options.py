"""Option chains: one expiry of an underlying's listed options.

Sources: the ``options`` row of :mod:`marketdata.capabilities.table` (Yahoo's v7 options).
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.records.options import OptionChain


def chain(symbol: str, expiration: int | None = None) -> OptionChain:
    """One expiry (Unix seconds; None: the nearest) of a validated symbol's chain; an
    expiry that is not listed gives empty sides. NotFound for an unknown symbol."""
    found: OptionChain = call("options", symbol, expiration)
    return found
