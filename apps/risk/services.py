"""v2 risk metrics: a symbol's bars (and a benchmark's) into :mod:`marketdata.indicators.risk`.

The bars come from :func:`marketdata.capabilities.bars.chart`, the fetch /v2/chart makes
(one cached upstream call per symbol, interval and range, so a chart and a risk answer
share cache entries); the symbol and the benchmark are fetched concurrently. Everything
else is computation. The answer is a record (:class:`RiskAnswer`): what the metrics are of,
declared here, then the metrics, declared on :class:`marketdata.indicators.risk.RiskMetrics`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np

from apps.core.symbols import require_symbol
from marketdata import exchange_hours
from marketdata.capabilities import bars as price_history
from marketdata.concurrency import run_parallel
from marketdata.errors import BadRequest, NotFound
from marketdata.indicators.risk import (
    INTRADAY_MINUTES,
    TRADING_SESSIONS,
    US_SESSION_MINUTES,
    RiskMetrics,
    common_bars,
    periods_per_year,
    risk_metrics,
)
from marketdata.records.bars import Bars
from marketdata.records.exchanges import suffix_regions
from marketdata.records.members import member
from marketdata.symbols import display_symbol, normalize_symbol

# Markets that trade around the clock: every day of the year for crypto, and (intraday)
# 24-hour sessions for crypto and currency pairs.
CRYPTO = "CRYPTOCURRENCY"
ROUND_THE_CLOCK = frozenset({CRYPTO, "CURRENCY"})
CALENDAR_DAYS = 365
DAY_MINUTES = 1440

# Yahoo's listing suffix -> the region whose main exchange's regular session sets the
# length of an intraday session (marketdata.exchange_hours); no suffix is a US listing.
# German regional floors (.F, .BE, ...) trade longer than Xetra: their bars are annualised
# as Xetra's, an approximation.
# From the one suffix table (marketdata.records.exchanges), for the regions with a calendar.
SUFFIX_REGIONS = {suffix: region for suffix, region in suffix_regions().items()
                  if region in exchange_hours.EXCHANGES}


# The prices the returns come from.
PriceBasis = Literal["adjClose", "close"]


def _minutes(start: Any, end: Any) -> int:
    return (end.hour * 60 + end.minute) - (start.hour * 60 + start.minute)


def session_minutes(symbol: str, instrument_type: str | None) -> int:
    """Minutes of trading in one regular session of the symbol's market: 24 hours for
    crypto and currency pairs; else the regular session (lunch break excluded) of the main
    exchange of the listing's region, by its Yahoo suffix (none: the US, 390); 390 for a
    suffix not in :data:`SUFFIX_REGIONS` or a region whose calendar cannot be built."""
    if instrument_type in ROUND_THE_CLOCK:
        return DAY_MINUTES
    suffix = symbol.rsplit(".", 1)[1] if "." in symbol.lstrip("^") else ""
    region = SUFFIX_REGIONS.get(suffix) if suffix else "US"
    if region is None or region == "US":
        return US_SESSION_MINUTES
    try:
        schedule = exchange_hours.schedule_for(region)
    except Exception:  # noqa: BLE001 - the package's errors vary by calendar
        return US_SESSION_MINUTES
    # A calendar's regular hours, or the documented hours of an exchange without one.
    hours = getattr(schedule, "regular", None) or getattr(schedule, "hours", None)
    if hours is None:
        return US_SESSION_MINUTES
    minutes = _minutes(hours.open, hours.close)
    if hours.break_start is not None and hours.break_end is not None:
        minutes -= _minutes(hours.break_start, hours.break_end)
    return minutes if minutes > 0 else US_SESSION_MINUTES


def annualisation(symbol: str, interval: str, instrument_type: str | None) -> float:
    """Periods per year for the symbol's bars of ``interval`` (see
    :func:`marketdata.indicators.risk.periods_per_year`): 365 sessions a year for crypto,
    252 otherwise; intraday, the session's length from :func:`session_minutes`."""
    sessions = CALENDAR_DAYS if instrument_type == CRYPTO else TRADING_SESSIONS
    if interval not in INTRADAY_MINUTES:
        return periods_per_year(interval, sessions=sessions)
    return periods_per_year(interval, sessions=sessions,
                            session_minutes=session_minutes(symbol, instrument_type))


def _zone(bars: Bars) -> ZoneInfo | None:
    name = bars.meta.get("exchangeTimezoneName")
    try:
        return ZoneInfo(name) if isinstance(name, str) and name else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


