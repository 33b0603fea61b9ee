"""fundamentals-timeseries: income statement, balance sheet and cash flow by period.

One call per (symbol, statement, frequency): the ``type`` parameter lists the statement's
Yahoo field names with the frequency prefix (``annualTotalRevenue,annualGrossProfit,...``).
Yahoo answers one ``timeseries.result[]`` item per known type, in no particular order; a
type without data is an item with ``meta`` only, and names Yahoo does not know are left out.

The window is the last ten years, aligned on UTC days: ``period2`` is the start of the
current UTC day and ``period1`` the same calendar day ten years earlier. A statement for a
period ending today cannot have been published yet, so nothing is lost, and the upstream
URL (and the cache key built from it) changes once a day rather than every second.

:func:`fetch_statement` is the capability table's ``financial_statements`` fetcher; the
statement and frequency vocabularies and :func:`display_name` are the records' (imported
from :mod:`marketdata.records.fundamentals`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import quote

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_provider
from marketdata.records.fundamentals import FREQUENCIES as FREQUENCIES
from marketdata.records.fundamentals import STATEMENT_FIELDS as STATEMENT_FIELDS
from marketdata.records.fundamentals import STATEMENTS as STATEMENTS
from marketdata.records.fundamentals import Statement
from marketdata.records.fundamentals import display_name as display_name

# Prefixes Yahoo puts before a field name in ``type`` (and in ``meta.type`` of the answer).
TYPE_PREFIXES = ("annual", "quarterly", "trailing")
HISTORY_YEARS = 10
TIMESERIES_PATH = "/ws/fundamentals-timeseries/v1/finance/timeseries/"

_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def type_list(statement: str, frequency: str) -> list[str]:
    """The ``type`` values for one statement: ``annualTotalRevenue``, ..."""
    return [f"{frequency}{field}" for field in STATEMENT_FIELDS[statement]]


def window(today: date | None = None) -> tuple[int, int]:
    """(period1, period2) epoch seconds: ten years back from the start of today (UTC)."""
    today = today or datetime.now(UTC).date()
    try:
        start = today.replace(year=today.year - HISTORY_YEARS)
    except ValueError:  # 29 February
        start = today.replace(year=today.year - HISTORY_YEARS, day=28)

    def midnight(day: date) -> int:
        return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())

    return midnight(start), midnight(today)


def field_of(type_name: str) -> str:
    """``annualTotalRevenue`` -> ``TotalRevenue`` (the frequency prefix removed)."""
    for prefix in TYPE_PREFIXES:
        if type_name.startswith(prefix) and type_name[len(prefix):len(prefix) + 1].isupper():
            return type_name[len(prefix):]
    return type_name


def _number(value: Any) -> int | float | None:
    """A reported value: ``{raw, fmt}``, a bare number or ``{raw: {parsedValue}}``.

    Integral values become ints (amounts, share counts); others stay floats (EPS)."""
    if isinstance(value, dict):
        value = value.get("raw")
    if isinstance(value, dict):
        value = value.get("parsedValue")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        if value.is_integer():
            return int(value)
    return value


def _period_end(point: dict[str, Any], stamp: Any) -> str | None:
    """The point's ``asOfDate``; when missing or malformed, the UTC day of its timestamp."""
    as_of = point.get("asOfDate")
    if isinstance(as_of, str) and _ISO_DAY.match(as_of):
        try:
            return date.fromisoformat(as_of).isoformat()
        except ValueError:
            pass
    if isinstance(stamp, int | float) and not isinstance(stamp, bool) and math.isfinite(stamp):
        try:
            return datetime.fromtimestamp(stamp, UTC).date().isoformat()
        except (OverflowError, OSError, ValueError):
            return None
    return None


def _series(item: dict[str, Any]) -> tuple[str, dict[str, int | float]] | None:
    meta = item.get("meta") or {}
    types = meta.get("type") if isinstance(meta, dict) else None
    if not isinstance(types, list) or not types or not isinstance(types[0], str):
        return None
    type_name = types[0]
    points = item.get(type_name)
    if not isinstance(points, list):
        return None
    stamps = item.get("timestamp")
    stamps = stamps if isinstance(stamps, list) else []
    values: dict[str, int | float] = {}
    for i, point in enumerate(points):
        if not isinstance(point, dict):
            continue  # padTimeSeries pads missing periods with null
        number = _number(point.get("reportedValue"))
        end = _period_end(point, stamps[i] if i < len(stamps) else None)
        if number is not None and end is not None:
            values[end] = number
    return (field_of(type_name), values) if values else None


def parse_timeseries(payload: Any, fields: Sequence[str] | None = None) -> Statement:
    """Yahoo timeseries body -> {period end: {field: number}}, newest period first.

    Metrics without a single value are dropped; an empty dict means "no data". With
    ``fields`` only those metrics are kept, in that order (a statement is its own field
    list, whatever else an answer carries); without, every metric in Yahoo's order.
    Payloads that are not a timeseries answer raise UpstreamBadResponse.
    """
    body = payload.get("timeseries") if isinstance(payload, dict) else None
    if not isinstance(body, dict):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance timeseries answer has no "
                                  "'timeseries' object")
    results = body.get("result")
    error = body.get("error")
    if results is None:
        if not isinstance(error, dict) or error.get("code") == "Not Found":
            return {}
        raise UpstreamBadResponse("yahoo", "Yahoo Finance timeseries error: "
                                  f"{error.get('description') or error.get('code')}")
    if not isinstance(results, list):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance timeseries answer has no result list")

    series: dict[str, dict[str, int | float]] = {}
    for item in results:
        parsed = _series(item) if isinstance(item, dict) else None
        if parsed is not None:
            field, values = parsed
            series.setdefault(field, {}).update(values)
    ordered = list(series) if fields is None else [f for f in fields if f in series]
    periods = sorted({end for f in ordered for end in series[f]}, reverse=True)
    return {end: {f: series[f][end] for f in ordered if end in series[f]} for end in periods}


def timeseries_url(symbol: str) -> str:
    return f"{yahoo.QUERY1}{TIMESERIES_PATH}{quote(symbol, safe='')}"


def fetch_statement(symbol: str, statement: str, frequency: str,
                    today: date | None = None) -> Statement:
    """One statement for a validated symbol, through the cache ("fundamentals" policy).

    NotFound ("No income data found for BTC-USD") when Yahoo has no value for any of the
    statement's fields, which is also how it answers unknown symbols, funds and crypto.
    """
    fields = STATEMENT_FIELDS[statement]
    period1, period2 = window(today)
    missing = f"No {statement} data found for {symbol}"

    def fetch() -> Statement:
        payload = get_json("fundamentalsTimeseries", timeseries_url(symbol), {
            "merge": "false", "padTimeSeries": "true", "period1": period1,
            "period2": period2, "type": ",".join(type_list(statement, frequency)),
            "lang": "en-US", "region": "US",
        }, not_found=missing)
        parsed = parse_timeseries(payload, fields)
        if not parsed:
            raise NotFound(missing)
        return parsed

    return yahoo_provider().cached(
        "fundamentalsTimeseries", {"symbol": symbol, "statement": statement,
                                   "frequency": frequency, "period1": period1,
                                   "period2": period2},
        fetch, "fundamentals", group="financials")

