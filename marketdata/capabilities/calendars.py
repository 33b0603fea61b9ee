"""The market-wide calendars by date (``/v2/calendars/...``): earnings, splits, IPOs and
economic events of a window of days.

Sources: Yahoo's calendar service for each; for economic events, when it fails, the
release calendar ``/v2/calendar`` reads (FRED's with ``FRED_API_KEY``, else the schedule
the service computes: :mod:`marketdata.records.releases`). Callers pass a checked window
(ISO days, ``start <= end``, at most :data:`~marketdata.records.calendars.MAX_WINDOW_DAYS`
apart) and validated symbols (sorted, so equal filters share a cache entry).
"""

from __future__ import annotations

from marketdata.capabilities.table import YAHOO, Source, declare
from marketdata.records.calendars import EarningsRow, EconomicRow, IpoRow, SplitRow

YAHOO_CALENDARS = "marketdata.providers.yahoo.calendars"


@declare("earnings_calendar", "Earnings calendar (/v2/calendars/earnings)",
         Source("yahoo", f"{YAHOO} calendar service (sp_earnings)",
                fetcher=f"{YAHOO_CALENDARS}:earnings_calendar"))
def earnings_calendar(start: str, end: str, region: str,
                      symbols: tuple[str, ...]) -> list[EarningsRow]:
    """Earnings announcements from ``start`` to ``end`` (ISO days, inclusive) of companies
    listed in ``region``, of ``symbols`` only when given, by date."""


@declare("splits_calendar", "Splits calendar (/v2/calendars/splits)",
         Source("yahoo", f"{YAHOO} calendar service (splits)",
                fetcher=f"{YAHOO_CALENDARS}:splits_calendar"))
def splits_calendar(start: str, end: str, symbols: tuple[str, ...]) -> list[SplitRow]:
    """Stock splits going ex from ``start`` to ``end`` (inclusive), by date."""


@declare("ipo_calendar", "IPO calendar (/v2/calendars/ipos)",
         Source("yahoo", f"{YAHOO} calendar service (ipo_info)",
                fetcher=f"{YAHOO_CALENDARS}:ipo_calendar"))
def ipo_calendar(start: str, end: str, symbols: tuple[str, ...]) -> list[IpoRow]:
    """Initial public offerings dated from ``start`` to ``end`` (inclusive), by date."""


@declare("economic_calendar", "Economic calendar (/v2/calendars/economic)",
         Source("yahoo", f"{YAHOO} calendar service (economic_event)",
                fetcher=f"{YAHOO_CALENDARS}:economic_calendar"),
         Source("fred_api", "FRED's release calendar (the FRED API; major US releases, "
                "days only)", "FRED_API_KEY",
                fetcher="marketdata.providers.fred:economic_events"),
         Source("release_rules", "the schedule the service computes (weekly claims, the "
                "Employment Situation, FOMC statements)",
                fetcher="marketdata.records.calendars:scheduled_economic_events"),
         primary_share=0.6)
def economic_calendar(start: str, end: str) -> list[EconomicRow]:
    """Economic releases and events from ``start`` to ``end`` (inclusive), every country,
    by date and time."""
