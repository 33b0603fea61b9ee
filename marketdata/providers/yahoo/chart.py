"""v8 chart: OHLCV candles for a symbol, range and interval."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from marketdata.cache import fetch_through
from marketdata.errors import BadRequest, NotFound, UpstreamBadResponse
from marketdata.formatting import raw
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_error_description

RANGES = ("1d", "5d", "1mo", "3mo", "6mo", "ytd", "1y", "2y", "5y", "10y", "max")
INTERVALS = ("1m", "5m", "15m", "30m", "1h", "1d", "1wk", "1mo")
# v2 adds Yahoo's other bar sizes.
V2_INTERVALS = ("1m", "2m", "5m", "15m", "30m", "1h", "90m", "1d", "5d", "1wk", "1mo", "3mo")
V2_RANGES = ("1d", "5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "10y", "ytd", "max")
INTRADAY = frozenset({"1m", "2m", "5m", "15m", "30m", "1h", "90m"})

# Which ranges Yahoo serves for an interval (the spec's compatibility table).
_COMPATIBLE = {
    "1m": ("1d", "5d"),
    "2m": ("1d", "5d", "1mo"),
    "5m": ("1d", "5d", "1mo"),
    "15m": ("1d", "5d", "1mo"),
    "30m": ("1d", "5d", "1mo"),
    "1h": ("1d", "5d", "1mo", "3mo", "6mo", "ytd", "1y"),
    "90m": ("1d", "5d", "1mo"),  # Yahoo keeps 60 days of 2m..90m bars
}


def check_range_interval(range_: str, interval: str) -> None:
    """Raise BadRequest (400) for combinations the spec's table rules out."""
    if range_ == "max" and interval not in ("1mo", "3mo"):  # 3mo: v2 only
        raise BadRequest("If range is max, interval must be 1mo")
    allowed = _COMPATIBLE.get(interval)
    if allowed is not None and range_ not in allowed:
        raise BadRequest(f"If interval is {interval}, range must be {', '.join(allowed)}")


@dataclass
class Candles:
    """Parsed chart: parallel lists, oldest first, rows with any null value dropped."""

    symbol: str
    currency: str | None
    exchange_timezone: str | None
    price_hint: int
    interval: str
    timestamps: list[int]
    open: list[float]
    high: list[float]
    low: list[float]
    close: list[float]
    volume: list[int]
    adjclose: list[float | None] | None

    def __len__(self) -> int:
        return len(self.timestamps)

    @property
    def decimals(self) -> int:
        """Decimal places shown for this instrument's prices: Yahoo's priceHint, at least 2."""
        return max(2, self.price_hint)


def _chart_result(payload: Any) -> dict[str, Any]:
    """The first ``chart.result`` of a Yahoo chart body; NotFound when Yahoo says the symbol
    is unknown, UpstreamBadResponse when the body is not a chart answer."""
    chart = payload.get("chart") if isinstance(payload, dict) else None
    if not isinstance(chart, dict):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance chart answer has no 'chart' object")
    results = chart.get("result")
    if not results:
        description = yahoo_error_description(payload) or "No data returned for symbol"
        error = chart.get("error") or {}
        if not error or error.get("code") == "Not Found":
            raise NotFound(description)
        raise UpstreamBadResponse("yahoo", f"Yahoo Finance chart error: {description}")
    result = results[0]
    if not isinstance(result, dict):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance chart result is not an object")
    return result


def _chart_rows(result: dict[str, Any], *,
                zero_volume: bool) -> tuple[list[tuple[int, tuple]], bool]:
    """``[(timestamp, (open, high, low, close, volume, adjclose))]`` oldest first, and
    whether Yahoo sent an adjclose column at all.

    Yahoo pads gaps with nulls: a row whose open/high/low/close is null is not a price and is
    dropped. A null volume drops the row too (v1), or counts as 0 with ``zero_volume``
    (v2, where a negative volume is also clamped to 0). A repeated timestamp keeps the last
    row."""
    stamps = result.get("timestamp") or []
    quotes = ((result.get("indicators") or {}).get("quote") or [{}])[0] or {}
    adj_block = (result.get("indicators") or {}).get("adjclose")
    adj = (adj_block[0] or {}).get("adjclose") if adj_block else None
    columns = [quotes.get(name) or [] for name in ("open", "high", "low", "close", "volume")]

    rows: dict[int, tuple] = {}
    for i, ts in enumerate(stamps):
        values = [raw(col[i]) if i < len(col) else None for col in columns]
        if zero_volume:
            volume = values[4]
            values[4] = 0 if volume is None or volume < 0 else volume
        if ts is None or any(v is None for v in values):
            continue  # Yahoo pads gaps with nulls; a partial row is not a price
        adj_value = raw(adj[i]) if adj is not None and i < len(adj) else None
        rows[int(ts)] = (*values, adj_value)  # a repeated timestamp keeps the last row
    return sorted(rows.items()), adj is not None


