"""Screeners: the predefined lists (gainers, most shorted, top mutual funds...) and custom
screens.

Sources: Yahoo Finance's screeners. A custom screen arrives validated
(:class:`~marketdata.records.screeners.CustomScreen`): nothing here checks it again.
"""

from __future__ import annotations

from marketdata.capabilities.table import YAHOO, Source, declare
from marketdata.records.screeners import SCREENERS, CustomScreen, ScreenerResult

SCREENER = "marketdata.providers.yahoo.screener"


@declare("predefined_screener", "Predefined screeners (/v2/screeners/{screener})",
         Source("yahoo", f"{YAHOO} predefined screeners", fetcher=f"{SCREENER}:fetch_predefined"))
def _predefined(screener: str, count: int) -> ScreenerResult:
    """The rows of a known screener (:func:`predefined`)."""


def predefined(screener: str, count: int) -> ScreenerResult:
    """At most ``count`` rows of a predefined screener (a name or alias of
    :data:`~marketdata.records.screeners.SCREENERS`), the source's ranking."""
    if screener not in SCREENERS:
        raise ValueError(f"unknown screener {screener!r}")  # a programming error
    return _predefined(screener, count)


@declare("custom_screener", "Custom screens (POST /v2/screeners/custom)",
         Source("yahoo", f"{YAHOO} screener query", fetcher=f"{SCREENER}:fetch_custom"))
def custom(screen: CustomScreen) -> ScreenerResult:
    """The instruments matching a custom screen: one page (``size`` from ``offset``) in its
    sort order, and how many match in all."""
