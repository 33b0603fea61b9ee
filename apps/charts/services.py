"""v2 charts and capital gains: a symbol's bars reshaped into the spec's GqlChart.

Every answer starts from :func:`marketdata.capabilities.bars.chart` (one cached upstream
call per symbol, interval and window; events always included), so a chart with or without
`events`, and the capital gains of a symbol, share cache entries.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from itertools import repeat
from typing import Any

from apps.core.symbols import require_symbol
from marketdata.capabilities import bars as price_history
from marketdata.capabilities import market
from marketdata.concurrency import batch_by_symbol
from marketdata.indicators.patterns import detect_patterns
from marketdata.records.bars import BarEvents, Bars, ChartMeta, chart_meta
from marketdata.records.batches import Batch
from marketdata.records.members import is_record, member, member_names, members_of
from marketdata.symbols import display_symbol, normalize_symbol

# Capital gains: how far back each range reaches (days); ytd is Jan 1 (UTC), max all.
RANGE_DAYS = {"1d": 1, "5d": 5, "1mo": 30, "3mo": 90, "6mo": 180, "1y": 365, "2y": 730,
              "5y": 1825, "10y": 3650}
# Every event of the window comes whatever the bar size, and range=max is served only with
# monthly bars (check_range_interval): the smallest answer with all history.
CAPITAL_GAINS_INTERVAL = "1mo"


def range_cutoff(range_: str, now: int) -> int | None:
    """The earliest timestamp a range keeps (None for max): ``now`` minus the range's
    days, or Jan 1 (UTC) of the current year for ytd."""
    if range_ == "max":
        return None
    if range_ == "ytd":
        year = datetime.fromtimestamp(now, UTC).year
        return int(datetime(year, 1, 1, tzinfo=UTC).timestamp())
    return now - RANGE_DAYS[range_] * 86400


# -- answer records ----------------------------------------------------------------------------
# The corporate events and sparks as the v2 answers show them: the provider's records are
# shared (BarEvents' tuples feed the backtest too; Spark has no interval or range), so each
# answer declares its members once, here (see marketdata.records.members).
@dataclass(frozen=True, slots=True)
class DatedAmount:
    """A dividend, or a capital gain distribution within a chart's events."""

    timestamp: int = member("Ex-date, Unix seconds")
    amount: float = member("Per share (a dividend's adjusted for later splits, as the chart "
                           "has it)")


@dataclass(frozen=True, slots=True)
class Split:
    timestamp: int = member("Ex-date, Unix seconds")
    numerator: float = member("Shares after the split (4 of a 4-for-1)")
    denominator: float = member("Shares before the split (1 of a 4-for-1; the larger for a "
                                "reverse split)")
    ratio: str = member("numerator:denominator, e.g. `4:1`")


@dataclass(frozen=True, slots=True)
class CapitalGain:
    # Never null; the documented shape has both members nullable and not required.
    amount: float | None = member("Per share")
    timestamp: int | None = member("Distribution date, Unix seconds")


@dataclass(frozen=True)
class DividendAnalytics:
    total_paid: float = member("Sum of the amounts")
    payment_count: int = member()
    average_payment: float | None = member("totalPaid / paymentCount; null without payments")
    cagr: float | None = member("Compound annual growth from the first to the last payment, "
                                "a fraction (0.1 = 10 %); null without two positive payments "
                                "a year apart")
    last_payment: DatedAmount | None = member("The newest dividend; null without payments")
    first_payment: DatedAmount | None = member("The oldest dividend; null without payments")


@dataclass(frozen=True)
class Dividends:
    dividends: list[DatedAmount] = member()
    analytics: DividendAnalytics = member("Totals over the dividends within `range` (all of "
                                          "them, whatever the page)")


# A batch is a Batch (marketdata.records.batches) and, for the corporate actions, each item
# is ``{symbol, <events>: [...]}``: one record each, the list's member named (and typed) by
# the answer's subclass (a redeclared field keeps its place).
@dataclass(frozen=True)
class SymbolEvents:
    symbol: str = member()
    events: list[Any] = member()


@dataclass(frozen=True)
class SymbolDividends(SymbolEvents):
    events: list[DatedAmount] = member(name="dividends")


@dataclass(frozen=True)
class DividendsBatch(Batch):
    items: list[SymbolDividends] = member(name="dividends")


@dataclass(frozen=True)
class SymbolSplits(SymbolEvents):
    events: list[Split] = member(name="splits")


@dataclass(frozen=True)
class SplitsBatch(Batch):
    items: list[SymbolSplits] = member(name="splits")


@dataclass(frozen=True)
class SymbolCapitalGains(SymbolEvents):
    events: list[CapitalGain] = member(name="capitalGains")


@dataclass(frozen=True)
class CapitalGainsBatch(Batch):
    items: list[SymbolCapitalGains] = member(name="capitalGains")


@dataclass(frozen=True)
class SparkLine:
    """A symbol's closes over the window asked for."""

    symbol: str = member(always=True)
    meta: ChartMeta = member("Yahoo's chart meta (null where Yahoo sends none; `gmtOffset` is "
                             "Yahoo's `gmtoffset`)")
    timestamps: list[int] = member("Unix seconds of each close, oldest first")
    closes: list[float] = member("The closes, one per timestamp (a bar without a close is "
                                 "left out with its timestamp)")
    interval: str = member()
    range: str = member()