def parse_chart(payload: Any, interval: str) -> Candles:
    """Yahoo chart JSON -> Candles. Unknown symbol / no rows -> NotFound."""
    result = _chart_result(payload)
    meta = result.get("meta") or {}
    ordered, has_adj = _chart_rows(result, zero_volume=False)
    if not ordered:
        raise NotFound("No data returned for symbol")
    hint = raw(meta.get("priceHint"))
    return Candles(
        symbol=str(meta.get("symbol") or ""),
        currency=meta.get("currency"),
        exchange_timezone=meta.get("exchangeTimezoneName"),
        price_hint=int(hint) if isinstance(hint, int | float) else 2,
        interval=interval,
        timestamps=[ts for ts, _ in ordered],
        open=[float(r[0]) for _, r in ordered],
        high=[float(r[1]) for _, r in ordered],
        low=[float(r[2]) for _, r in ordered],
        close=[float(r[3]) for _, r in ordered],
        volume=[int(r[4]) for _, r in ordered],
        adjclose=[None if r[5] is None else float(r[5]) for _, r in ordered]
        if has_adj else None,
    )


def chart_policy(interval: str) -> str:
    if interval in INTRADAY:
        return "chart_intraday"
    return "chart_daily" if interval == "1d" else "chart_weekly"


def fetch_candles(symbol: str, range_: str, interval: str) -> Candles:
    """Candles for a validated symbol, through the cache (one upstream call per key)."""
    check_range_interval(range_, interval)

    def fetch() -> Candles:
        payload = get_json(
            "chart", f"{yahoo.QUERY2}/v8/finance/chart/{quote(symbol, safe='')}",
            {"range": range_, "interval": interval, "includePrePost": "false",
             "events": "div,split"},
            crumb=False, not_found=f"No data found for symbol {symbol}")
        return parse_chart(payload, interval)

    return fetch_through("yahoo", "chart", {"symbol": symbol, "range": range_,
                                            "interval": interval},
                         fetch, chart_policy(interval), group="historical")


# -- v2: the whole chart (meta, every priced bar, events) ------------------------------------
# The events v2 asks Yahoo for, whatever the request: one cached answer serves a chart with
# or without `events`, and the capital-gains endpoint.
V2_EVENTS = "div,split,capitalGain"
# How far back (days) Yahoo serves intraday bars, and the longest 1m span per request: an
# absolute window outside these is refused here (400) rather than sent to Yahoo (a 422 that
# would surface as a 502). Same figures as the sandbox.
INTRADAY_LOOKBACK_DAYS = {"1m": 30, "2m": 60, "5m": 60, "15m": 60, "30m": 60, "90m": 60,
                          "1h": 730}
ONE_MINUTE_SPAN_DAYS = 8


@dataclass
class ChartEvents:
    """Corporate events Yahoo sends with a chart, each list oldest first.

    ``dividends`` and ``capital_gains``: ``(timestamp, amount)``; ``splits``:
    ``(timestamp, numerator, denominator, ratio)`` with ``ratio`` Yahoo's ``splitRatio``
    (``"4:1"``), or built from the two numbers when Yahoo sends none."""

    dividends: list[tuple[int, float]]
    splits: list[tuple[int, float, float, str]]
    capital_gains: list[tuple[int, float]]


@dataclass
class Chart:
    """v2 chart: Yahoo's ``meta`` as sent, every bar with a price (oldest first; null
    volume -> 0; ``adjclose`` None when Yahoo sends no such column, an item None when Yahoo
    has no value for that bar) and the events. No bars is a valid answer (an empty window
    of a known symbol)."""

    meta: dict[str, Any]
    timestamps: list[int]
    open: list[float]
    high: list[float]
    low: list[float]
    close: list[float]
    volume: list[int]
    adjclose: list[float | None] | None
    events: ChartEvents

    def __len__(self) -> int:
        return len(self.timestamps)


def _event_time(key: Any, item: dict[str, Any]) -> int | None:
    value = raw(item.get("date"))
    if not isinstance(value, int | float) or isinstance(value, bool):
        try:
            value = int(key)
        except (TypeError, ValueError):
            return None
    return int(value)


