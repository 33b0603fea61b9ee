"""GET /v2/calendar: upcoming earnings, dividend dates and options expirations of many
symbols, and the economic releases of the window; GET /v2/calendars/{earnings,dividends,
splits,ipos,economic}: the market-wide calendars by date."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.response import Response

from apps.calendar import dated, services
from apps.calendar.serializers import (
    DividendsCalendarQuery,
    EarningsCalendarQuery,
    EconomicCalendarQuery,
    IposCalendarQuery,
    SplitsCalendarQuery,
)
from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import (
    OrderedQuery,
    SymbolsParam,
    V2ApiView,
    connection_schema,
    order_note,
    order_param,
    range_param,
)
from marketdata.records.calendar import EVENT_BODIES, CalendarEvent
from marketdata.records.calendars import (
    DEFAULT_WINDOW_DAYS,
    MAX_WINDOW_DAYS,
    DividendRow,
    EarningsRow,
    EconomicRow,
    IpoRow,
    SplitRow,
)


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


# ---- the market-wide calendars by date ---------------------------------------------------------
CALENDARS_TAG = "Calendars (v2)"
_WINDOW = (f"The window is the days `start` to `end`, both inclusive (ISO dates; default today "
           f"(UTC) and {DEFAULT_WINDOW_DAYS} days after `start`); `end` before `start`, or "
           f"more than {MAX_WINDOW_DAYS} days after it, is a 400 naming `end`, before any "
           "upstream call.")
_PAGING = ("`cursor`/`limit` page the rows (a bare array without either); `fields` selects "
           "members of each row; `format=csv` (or `Accept: text/csv`) gives the rows as CSV.")
_YAHOO_PAGES = ("Yahoo's calendar service (`v1/finance/visualization`, keyless with the "
                "service's Yahoo session), read 100 rows a query, at most 1,000 rows a "
                "window (a busier window is cut at its first 1,000 rows by date; ask for "
                "fewer days or for `symbols`); cached an hour.")


def _rows_schema(record: type, what: str) -> dict[str, Any]:
    return connection_schema(record_schema(record), what)


@route("v2/calendars/earnings", name="v2-calendars-earnings")
class V2EarningsCalendarView(V2ApiView):
    __doc__ = f"""Earnings announcements of a window of days, market-wide: `[{{symbol, name,
    date, timing, epsEstimate, epsActual, surprisePercent, marketCap}}]`, by date then
    symbol.

    Source: {_YAHOO_PAGES} `region` (default US) selects where the companies are listed;
    `symbols` keeps only those companies (malformed ones match nothing). `date` is the
    exchange's day (America/New_York for US listings); `timing` is `BEFORE_OPEN`,
    `AFTER_CLOSE` or `UNKNOWN` (Yahoo's BMO, AMC; TAS and TNS are unknown). `epsActual` and
    `surprisePercent` are null until the company reports. {_WINDOW} {_PAGING}

    """ + order_note("asc", "rows (by date)")

    query_serializer = EarningsCalendarQuery
    response_schema = _rows_schema(EarningsRow, "earnings rows")
    csv_table = ""
    output = record_output(EarningsRow, paged=("",))
    operation_id, tag = "get_earnings_calendar", CALENDARS_TAG
    summary = "Earnings calendar by date"

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(dated.earnings(q["start"], q["end"], q["region"], q.get("symbols")))


@route("v2/calendars/dividends", name="v2-calendars-dividends")
class V2DividendsCalendarView(V2ApiView):
    __doc__ = f"""Dividends going ex in a window of days, of the symbols asked for:
    `[{{symbol, exDate, payDate, recordDate, amount, currency, frequency}}]`, by ex-date then
    symbol.

    Source: the chart's dividend events of each symbol (Yahoo's chart, the same cached call
    as `/v2/dividends/{{symbol}}`: the same ex-dates and split-adjusted amounts). Yahoo's
    calendar service has no dividend calendar, so `symbols` is required (at most 50);
    `payDate` and `recordDate` are null (the chart's events do not carry them), `currency`
    is the listing's trading currency and `frequency` is read from the gaps between the
    symbol's ex-dates. A symbol that cannot be served (malformed, unknown, upstream error)
    is left out; when none could be served because of an upstream failure, that failure's
    status (502/503/504/429) is returned. {_WINDOW} {_PAGING}

    """ + order_note("asc", "rows (by ex-date)")

    query_serializer = DividendsCalendarQuery
    response_schema = _rows_schema(DividendRow, "dividend rows")
    csv_table = ""
    output = record_output(DividendRow, paged=("",))
    operation_id, tag = "get_dividends_calendar", CALENDARS_TAG
    summary = "Dividend calendar by date (of the symbols asked for)"

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(dated.dividends(q["start"], q["end"], q["symbols"]))


@route("v2/calendars/splits", name="v2-calendars-splits")
class V2SplitsCalendarView(V2ApiView):
    __doc__ = f"""Stock splits going ex in a window of days, market-wide: `[{{symbol, date,
    numerator, denominator, ratio, optionable}}]`, by date then symbol (a 4-for-1 split is
    `numerator` 4, `denominator` 1, `ratio` `"4:1"`, as `/v2/splits/{{symbol}}` writes it).

    Source: {_YAHOO_PAGES} `symbols` keeps only those companies. {_WINDOW} {_PAGING}

    """ + order_note("asc", "rows (by date)")

    query_serializer = SplitsCalendarQuery
    response_schema = _rows_schema(SplitRow, "split rows")
    csv_table = ""
    output = record_output(SplitRow, paged=("",))
    operation_id, tag = "get_splits_calendar", CALENDARS_TAG
    summary = "Stock split calendar by date"

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(dated.splits(q["start"], q["end"], q.get("symbols")))


@route("v2/calendars/ipos", name="v2-calendars-ipos")
class V2IposCalendarView(V2ApiView):
    __doc__ = f"""Initial public offerings dated in a window of days: `[{{symbol, name,
    exchange, date, priceLow, priceHigh, price, shares, status}}]`, by date then symbol.

    Source: {_YAHOO_PAGES} `status` is the deal's as Yahoo names it (`EXPECTED`, `PRICED`,
    `WITHDRAWN`...); `price` is null until priced. `symbols` keeps only those tickers.
    {_WINDOW} {_PAGING}

    """ + order_note("asc", "rows (by date)")

    query_serializer = IposCalendarQuery
    response_schema = _rows_schema(IpoRow, "IPO rows")
    csv_table = ""
    output = record_output(IpoRow, paged=("",))
    operation_id, tag = "get_ipos_calendar", CALENDARS_TAG
    summary = "IPO calendar by date"

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(dated.ipos(q["start"], q["end"], q.get("symbols")))


@route("v2/calendars/economic", name="v2-calendars-economic")
class V2EconomicCalendarView(V2ApiView):
    __doc__ = f"""Economic releases and events of a window of days: `[{{date, time, country,
    event, period, actual, forecast, prior, unit, importance}}]`, by date, time, country
    and name.

    Source: {_YAHOO_PAGES} Its values come as published (`unit` null: the source does not
    state it; `importance` null: it does not rate events). When Yahoo fails, the release
    calendar `/v2/calendar` reads answers instead: with `FRED_API_KEY`, FRED's release
    calendar, else the schedule the service computes (weekly jobless claims, the Employment
    Situation, FOMC statements); those rows are US, days only (`time` null), without values,
    `importance` 3 (each is one of the ten market-moving US releases). `/v2/health` says
    which source answered last. `country` keeps one country's events. {_WINDOW} {_PAGING}

    """ + order_note("asc", "rows (by date and time)")

    query_serializer = EconomicCalendarQuery
    response_schema = _rows_schema(EconomicRow, "economic event rows")
    csv_table = ""
    output = record_output(EconomicRow, paged=("",))
    operation_id, tag = "get_economic_calendar", CALENDARS_TAG
    summary = "Economic calendar by date"

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(dated.economic(q["start"], q["end"], q.get("country")))