@dataclass(frozen=True)
class SparkBatch(Batch):
    items: list[SparkLine] = member(name="sparks")


@dataclass(frozen=True, slots=True)
class Candle:
    """One bar of a chart: the members of its candles, which are written as their JSON at
    once (:func:`candles`: thousands of bars, no record each), in this order."""

    timestamp: int = member("Unix seconds of the bar's start")
    open: float = member()
    high: float = member()
    low: float = member()
    close: float = member()
    adj_close: float | None = member("Null when Yahoo has no adjusted close")
    volume: int = member("0 where Yahoo has none")


@dataclass(frozen=True)
class ChartEvents:
    dividends: list[DatedAmount] = member()
    splits: list[Split] = member()
    capital_gains: list[DatedAmount] = member()


@dataclass(frozen=True)
class Chart:
    """GqlChart: a symbol's candles (their JSON, :func:`candles`) with Yahoo's meta; the
    members asked for by the request only (``events``, ``patterns``) are None without it
    and then left out of the answer (:func:`chart_json`)."""

    symbol: str = member()
    interval: str = member()
    range: str | None = member("The range asked for; null for an absolute `start`/`end` "
                               "window")
    meta: ChartMeta = member("Yahoo's chart meta (null where Yahoo sends none; `gmtOffset` "
                             "is Yahoo's `gmtoffset`)")
    candles: list[Any] = member()  # each a Candle's JSON (candles())
    events: ChartEvents | None = member("Corporate events within the chart's window, oldest "
                                        "first (only with `events=true`)")
    patterns: list[str | None] | None = member("Only with `patterns=true`: one entry per "
                                               "candle")


@dataclass(frozen=True)
class SymbolChart:
    symbol: str = member()
    chart: Chart = member()


@dataclass(frozen=True)
class ChartsBatch(Batch):
    items: list[SymbolChart] = member(name="charts")


# -- charts ---------------------------------------------------------------------------------------
_CANDLE = member_names(Candle)


def candles(chart: Bars) -> list[dict[str, Any]]:
    """The chart's candles as their JSON, each the members of :class:`Candle` in its order."""
    t, o, h, lo, c, a, v = _CANDLE  # a dict display: about twice as fast as dict(zip())
    adj = repeat(None) if chart.adjclose is None else chart.adjclose
    return [{t: ts, o: op, h: hi, lo: low, c: close, a: adj_close, v: volume}
            for ts, op, hi, low, close, adj_close, volume
            in zip(chart.timestamps, chart.open, chart.high, chart.low, chart.close, adj,
                   chart.volumes(), strict=False)]


def gql_chart(symbol: str, chart: Bars, interval: str, range_: str | None, *,
              events: bool = False, patterns: bool = False) -> Chart:
    """GqlChart (+ ``events``, ``patterns`` when asked for) with candles (and patterns) as
    bare lists; the view pages them."""
    meta = ChartMeta.of(chart_meta(chart.meta))
    found = chart.events
    return Chart(meta.symbol or symbol, interval, range_, meta, candles(chart),
                 ChartEvents([DatedAmount(*item) for item in found.dividends],
                             [Split(*item) for item in found.splits],
                             [DatedAmount(*item) for item in found.capital_gains])
                 if events else None,
                 detect_patterns(chart.open, chart.high, chart.low, chart.close)
                 if patterns else None)


def chart_for(symbol_text: str, interval: str, range_: str, *, start: int | None = None,
              end: int | None = None, events: bool = False, patterns: bool = False,
              now: int | None = None) -> Chart:
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
               patterns: bool = False) -> ChartsBatch:
    """v2 batch: the charts in request order and ``[{symbol, message}]`` for the symbols
    that could not be served (request order too)."""
    return ChartsBatch(*batch_by_symbol(
        lambda s: SymbolChart(s, chart_for(s, interval, range_, patterns=patterns)),
        symbols, None, what="chart"))


_ASKED_FOR = frozenset({"events", "patterns"})


def chart_json(answer: Any) -> Any:
    """A chart answer's JSON: :func:`~marketdata.records.members.as_json`, but lists that
    hold no records are left as they are (the candles are their JSON already, and as_json
    would walk every value of thousands of them: about nine times the whole service's time for
    ten years of days), and the members the request did not ask for (a chart's ``events``,
    ``patterns``: None) are left out."""
    if is_record(answer):
        return {m.name: chart_json(value) for m in members_of(type(answer))
                if (value := getattr(answer, m.attribute)) is not None
                or m.attribute not in _ASKED_FOR or not isinstance(answer, Chart)}
    if isinstance(answer, list) and answer and is_record(answer[0]):
        return [chart_json(item) for item in answer]
    return answer


