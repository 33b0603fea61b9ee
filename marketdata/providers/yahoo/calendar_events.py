"""quoteSummary ``calendarEvents``: a company's next earnings date and dividend dates.

Yahoo's module (``formatted=false``; ``{raw, fmt}`` values are read too)::

    {"maxAge": 1,
     "earnings": {"earningsDate": [1746010740, 1746446400], "earningsCallDate": [...],
                  "isEarningsDateEstimate": true, "earningsAverage": 1.61696,
                  "earningsLow": 1.5, "earningsHigh": 1.67, "revenueAverage": 94076168920,
                  "revenueLow": ..., "revenueHigh": ...},
     "exDividendDate": 1739145600, "dividendDate": 1739404800}

``earningsDate`` holds one epoch (the announced date) or two (a window Yahoo expects the
date in, i.e. an estimate). Dividend dates are epochs at 00:00 UTC of the day.

:func:`fetch_calendar_events` is the capability table's ``calendar_events`` fetcher.
"""

from __future__ import annotations

from typing import Any

from marketdata.formatting import integer, mapping, number, raw
from marketdata.providers.yahoo.quote_summary import fetch_module
from marketdata.records.fundamentals import CalendarEvents, EarningsDate

MODULE = "calendarEvents"
# Earnings dates and dividend dates move rarely: an hour, whatever the market does.
POLICY = "analysis"
GROUP = "calendar"


def _epoch(value: Any) -> int | None:
    value = raw(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def _epochs(value: Any) -> list[int]:
    items = value if isinstance(value, list) else []
    return [e for e in (_epoch(item) for item in items) if e is not None]


def parse_earnings(earnings: Any) -> EarningsDate | None:
    """The earnings block, or None when it has no date. Two dates are a window: the first
    is used and the date is an estimate whatever ``isEarningsDateEstimate`` says; one date
    is an estimate when ``isEarningsDateEstimate`` is true (false when absent)."""
    body = mapping(earnings)
    dates = _epochs(body.get("earningsDate"))
    if not dates:
        return None
    flag = raw(body.get("isEarningsDateEstimate"))
    return EarningsDate(
        timestamp=dates[0], is_estimate=len(dates) > 1 or flag is True,
        eps_average=number(body.get("earningsAverage")),
        eps_low=number(body.get("earningsLow")),
        eps_high=number(body.get("earningsHigh")),
        revenue_average=integer(body.get("revenueAverage")))


def parse_calendar_events(module: Any) -> CalendarEvents:
    """The calendarEvents module body (as :func:`fetch_module` returns it)."""
    body = mapping(module)
    return CalendarEvents(earnings=parse_earnings(body.get("earnings")),
                          ex_dividend_date=_epoch(body.get("exDividendDate")),
                          dividend_date=_epoch(body.get("dividendDate")))


def fetch_calendar_events(symbol: str) -> CalendarEvents:
    """Calendar events of a validated symbol, through the cache; NotFound when Yahoo does
    not know the symbol, upstream errors as raised by the client."""
    return parse_calendar_events(fetch_module(symbol, MODULE, policy=POLICY, group=GROUP))
