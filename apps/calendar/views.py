"""GET /v2/calendar: upcoming earnings, dividend dates and options expirations of many
symbols, and the economic releases of the window."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.response import Response

from apps.calendar import services
from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import (
    OrderedQuery,
    SymbolsParam,
    V2ApiView,
    order_note,
    order_param,
    range_param,
)
from marketdata.records.calendar import EVENT_BODIES, CalendarEvent


class CalendarQuery(OrderedQuery):
    order = order_param("asc", "events (by `timestamp`, then `symbol`; `desc` is the `asc` "
                               "list reversed)")
    symbols = SymbolsParam(
        help_text=f"Comma-separated symbols (at most {settings.QUOTES_MAX_SYMBOLS})")
    range = range_param("1mo", "Forward window from now: 1d=1 day, 5d=5, 1mo=30, 3mo=90, "
                               "6mo=180, 1y and ytd=365, 2y=730, 5y=1825, 10y=3650, "
                               "max=36500 days")


def _event_schema() -> dict[str, Any]:
    """An event's object: its ``event`` member holds one kind's record, by kind."""
    out = record_schema(CalendarEvent, required=False)
    out["properties"]["event"]["properties"] = {
        kind: record_schema(body) for kind, body in EVENT_BODIES.items()}
    return out


CALENDAR_RESPONSE = {"type": "array", "items": _event_schema(),
                     "description": "Events sorted by timestamp, then symbol (market-wide "
                                    "events first): `order=asc`, the default; `order=desc` "
                                    "gives that list reversed"}


@route("v2/calendar", name="v2-calendar")
class V2CalendarView(V2ApiView):
    __doc__ = """Upcoming events of the symbols inside the forward window `[now, now + range]`
    (1d=1 day, 5d=5, 1mo=30, 3mo=90, 6mo=180, 1y and ytd=365, 2y=730, 5y=1825, 10y=3650,
    max=36500 days), as one array sorted by `timestamp`, then `symbol` (market-wide events
    first). Sources: Yahoo's quoteSummary `calendarEvents` module of each symbol; the US
    market calendar; FRED's release calendar (with `FRED_API_KEY`).

    Event kinds (the single key of `event`):
    - `EARNINGS`: the next earnings date with the analysts' EPS estimates (average, high,
      low) and average revenue estimate. When Yahoo gives a window of two dates the first
      is used and `isEstimate` is true; a single date is an estimate when Yahoo flags it
      so.
    - `EX_DIVIDEND`: the ex-dividend date; `amount` is null (not in this source).
    - `DIVIDEND`: the dividend payment date; `amount` is null.
    - `OPTIONS_EXPIRATION`: the standard monthly options expiration of each served
      US-listed symbol (plain tickers, share classes such as `BRK-B`, `^` indices; not
      suffixed foreign listings, currencies, futures or crypto pairs): the third Friday of
      the month, or the business day before when that Friday is an exchange holiday (Good
      Friday 2025-04-18: Thursday 2025-04-17), up to 24 months ahead; `contractCount` is
      null (the chains are not loaded).
    - `ECONOMIC_RELEASE` (`symbol` null, once per request whatever the symbols): a major US
      economic release, `name` and `seriesId` (FRED's release id as a string): retail
      sales (9), CPI (10), industrial production (13), PPI (46), the Employment Situation
      (50), GDP (53), personal income and outlays (54), FOMC statements (101), weekly
      jobless claims (180), JOLTS (192). With `FRED_API_KEY` from FRED's release calendar
      (a release FRED lists on three or more consecutive days is its "no data" fill and
      left out); without it (or when FRED fails) from the schedule the service computes:
      weekly claims, the Employment Situation and the FOMC statements only. When neither
      answers, the calendar is given without them (and not cached).

    Dividend dates, options expirations and economic releases are whole UTC days
    (timestamp at 00:00 UTC) and are listed until their day ends; earnings are listed
    while their time is in the window. A symbol that cannot
    be served (malformed, unknown, upstream error) is left out; when no symbol could be
    served because of an upstream failure, that failure's status (502/503/504/429) is
    returned rather than an empty array. `fields` selects members of each event. Not
    paged; 400 for a bad `order` before any upstream call.

    """ + order_note("asc", "events (`desc` is the `asc` list reversed: the latest first, "
                            "market-wide events last among those of one time)")

    query_serializer = CalendarQuery
    response_schema = CALENDAR_RESPONSE
    operation_id, tag = "get_calendar", "Calendar (v2)"
    summary = "Earnings, dividend, options-expiration and economic-release calendar"

    csv_table = ""
    output = record_output(CalendarEvent, ordered=("",))

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(services.calendar(q["symbols"], q["range"], services.utc_now()))