def priced_bars(bars: Bars, interval: str, *, adjusted: bool = True,
                ) -> tuple[list[Any], list[int], np.ndarray, PriceBasis]:
    """The bars a return is taken from: ``(keys, timestamps, prices, basis)``.

    Daily and longer bars use the adjusted close (splits and dividends folded in, so a
    return is the holder's) when the source has one for every bar (and ``adjusted``), the
    close otherwise;
    intraday bars use the close (Yahoo has no adjusted intraday close). Bars without a
    finite positive price are left out. The key matches a bar with the benchmark's: the
    session date in the exchange's time zone for daily and longer bars (two markets' daily
    bars carry different times of day), the timestamp for intraday bars. A key seen twice
    keeps its last bar.
    """
    intraday = interval in INTRADAY_MINUTES
    adjclose = bars.adjclose
    use_adjusted = (adjusted and not intraday and adjclose is not None
                    and all(v is not None for v in adjclose))
    column: list[float | None] = list(adjclose) if use_adjusted and adjclose is not None \
        else list(bars.close)
    zone = None if intraday else _zone(bars)
    offset = bars.meta.get("gmtOffset") or 0
    by_key: dict[Any, tuple[int, float]] = {}
    for ts, value in zip(bars.timestamps, column, strict=True):
        price = float(value) if value is not None else math.nan
        if not math.isfinite(price) or price <= 0:
            continue
        if intraday:
            key: Any = ts
        elif zone is not None:
            key = datetime.fromtimestamp(ts, zone).date()
        else:
            key = datetime.fromtimestamp(ts + offset, UTC).date()
        by_key.pop(key, None)
        by_key[key] = (ts, price)
    keys = list(by_key)
    stamps = [ts for ts, _ in by_key.values()]
    prices = np.array([price for _, price in by_key.values()], dtype=np.float64)
    return keys, stamps, prices, "adjClose" if use_adjusted else "close"


def _fetch(symbol: str, benchmark: str | None, interval: str,
           range_: str) -> tuple[Bars, Bars | None]:
    """The symbol's bars and the benchmark's, fetched concurrently. The symbol's failure
    is reported first; an unknown benchmark is a 404 naming it."""
    wanted = [symbol] if benchmark is None else [symbol, benchmark]
    outcomes = run_parallel(lambda s: price_history.chart(s, interval, range_), wanted)
    mine = outcomes[0]
    if isinstance(mine, BaseException):
        raise mine
    if benchmark is None:
        return mine, None
    theirs = outcomes[1]
    if isinstance(theirs, NotFound):
        raise NotFound(f"Benchmark not found: '{benchmark}'")
    if isinstance(theirs, BaseException):
        raise theirs
    return mine, theirs


@dataclass(frozen=True)
class RiskWindow:
    """What the metrics of a risk answer are of: the series, the bars, the annualisation."""

    symbol: str = member("The symbol, as the chart names it")
    benchmark: str | None = member("The benchmark, as its chart names it; null without one")
    interval: str = member("Bar interval the returns are taken at")
    range: str = member("History window")
    price_basis: PriceBasis = member(
        "Prices the returns come from: `adjClose` (daily and longer bars with an adjusted "
        "close on every bar, of the symbol and of the benchmark) or `close`")
    observations: int = member("Returns of the symbol (bars - 1)")
    benchmark_observations: int | None = member(
        "Returns on the bars both the symbol and the benchmark have (same session date; same "
        "timestamp for intraday bars); the relative metrics use these; null without "
        "`benchmark`")
    periods_per_year: float = member(
        "Bars per year used to annualise: 252 sessions for 1d (365 for crypto), a fifth of it "
        "for 5d, 52/12/4 for 1wk/1mo/3mo; intraday, sessions x bars per regular session of "
        "the listing's exchange")
    start: int = member("Timestamp of the first priced bar (Unix s)")
    end: int = member("Timestamp of the last priced bar (Unix s)")


@dataclass(frozen=True)
class RiskAnswer(RiskMetrics, RiskWindow):
    """The risk answer: the window's members, then every metric (a dataclass takes its
    bases' fields from the last base to the first)."""


def risk_for(symbol_text: str, interval: str, range_: str,
             benchmark_text: str | None = None) -> RiskAnswer:
    """The risk answer of one symbol (the query already validated: see
    :class:`apps.risk.serializers.V2RiskQuery`)."""
    symbol = require_symbol(symbol_text)
    benchmark = None
    if benchmark_text is not None:
        benchmark = normalize_symbol(benchmark_text)
        if benchmark is None:
            raise NotFound(f"Benchmark not found: '{display_symbol(benchmark_text)}'")
    bars, benchmark_bars = _fetch(symbol, benchmark, interval, range_)
    keys, stamps, prices, basis = priced_bars(bars, interval)
    name = bars.symbol or symbol
    if len(prices) < 3:
        raise BadRequest(
            f"Not enough data to compute risk metrics: they need at least 2 returns (3 "
            f"prices); {name} has {len(prices)} priced bars for range {range_} and interval "
            f"{interval}")
    instrument_type = bars.meta.get("instrumentType")
    periods = annualisation(name, interval, instrument_type)
    paired = None
    common = None
    if benchmark_bars is not None:
        # Both series on the same footing: adjusted closes only when both have them.
        b_keys, _, b_prices, b_basis = priced_bars(benchmark_bars, interval)
        if basis != b_basis:
            keys, stamps, prices, basis = priced_bars(bars, interval, adjusted=False)
            b_keys, _, b_prices, _ = priced_bars(benchmark_bars, interval, adjusted=False)
        paired = common_bars(keys, prices, b_keys, b_prices)
        common = max(len(paired[0]) - 1, 0)
    metrics = risk_metrics(prices, periods, paired=paired)
    return RiskAnswer(
        symbol=name,
        benchmark=None if benchmark_bars is None else (benchmark_bars.symbol or benchmark),
        interval=interval, range=range_, price_basis=basis, observations=len(prices) - 1,
        benchmark_observations=common, periods_per_year=periods, start=stamps[0],
        end=stamps[-1], **asdict(metrics))
