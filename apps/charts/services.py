"""v2 charts and capital gains: a symbol's bars reshaped into the spec's GqlChart.

Every answer starts from :func:`marketdata.capabilities.bars.chart` (one cached upstream
call per symbol, interval and window; events always included), so a chart with or without
`events`, and the capital gains of a symbol, share cache entries.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from apps.core.symbols import require_symbol
from marketdata.capabilities import bars as price_history
from marketdata.capabilities import market
from marketdata.concurrency import batch_by_symbol
from marketdata.indicators.patterns import detect_patterns
from marketdata.records.bars import BarEvents, Bars, chart_meta
from marketdata.symbols import display_symbol, normalize_symbol

# Capital gains: how far back each range reaches (days); ytd is Jan 1 (UTC), max all.
RANGE_DAYS = {"1d": 1, "5d": 5, "1mo": 30, "3mo": 90, "6mo": 180, "1y": 365, "2y": 730,
              "5y": 1825, "10y": 3650}
# Every event of the window comes whatever the bar size, and range=max is served only with
# monthly bars (check_range_interval): the smallest answer with all history.
CAPITAL_GAINS_INTERVAL = "1mo"


def candles(chart: Bars) -> list[dict[str, Any]]:
    adj = chart.adjclose
    volumes = chart.volumes()
    return [{"timestamp": ts, "open": chart.open[i], "high": chart.high[i],
             "low": chart.low[i], "close": chart.close[i],
             "adjClose": None if adj is None else adj[i], "volume": volumes[i]}
            for i, ts in enumerate(chart.timestamps)]


def events_of(events: BarEvents) -> dict[str, list[dict[str, Any]]]:
    return {
        "dividends": [{"timestamp": ts, "amount": amount} for ts, amount in events.dividends],
        "splits": [{"timestamp": ts, "numerator": num, "denominator": den, "ratio": ratio}
                   for ts, num, den, ratio in events.splits],
        "capitalGains": [{"timestamp": ts, "amount": amount}
                         for ts, amount in events.capital_gains],
    }


def gql_chart(symbol: str, chart: Bars, interval: str, range_: str | None, *,
              events: bool = False, patterns: bool = False) -> dict[str, Any]:
    """GqlChart ``{symbol, interval, range, meta, candles}`` (+ ``events``, ``patterns``)
    with candles (and patterns) as bare lists; the view pages them."""
    meta = chart_meta(chart.meta)
    out: dict[str, Any] = {"symbol": meta["symbol"] or symbol, "interval": interval,
                           "range": range_, "meta": meta, "candles": candles(chart)}
    if events:
        out["events"] = events_of(chart.events)
    if patterns:
        out["patterns"] = detect_patterns(chart.open, chart.high, chart.low, chart.close)
    return out


def chart_for(symbol_text: str, interval: str, range_: str, *, start: int | None = None,
              end: int | None = None, events: bool = False, patterns: bool = False,
              now: int | None = None) -> dict[str, Any]:
    """The GqlChart of one symbol (the query already validated: see
    :class:`apps.charts.serializers.V2ChartQuery`). With ``start`` the window is absolute
    and ``range`` is null in the answer; events are those of the window (the candles' own)."""
    current = int(time.time()) if now is None else now
    symbol = require_symbol(symbol_text)
    chart = price_history.chart(symbol, interval, None if start is not None else range_,
                                start=start, end=end, now=current)
    return gql_chart(symbol, chart, interval, None if start is not None else range_,
                     events=events, patterns=patterns)


def charts_for(symbols: Sequence[str], interval: str, range_: str, *,
               patterns: bool = False) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """v2 batch: ``[{symbol, chart}]`` in request order and ``[{symbol, message}]`` for the
    symbols that could not be served (request order too)."""
    return batch_by_symbol(lambda s: chart_for(s, interval, range_, patterns=patterns),
                           symbols, "chart", what="chart")


def range_cutoff(range_: str, now: int) -> int | None:
    """The earliest timestamp a range keeps (None for max): ``now`` minus the range's
    days, or Jan 1 (UTC) of the current year for ytd."""
    if range_ == "max":
        return None
    if range_ == "ytd":
        year = datetime.fromtimestamp(now, UTC).year
        return int(datetime(year, 1, 1, tzinfo=UTC).timestamp())
    return now - RANGE_DAYS[range_] * 86400


# The corporate events of a symbol's whole history, by the member that lists them, each as
# its items are written.
EVENT_KINDS: dict[str, Any] = {
    "dividends": lambda events: [{"timestamp": ts, "amount": amount}
                                 for ts, amount in events.dividends],
    "splits": lambda events: [{"timestamp": ts, "numerator": num, "denominator": den,
                               "ratio": ratio} for ts, num, den, ratio in events.splits],
    "capitalGains": lambda events: [{"amount": amount, "timestamp": ts}
                                    for ts, amount in events.capital_gains],
}


def events_for(symbol_text: str, kind: str, range_: str,
               now: int | None = None) -> list[dict[str, Any]]:
    """One kind of corporate event (:data:`EVENT_KINDS`) of a symbol, oldest first, within
    the range back from now. From the symbol's whole history (monthly bars, range max: one
    cached call for every kind and range)."""
    symbol = require_symbol(symbol_text)
    chart = price_history.chart(symbol, CAPITAL_GAINS_INTERVAL, "max")
    cutoff = range_cutoff(range_, int(time.time()) if now is None else now)
    return [item for item in EVENT_KINDS[kind](chart.events)
            if cutoff is None or item["timestamp"] >= cutoff]


def events_batch(symbols: Sequence[str], kind: str, range_: str,
                 ) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """``[{symbol, <kind>}]`` and ``[{symbol, message}]``, both in request order."""
    now = int(time.time())
    what = {"capitalGains": "capital gains"}.get(kind, kind)
    return batch_by_symbol(lambda s: events_for(s, kind, range_, now), symbols, kind,
                           what=what)


def capital_gains_for(symbol_text: str, range_: str,
                      now: int | None = None) -> list[dict[str, Any]]:
    """``[{amount, timestamp}]`` oldest first, within the range back from now."""
    return events_for(symbol_text, "capitalGains", range_, now)


def capital_gains_batch(symbols: Sequence[str], range_: str,
                        ) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """``[{symbol, capitalGains}]`` and ``[{symbol, message}]``, both in request order."""
    return events_batch(symbols, "capitalGains", range_)


# A year for dividend growth: 365.25 days.
YEAR_SECONDS = 31_557_600


def dividend_analytics(dividends: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Totals over ``dividends`` (oldest first): the sum and the mean exact in the amounts'
    decimals (no float noise), the first and last payments, and the compound annual growth
    from the first to the last (a fraction, 0.1 is 10 %); ``cagr`` is null without two
    positive payments at least a year apart."""
    amounts = [Decimal(repr(float(item["amount"]))) for item in dividends]
    total = sum(amounts, Decimal(0))
    count = len(amounts)
    first = dividends[0] if dividends else None
    last = dividends[-1] if dividends else None
    cagr = None
    if first is not None and last is not None and all(a > 0 for a in amounts):
        years = (last["timestamp"] - first["timestamp"]) / YEAR_SECONDS
        if years >= 1:
            cagr = (float(last["amount"]) / float(first["amount"])) ** (1 / years) - 1
    return {"totalPaid": float(total), "paymentCount": count,
            "averagePayment": float(total / count) if count else None,
            "cagr": cagr, "lastPayment": last, "firstPayment": first}


def dividends_for(symbol_text: str, range_: str) -> dict[str, Any]:
    """``{dividends, analytics}``: the dividends within the range, oldest first, and their
    totals (:func:`dividend_analytics`)."""
    dividends = events_for(symbol_text, "dividends", range_)
    return {"dividends": dividends, "analytics": dividend_analytics(dividends)}


# -- spark --------------------------------------------------------------------------------------
SPARK_MEMBERS = ("symbol", "meta", "timestamps", "closes", "interval", "range")
SYMBOL_NOT_FOUND = "Symbol not found"


def sparks_for(symbols: Sequence[str], interval: str, range_: str,
               ) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """``[{symbol, meta, timestamps, closes, interval, range}]`` in request order from one
    batch (the query already validated: :class:`apps.charts.serializers.V2SparkQuery`),
    and ``[{symbol, message}]`` for the symbols not served: malformed ones (never sent
    upstream) and the ones the source does not return. An upstream failure fails the
    whole batch: its status is the answer."""
    canonical = [(text, normalize_symbol(text)) for text in symbols]
    valid = list(dict.fromkeys(s for _, s in canonical if s is not None))
    found = market.sparks(valid, interval, range_) if valid else {}
    served: list[dict[str, Any]] = []
    errors: list[dict[str, str]] = []
    for text, symbol in canonical:
        spark = found.get(symbol) if symbol is not None else None
        if spark is None:
            errors.append({"symbol": display_symbol(symbol or text),
                           "message": SYMBOL_NOT_FOUND})
        else:
            served.append({"symbol": spark.symbol, "meta": spark.meta,
                           "timestamps": spark.timestamps, "closes": spark.closes,
                           "interval": interval, "range": range_})
    return served, errors
