"""Screeners: the predefined lists (gainers, most shorted, top mutual funds...) and custom
screens.

Sources: the ``predefined_screener`` and ``custom_screener`` rows of
:mod:`marketdata.capabilities.table`. A custom screen arrives validated
(:class:`~marketdata.records.screeners.CustomScreen`): nothing here checks it again.
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.records.screeners import SCREENERS, CustomScreen, ScreenerResult


def predefined(screener: str, count: int) -> ScreenerResult:
    """At most ``count`` rows of a predefined screener (a name or alias of
    :data:`~marketdata.records.screeners.SCREENERS`), the source's ranking."""
    if screener not in SCREENERS:
        raise ValueError(f"unknown screener {screener!r}")  # a programming error
    found: ScreenerResult = call("predefined_screener", screener, count)
    return found


def custom(screen: CustomScreen) -> ScreenerResult:
    """The instruments matching a custom screen: one page (``size`` from ``offset``) in its
    sort order, and how many match in all."""
    found: ScreenerResult = call("custom_screener", screen)
    return found