def _ratio_text(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else repr(float(number))


def parse_events(result: dict[str, Any]) -> ChartEvents:
    """``result.events`` (maps keyed by timestamp text) -> sorted lists; entries without a
    date or a number are skipped."""
    events = result.get("events") or {}
    if not isinstance(events, dict):
        events = {}

    def entries(name: str) -> list[tuple[int, dict[str, Any]]]:
        block = events.get(name) or {}
        out = []
        for key, item in (block.items() if isinstance(block, dict) else ()):
            when = _event_time(key, item) if isinstance(item, dict) else None
            if when is not None:
                out.append((when, item))
        return sorted(out, key=lambda pair: pair[0])

    def amounts(name: str) -> list[tuple[int, float]]:
        out = []
        for when, item in entries(name):
            amount = raw(item.get("amount"))
            if isinstance(amount, int | float) and not isinstance(amount, bool):
                out.append((when, amount))
        return out

    splits = []
    for when, item in entries("splits"):
        numerator, denominator = raw(item.get("numerator")), raw(item.get("denominator"))
        if not all(isinstance(v, int | float) and not isinstance(v, bool)
                   for v in (numerator, denominator)):
            continue
        ratio = item.get("splitRatio")
        if not isinstance(ratio, str) or not ratio:
            ratio = f"{_ratio_text(numerator)}:{_ratio_text(denominator)}"
        splits.append((when, numerator, denominator, ratio))
    return ChartEvents(dividends=amounts("dividends"), splits=splits,
                       capital_gains=amounts("capitalGains"))


def parse_chart_v2(payload: Any) -> Chart:
    """Yahoo chart JSON -> Chart (v2 rules: rows without open/high/low/close dropped, null
    or negative volume -> 0, values otherwise exactly as Yahoo sent them). Unknown symbol
    -> NotFound; a known symbol with no bars in the window -> an empty Chart."""
    result = _chart_result(payload)
    meta = result.get("meta")
    ordered, has_adj = _chart_rows(result, zero_volume=True)
    return Chart(
        meta=dict(meta) if isinstance(meta, dict) else {},
        timestamps=[ts for ts, _ in ordered],
        open=[r[0] for _, r in ordered],
        high=[r[1] for _, r in ordered],
        low=[r[2] for _, r in ordered],
        close=[r[3] for _, r in ordered],
        volume=[int(r[4]) for _, r in ordered],
        adjclose=[r[5] for _, r in ordered] if has_adj else None,
        events=parse_events(result),
    )


def check_window(interval: str, start: int, end: int, now: int) -> None:
    """Raise BadRequest (400) for an absolute window Yahoo cannot serve: ``start`` not
    before ``end``, or intraday bars further back (or, for 1m, over a longer span) than
    Yahoo keeps."""
    if start >= end:
        raise BadRequest("`start` must be before `end`")
    lookback = INTRADAY_LOOKBACK_DAYS.get(interval)
    if lookback is None:
        return
    if interval == "1m" and end - start > ONE_MINUTE_SPAN_DAYS * 86400:
        raise BadRequest(f"If interval is 1m, the window (`start` to `end`) must span at "
                         f"most {ONE_MINUTE_SPAN_DAYS} days")
    if start < now - lookback * 86400:
        raise BadRequest(f"If interval is {interval}, `start` must be within the last "
                         f"{lookback} days")


def fetch_chart(symbol: str, interval: str, range_: str | None = None, *,
                start: int | None = None, end: int | None = None,
                now: int | None = None) -> Chart:
    """The v2 chart of a validated symbol, through the cache (one upstream call per key).

    With ``start`` the window is absolute (Yahoo's ``period1``/``period2``; ``end`` None
    means "up to now", cached under its own key for the chart TTL); otherwise ``range_``.
    Events (dividends, splits, capital gains) are always asked for, so one answer serves
    every use of the key."""
    params: dict[str, Any]
    key: dict[str, Any]
    if start is None:
        if range_ is None:
            raise ValueError("fetch_chart needs range_ or start")
        check_range_interval(range_, interval)
        params = {"range": range_}
        key = {"symbol": symbol, "interval": interval, "range": range_}
    else:
        current = int(time.time()) if now is None else now
        check_window(interval, start, current if end is None else end, current)
        params = {"period1": start}
        key = {"symbol": symbol, "interval": interval, "start": start,
               "end": "now" if end is None else end}

    def fetch() -> Chart:
        query = dict(params)
        if "period1" in query:
            query["period2"] = int(time.time()) if end is None else end
        payload = get_json(
            "chart", f"{yahoo.QUERY2}/v8/finance/chart/{quote(symbol, safe='')}",
            {**query, "interval": interval, "includePrePost": "false", "events": V2_EVENTS},
            crumb=False, not_found=f"No data found for symbol {symbol}")
        return parse_chart_v2(payload)

    return fetch_through("yahoo", "chart_v2", key, fetch, chart_policy(interval),
                         group="historical")
