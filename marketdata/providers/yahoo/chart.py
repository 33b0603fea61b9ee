"""Yahoo's v8 chart: the ``bars`` fetcher of the price-history capability.

Query -> ``/v8/finance/chart/{symbol}`` (a range, or an absolute window as
``period1``/``period2``; every event asked for, so one cached answer serves charts with or
without events, capital gains, historical prices, indicators and backtests) -> the answer
transformed into a :class:`marketdata.records.bars.Bars`: bars without an open, high, low or
close dropped (Yahoo pads gaps with nulls), values as Yahoo sent them, the meta under the
spec's names.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import quote

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.formatting import raw
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_error_description, yahoo_provider
from marketdata.records.bars import (
    INTRADAY,
    META_MEMBERS,
    BarEvents,
    Bars,
    chart_meta,
)

# The events asked for, whatever the request: one cached answer serves every reader.
EVENTS = "div,split,capitalGain"
# Yahoo's spelling of a meta member, where it differs from the spec's.
_YAHOO_META = {"gmtOffset": "gmtoffset"}


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


def _chart_rows(result: dict[str, Any]) -> tuple[list[tuple[int, tuple]], bool]:
    """``[(timestamp, (open, high, low, close, volume, adjclose))]`` oldest first, and
    whether Yahoo sent an adjclose column at all.

    Yahoo pads gaps with nulls: a row whose open/high/low/close is null is not a price and is
    dropped; a null volume stays None. A repeated timestamp keeps the last row."""
    stamps = result.get("timestamp") or []
    quotes = ((result.get("indicators") or {}).get("quote") or [{}])[0] or {}
    adj_block = (result.get("indicators") or {}).get("adjclose")
    adj = (adj_block[0] or {}).get("adjclose") if adj_block else None
    columns = [quotes.get(name) or [] for name in ("open", "high", "low", "close", "volume")]

    rows: dict[int, tuple] = {}
    for i, ts in enumerate(stamps):
        values = [raw(col[i]) if i < len(col) else None for col in columns]
        if ts is None or any(v is None for v in values[:4]):
            continue  # Yahoo pads gaps with nulls; a partial row is not a price
        if values[4] is not None:
            values[4] = int(values[4])
        adj_value = raw(adj[i]) if adj is not None and i < len(adj) else None
        rows[int(ts)] = (*values, adj_value)  # a repeated timestamp keeps the last row
    return sorted(rows.items()), adj is not None


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


def parse_events(result: dict[str, Any]) -> BarEvents:
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
    return BarEvents(dividends=amounts("dividends"), splits=splits,
                     capital_gains=amounts("capitalGains"))


def _session_previous_close(meta: dict[str, Any], ordered: list[tuple[int, Any]],
                            interval: str) -> float | None:
    """Yahoo sends ``previousClose`` on intraday charts only. On a daily chart whose last
    bar is the session of ``regularMarketTime`` (dates in the exchange's time zone), it is
    the close of the bar before; otherwise (a window in the past, weekly or monthly bars)
    it is not in the chart."""
    market_time, offset = raw(meta.get("regularMarketTime")), raw(meta.get("gmtoffset"))
    if interval != "1d" or len(ordered) < 2 or not isinstance(market_time, int | float):
        return None
    offset = offset if isinstance(offset, int | float) else 0
    if (ordered[-1][0] + offset) // 86400 != (market_time + offset) // 86400:
        return None
    close: float = ordered[-2][1][3]
    return close


def parse_bars(payload: Any, interval: str) -> Bars:
    """Yahoo chart JSON -> Bars. Unknown symbol -> NotFound; a known symbol with no bars
    in the window -> Bars without any."""
    result = _chart_result(payload)
    meta = result.get("meta")
    meta = meta if isinstance(meta, dict) else {}
    ordered, has_adj = _chart_rows(result)
    values = {name: raw(meta.get(_YAHOO_META.get(name, name))) for name in META_MEMBERS}
    if values["previousClose"] is None:
        values["previousClose"] = _session_previous_close(meta, ordered, interval)
    return Bars(
        interval=interval,
        meta=chart_meta(values),
        timestamps=[ts for ts, _ in ordered],
        open=[r[0] for _, r in ordered],
        high=[r[1] for _, r in ordered],
        low=[r[2] for _, r in ordered],
        close=[r[3] for _, r in ordered],
        volume=[r[4] for _, r in ordered],
        adjclose=[r[5] for _, r in ordered] if has_adj else None,
        events=parse_events(result),
        source="yahoo",
    )


def chart_policy(interval: str) -> str:
    if interval in INTRADAY:
        return "chart_intraday"
    return "chart_daily" if interval == "1d" else "chart_weekly"


def bars(symbol: str, interval: str, range_: str | None = None, *,
         start: int | None = None, end: int | None = None, now: int | None = None) -> Bars:
    """The ``bars`` fetcher: the bars of a validated symbol for a query the capability
    validated (:mod:`marketdata.capabilities.bars`), through the cache (one upstream call
    per key).

    With ``start`` the window is absolute (Yahoo's ``period1``/``period2``; ``end`` None
    means "up to now", cached under its own key for the chart TTL); otherwise ``range_``.
    """
    params: dict[str, Any]
    key: dict[str, Any]
    if start is None:
        if range_ is None:
            raise ValueError("bars needs range_ or start")
        params = {"range": range_}
        key = {"symbol": symbol, "interval": interval, "range": range_}
    else:
        params = {"period1": start}
        key = {"symbol": symbol, "interval": interval, "start": start,
               "end": "now" if end is None else end}

    def fetch() -> Bars:
        query = dict(params)
        if "period1" in query:
            query["period2"] = int(time.time()) if end is None else end
        payload = get_json(
            "chart", f"{yahoo.QUERY2}/v8/finance/chart/{quote(symbol, safe='')}",
            {**query, "interval": interval, "includePrePost": "false", "events": EVENTS},
            crumb=False, not_found=f"No data found for symbol {symbol}")
        return parse_bars(payload, interval)

    return yahoo_provider().cached("bars", key, fetch, chart_policy(interval),
                                   group="historical")
