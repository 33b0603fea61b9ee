"""POST /v1/finance/visualization: Yahoo's calendar service (earnings, splits, IPOs,
economic events), answered from the simulator so the calendars agree with the per-symbol
answers.

The body is Yahoo's: ``entityIdType`` (``sp_earnings``, ``splits``, ``ipo_info``,
``economic_event``), ``includeFields`` (the columns, in order), ``query`` (an ``and`` of
``gte``/``lt`` on ``startdatetime`` with ``YYYY-MM-DD`` days, ``eq`` on ``ticker`` or
``region``, ``or`` of those), ``offset``, ``size`` (at most 250), ``sortType``. The answer
is Yahoo's table (``finance.result[0].documents[0]``: ``columns`` and ``rows``). A body
that is not such a query is a 400 in Yahoo's envelope.

- earnings: the screener's equity universe and the companies with real corporate actions
  (:mod:`marketdata.sandbox.corporate_actions`), each on the quarterly dates
  ``MarketView.earnings_dates`` gives quoteSummary's ``calendarEvents`` (so ``/v2/calendar``
  shows the same next date), after the close (``AMC``); ``epsestimate`` is calendarEvents'
  ``earningsAverage``; reported EPS and surprise for past dates only;
- splits: the same companies' splits as the chart's events give them (so ``/v2/splits``
  answers the same split: same day, same ratio), up to :data:`SPLIT_NOTICE_DAYS` ahead;
- IPOs: generated from each weekday's hash (0-2 deals; priced once their day is past);
- economic events: the US releases of the schedule the service computes (jobless claims,
  the Employment Situation, FOMC statements: the days ``/v2/calendar`` lists without a
  FRED key) at their usual times, and one German and one British release a weekday, with
  values generated from their hash (``after_release_actual`` only once released).
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from typing import Any

from marketdata.records.releases import FOMC, JOBLESS_CLAIMS, scheduled_release_dates
from marketdata.sandbox.corporate_actions import ACTIONS
from marketdata.sandbox.instruments import EQUITY, get_instrument, pick, stable_hash, unit
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.yahoo.chart import split_sessions
from marketdata.sandbox.yahoo.common import Request, SandboxResponse, finance_error, json_response
from marketdata.sandbox.yahoo.market import earnings_stamps, market_view
from marketdata.sandbox.yahoo.screener import universe

MAX_SIZE = 250
SPLIT_NOTICE_DAYS = 30
_DAY = 86400

COLUMNS: dict[str, tuple[str, str]] = {  # id -> (label, type)
    "ticker": ("Symbol", "STRING"), "companyshortname": ("Company Name", "STRING"),
    "intradaymarketcap": ("Market Cap (Intraday)", "NUMBER"),
    "eventname": ("Event Name", "STRING"), "startdatetime": ("Event Start Date", "DATE"),
    "startdatetimetype": ("Event Start Date", "STRING"),
    "epsestimate": ("EPS Estimate", "NUMBER"), "epsactual": ("Reported EPS", "NUMBER"),
    "epssurprisepct": ("Surprise (%)", "NUMBER"), "optionable": ("Optionable?", "STRING"),
    "old_share_worth": ("Old Share Worth", "NUMBER"), "share_worth": ("Share Worth", "NUMBER"),
    "exchange_short_name": ("Exchange Short Name", "STRING"),
    "filingdate": ("Filing Date", "DATE"), "amendeddate": ("Amended Date", "DATE"),
    "pricefrom": ("Price From", "NUMBER"), "priceto": ("Price To", "NUMBER"),
    "offerprice": ("Price", "NUMBER"), "currencyname": ("Currency", "STRING"),
    "shares": ("Shares", "NUMBER"), "dealtype": ("Actions", "STRING"),
    "econ_release": ("Event", "STRING"), "country_code": ("Country Code", "STRING"),
    "period": ("For", "STRING"), "after_release_actual": ("Actual", "NUMBER"),
    "consensus_estimate": ("Market Expectation", "NUMBER"),
    "prior_release_actual": ("Prior to This", "NUMBER"),
    "originally_reported_actual": ("Revised from", "NUMBER"),
}


class _BadQuery(ValueError):
    """The body is not a calendar query Yahoo would run (a 400)."""


@dataclass(frozen=True)
class CalendarQuery:
    entity: str
    fields: tuple[str, ...]
    start: int  # epoch seconds, inclusive
    end: int  # exclusive
    tickers: frozenset[str] | None
    offset: int
    size: int
    descending: bool


def _walk(node: Any) -> Iterator[tuple[str, list[Any]]]:
    """Every simple condition ``(operator, operands)`` of a query tree."""
    if not isinstance(node, dict) or not isinstance(node.get("operands"), list):
        raise _BadQuery("Invalid query operand")
    operator = str(node.get("operator", "")).lower()
    operands = node["operands"]
    if operator in ("and", "or"):
        for operand in operands:
            yield from _walk(operand)
    else:
        yield operator, operands


def _day(value: Any) -> int:
    try:
        day = date.fromisoformat(str(value)[:10])
    except ValueError as exc:
        raise _BadQuery(f"Invalid date {value!r}") from exc
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())


def parse_query(body: bytes) -> CalendarQuery:
    try:
        query = json.loads(body or b"null")
    except (ValueError, UnicodeDecodeError) as exc:
        raise _BadQuery("Invalid JSON body") from exc
    if not isinstance(query, dict):
        raise _BadQuery("Invalid JSON body")
    entity = query.get("entityIdType")
    if entity not in ENTITIES:
        raise _BadQuery(f"Unknown entityIdType {entity!r}")
    fields = query.get("includeFields")
    if not isinstance(fields, list) or not all(f in COLUMNS for f in fields):
        raise _BadQuery("Invalid includeFields")
    start, end = 0, 2**40
    tickers: set[str] | None = None
    for operator, operands in _walk(query.get("query")):
        field, values = (operands[0], operands[1:]) if operands else (None, [])
        if field == "startdatetime" and operator in ("gte", "gt") and values:
            start = max(start, _day(values[0]))
        elif field == "startdatetime" and operator in ("lt", "lte") and values:
            end = min(end, _day(values[0]) + (_DAY if operator == "lte" else 0))
        elif field == "ticker" and operator == "eq" and values:
            tickers = (tickers or set()) | {str(values[0]).upper()}
    offset, size = query.get("offset", 0), query.get("size", 25)
    if not isinstance(offset, int) or not isinstance(size, int) or offset < 0 \
            or not 0 < size <= MAX_SIZE:
        raise _BadQuery("Invalid offset or size")
    return CalendarQuery(entity, tuple(fields), start, end,
                         frozenset(tickers) if tickers is not None else None, offset, size,
                         str(query.get("sortType", "ASC")).upper() == "DESC")


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


@lru_cache(maxsize=1)
def companies() -> tuple[str, ...]:
    """The equities the calendars cover: the screener's universe and the companies with real
    corporate actions."""
    out = list(universe())
    for symbol in ACTIONS:
        inst = get_instrument(symbol)
        if symbol not in out and inst is not None and inst.kind == EQUITY:
            out.append(symbol)
    return tuple(out)


Row = dict[str, Any]


def _years(q: CalendarQuery) -> tuple[int, ...]:
    first = datetime.fromtimestamp(max(q.start, 0), UTC).year
    last = datetime.fromtimestamp(min(q.end, 2**33), UTC).year
    return tuple(range(first - 1, min(last, first + 3) + 1))


def earnings_rows(q: CalendarQuery, now: int) -> list[tuple[int, Row]]:
    out = []
    for symbol in companies():
        if q.tickers is not None and symbol not in q.tickers:
            continue
        inst = get_instrument(symbol)
        if inst is None:
            continue
        stamps = [s for s in earnings_stamps(inst, _years(q)) if q.start <= s < q.end]
        if not stamps:
            continue
        view = market_view(get_series(inst), now)
        estimate = round(view.forward_eps / 4, 5)
        for stamp in stamps:
            surprise = round(-8 + 20 * unit("eps-surprise", symbol, stamp), 2)
            reported = stamp <= now
            quarter = (datetime.fromtimestamp(stamp, UTC).month - 1) // 3 or 4
            out.append((stamp, {
                "ticker": symbol, "companyshortname": inst.short_name,
                "intradaymarketcap": view.market_cap,
                "eventname": f"Q{quarter} Earnings Release",
                "startdatetime": _iso(stamp), "startdatetimetype": "AMC",
                "epsestimate": estimate,
                "epsactual": round(estimate * (1 + surprise / 100), 2) if reported else None,
                "epssurprisepct": surprise if reported else None}))
    return out


def split_rows(q: CalendarQuery, now: int) -> list[tuple[int, Row]]:
    out = []
    horizon = now + SPLIT_NOTICE_DAYS * _DAY
    for symbol in companies():
        if q.tickers is not None and symbol not in q.tickers:
            continue
        sessions = split_sessions(symbol)
        if not sessions:
            continue
        series = get_series(get_instrument(symbol))  # type: ignore[arg-type]
        for k, numerator, denominator in sessions:
            day = date.fromisoformat(str(series.days[k]))
            stamp = int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())
            if q.start <= stamp < q.end and stamp <= horizon:
                out.append((stamp, {
                    "ticker": symbol, "companyshortname": series.inst.short_name,
                    "startdatetime": _iso(stamp),
                    "optionable": "true" if series.inst.shares_outstanding else "false",
                    "old_share_worth": denominator, "share_worth": numerator}))
    return out


def _days(q: CalendarQuery) -> Iterator[date]:
    day = datetime.fromtimestamp(q.start, UTC).date()
    last = datetime.fromtimestamp(min(q.end, q.start + 400 * _DAY), UTC).date()
    while day < last:
        if day.weekday() < 5:
            yield day
        day += timedelta(days=1)


def _ipo_ticker(day: date, k: int) -> str:
    h = stable_hash("sandbox-ipo", day.isoformat(), k)
    return "".join(string.ascii_uppercase[(h >> (5 * i)) % 26] for i in range(4))


def ipo_rows(q: CalendarQuery, now: int) -> list[tuple[int, Row]]:
    out = []
    for day in _days(q):
        for k in range(stable_hash("sandbox-ipos", day.isoformat()) % 3):
            symbol = _ipo_ticker(day, k)
            if q.tickers is not None and symbol not in q.tickers:
                continue
            stamp = int(datetime(day.year, day.month, day.day, 13, 30, tzinfo=UTC).timestamp())
            low = float(8 + 2 * (stable_hash("ipo-low", symbol) % 10))
            high = low + 2
            priced = stamp <= now
            price = round(low + 2 * unit("ipo-price", symbol), 2) if priced else None
            out.append((stamp, {
                "ticker": symbol, "companyshortname": f"{symbol.title()} Holdings Inc.",
                "exchange_short_name": pick(("NASDAQ", "NYSE"), "ipo-exchange", symbol),
                "filingdate": _iso(stamp - 40 * _DAY), "startdatetime": _iso(stamp),
                "amendeddate": _iso(stamp - 7 * _DAY), "pricefrom": low, "priceto": high,
                "offerprice": price, "currencyname": "USD",
                "shares": 1_000_000 * (2 + stable_hash("ipo-shares", symbol) % 30),
                "dealtype": "PRICED" if priced else "EXPECTED"}))
    return out


# Release times (UTC, hour and minute) of the US schedule's releases.
_US_TIMES = {FOMC: (19, 0)}
_US_DEFAULT_TIME = (13, 30)
_FOREIGN = (("DE", "ZEW Economic Sentiment", 10, 0), ("GB", "Retail Sales MoM", 7, 0))


def _values(name: str, stamp: int, now: int) -> Row:
    forecast = round(-1 + 4 * unit("econ-forecast", name, stamp), 1)
    return {"consensus_estimate": forecast,
            "prior_release_actual": round(forecast + unit("econ-prior", name, stamp) - 0.5, 1),
            "after_release_actual": round(forecast + 2 * unit("econ-actual", name, stamp) - 1,
                                          1) if stamp <= now else None,
            "originally_reported_actual": None}


def economic_rows(q: CalendarQuery, now: int) -> list[tuple[int, Row]]:
    first = datetime.fromtimestamp(q.start, UTC).date()
    last = datetime.fromtimestamp(min(q.end, q.start + 400 * _DAY) - 1, UTC).date()
    out = []
    for release in scheduled_release_dates(first.isoformat(), last.isoformat()):
        day = date.fromisoformat(release.date)
        hour, minute = _US_TIMES.get(release.release_id, _US_DEFAULT_TIME)
        stamp = int(datetime(day.year, day.month, day.day, hour, minute,
                             tzinfo=UTC).timestamp())
        period = ("Week" if release.release_id == JOBLESS_CLAIMS
                  else (day.replace(day=1) - timedelta(days=1)).strftime("%b"))
        out.append((stamp, {"econ_release": release.name, "country_code": "US",
                            "startdatetime": _iso(stamp), "period": period,
                            **_values(release.name, stamp, now)}))
    for day in _days(q):
        for country, name, hour, minute in _FOREIGN:
            if stable_hash("econ-day", country, day.isoformat()) % 5:
                continue  # about one weekday in five
            stamp = int(datetime(day.year, day.month, day.day, hour, minute,
                                 tzinfo=UTC).timestamp())
            out.append((stamp, {"econ_release": name, "country_code": country,
                                "startdatetime": _iso(stamp),
                                "period": (day.replace(day=1) - timedelta(days=1)).strftime("%b"),
                                **_values(name, stamp, now)}))
    return [(stamp, row) for stamp, row in out if q.start <= stamp < q.end]


ENTITIES: dict[str, Callable[[CalendarQuery, int], list[tuple[int, Row]]]] = {
    "sp_earnings": earnings_rows, "splits": split_rows, "ipo_info": ipo_rows,
    "economic_event": economic_rows,
}


def handle_visualization(req: Request) -> SandboxResponse:
    try:
        q = parse_query(req.body)
    except _BadQuery as exc:
        return finance_error("Bad Request", str(exc), 400)
    found = sorted(ENTITIES[q.entity](q, req.now()),
                   key=lambda item: (item[0], str(item[1].get("ticker")
                                                  or item[1].get("econ_release"))),
                   reverse=q.descending)
    page = found[q.offset:q.offset + q.size]
    document = {
        "entityIdType": q.entity,
        "columns": [{"id": f, "label": COLUMNS[f][0], "type": COLUMNS[f][1]}
                    for f in q.fields],
        "rows": [[row.get(f) for f in q.fields] for _, row in page]}
    return json_response({"finance": {"result": [{"documents": [document]}], "error": None}})