# -- corporate events ----------------------------------------------------------------------------
# The corporate events of a symbol's whole history, by the member that lists them: the
# provider's items (``(timestamp, ...)`` tuples, oldest first) and the answer's record of one.
EVENT_KINDS: dict[str, tuple[Callable[[BarEvents], list[tuple[Any, ...]]], Callable[..., Any]]] = {
    "dividends": (lambda events: events.dividends, DatedAmount),
    "splits": (lambda events: events.splits, Split),
    "capitalGains": (lambda events: events.capital_gains,
                     lambda timestamp, amount: CapitalGain(amount, timestamp)),
}


def events_for(symbol_text: str, kind: str, range_: str, now: int | None = None) -> list[Any]:
    """One kind of corporate event (:data:`EVENT_KINDS`) of a symbol, oldest first, within
    the range back from now. From the symbol's whole history (monthly bars, range max: one
    cached call for every kind and range)."""
    symbol = require_symbol(symbol_text)
    chart = price_history.chart(symbol, CAPITAL_GAINS_INTERVAL, "max")
    cutoff = range_cutoff(range_, int(time.time()) if now is None else now)
    items, record = EVENT_KINDS[kind]
    return [record(*item) for item in items(chart.events) if cutoff is None or item[0] >= cutoff]


def _events_batch(symbols: Sequence[str], kind: str, range_: str,
                  item: Callable[[str, list[Any]], Any]) -> tuple[list[Any], list[dict[str, str]]]:
    """``item(symbol, events)`` of each symbol served and ``[{symbol, message}]``, both in
    request order."""
    now = int(time.time())
    what = {"capitalGains": "capital gains"}.get(kind, kind)
    return batch_by_symbol(lambda s: item(s, events_for(s, kind, range_, now)), symbols, None,
                           what=what)


def dividends_batch(symbols: Sequence[str], range_: str) -> DividendsBatch:
    return DividendsBatch(*_events_batch(symbols, "dividends", range_, SymbolDividends))


def splits_for(symbol_text: str, range_: str) -> list[Split]:
    return events_for(symbol_text, "splits", range_)


def splits_batch(symbols: Sequence[str], range_: str) -> SplitsBatch:
    return SplitsBatch(*_events_batch(symbols, "splits", range_, SymbolSplits))


def capital_gains_for(symbol_text: str, range_: str,
                      now: int | None = None) -> list[CapitalGain]:
    """The capital gains oldest first, within the range back from now."""
    return events_for(symbol_text, "capitalGains", range_, now)


def capital_gains_batch(symbols: Sequence[str], range_: str) -> CapitalGainsBatch:
    return CapitalGainsBatch(*_events_batch(symbols, "capitalGains", range_,
                                            SymbolCapitalGains))


# A year for dividend growth: 365.25 days.
YEAR_SECONDS = 31_557_600


def dividend_analytics(dividends: Sequence[DatedAmount]) -> DividendAnalytics:
    """Totals over ``dividends`` (oldest first): the sum and the mean exact in the amounts'
    decimals (no float noise), the first and last payments, and the compound annual growth
    from the first to the last (a fraction, 0.1 is 10 %); ``cagr`` is null without two
    positive payments at least a year apart."""
    amounts = [Decimal(repr(float(item.amount))) for item in dividends]
    total = sum(amounts, Decimal(0))
    count = len(amounts)
    first = dividends[0] if dividends else None
    last = dividends[-1] if dividends else None
    cagr = None
    if first is not None and last is not None and all(a > 0 for a in amounts):
        years = (last.timestamp - first.timestamp) / YEAR_SECONDS
        if years >= 1:
            cagr = (float(last.amount) / float(first.amount)) ** (1 / years) - 1
    return DividendAnalytics(float(total), count, float(total / count) if count else None,
                             cagr, last, first)


def dividends_for(symbol_text: str, range_: str) -> Dividends:
    """The dividends within the range, oldest first, and their totals
    (:func:`dividend_analytics`)."""
    dividends = events_for(symbol_text, "dividends", range_)
    return Dividends(dividends, dividend_analytics(dividends))


# -- spark --------------------------------------------------------------------------------------
SYMBOL_NOT_FOUND = "Symbol not found"


def sparks_for(symbols: Sequence[str], interval: str, range_: str) -> SparkBatch:
    """The sparks in request order from one batch (the query already validated:
    :class:`apps.charts.serializers.V2SparkQuery`), and ``[{symbol, message}]`` for the
    symbols not served: malformed ones (never sent upstream) and the ones the source does
    not return. An upstream failure fails the whole batch: its status is the answer."""
    canonical = [(text, normalize_symbol(text)) for text in symbols]
    valid = list(dict.fromkeys(s for _, s in canonical if s is not None))
    found = market.sparks(valid, interval, range_) if valid else {}
    served: list[SparkLine] = []
    errors: list[dict[str, str]] = []
    for text, symbol in canonical:
        spark = found.get(symbol) if symbol is not None else None
        if spark is None:
            errors.append({"symbol": display_symbol(symbol or text),
                           "message": SYMBOL_NOT_FOUND})
        else:
            served.append(SparkLine(spark.symbol, ChartMeta.of(spark.meta), spark.timestamps,
                                    spark.closes, interval, range_))
    return SparkBatch(served, errors)
