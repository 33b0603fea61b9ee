"""Disclosures: a security's fails-to-deliver balances and the trades members of Congress
disclosed in it.

Sources: FMP with its key, else the SEC's published files, for fails-to-deliver; FMP only
for congressional trades (without ``FMP_API_KEY`` a 501 naming the setting).
"""

from __future__ import annotations

from marketdata.capabilities.table import Source, declare, fmp_source
from marketdata.records.disclosures import CongressionalTrade, FailToDeliver


@declare("fails_to_deliver", "Fails-to-deliver (/v2/filings/{symbol}/fails-to-deliver)",
         fmp_source("fails_to_deliver"),
         Source("sec", "the SEC's half-monthly fails-to-deliver files",
                fetcher="marketdata.providers.sec_fails:fails_to_deliver"),
         primary_share=0.5)
def fails_to_deliver(symbol: str, months: int) -> list[FailToDeliver]:
    """A validated symbol's fails-to-deliver balances over the latest ``months`` months of
    published data, newest settlement day first (``[]`` when there are none)."""


@declare("congressional_trades",
         "Congressional trades (/v2/filings/{symbol}/congressional-trades)",
         fmp_source("congressional_trades"), keyed_only=True)
def congressional_trades(symbol: str) -> list[CongressionalTrade]:
    """The trades in a validated symbol disclosed by senators and representatives, newest
    transaction first; NotConfigured without a source's key."""
