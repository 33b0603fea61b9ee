"""Option chains: one expiry of an underlying's listed options.

Sources: Yahoo's v7 options.
"""

from __future__ import annotations

from marketdata.capabilities.table import YAHOO, Source, declare
from marketdata.records.options import OptionChain


@declare("options", "Option chains (/v2/options/{symbol}, /v2/options)",
         Source("yahoo", f"{YAHOO} v7 options",
                fetcher="marketdata.providers.yahoo.options:option_chain"))
def chain(symbol: str, expiration: int | None = None) -> OptionChain:
    """One expiry (Unix seconds; None: the nearest) of a validated symbol's chain; an
    expiry that is not listed gives empty sides. NotFound for an unknown symbol."""
