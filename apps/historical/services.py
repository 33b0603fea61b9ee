"""Historical prices: the v1 view of a symbol's bars keyed by date, newest first."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from apps.core.symbols import require_symbol
from marketdata.capabilities import bars as price_history
from marketdata.formatting import round_half_up
from marketdata.markets import EASTERN
from marketdata.records.bars import INTRADAY, Candles
from marketdata.records.members import DOUBLE, INT64, member


@dataclass(frozen=True, slots=True)
class HistoricalData:
    """The v1 HistoricalData: one bar, its prices rounded to the instrument's precision."""

    open: float = member(schema=DOUBLE)
    high: float = member(schema=DOUBLE)
    low: float = member(schema=DOUBLE)
    close: float = member(schema=DOUBLE)
    adj_close: float | None = member("Daily and longer intervals", optional=True,
                                     schema=DOUBLE)
    volume: int = member(schema=INT64)


def _zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name) if name else EASTERN
    except (KeyError, ValueError):
        return EASTERN


def bar_keys(candles: Candles, epoch: bool) -> list[str]:
    """Keys for each bar: epoch seconds, US/Eastern wall time (intraday), or the session
    date in the exchange's own time zone (daily and longer: a Tokyo session dated in New
    York would fall on the previous day)."""
    if epoch:
        return [str(ts) for ts in candles.timestamps]
    if candles.interval in INTRADAY:
        return [datetime.fromtimestamp(ts, EASTERN).strftime("%Y-%m-%d %H:%M:%S")
                for ts in candles.timestamps]
    zone = _zone(candles.exchange_timezone)
    return [datetime.fromtimestamp(ts, UTC).astimezone(zone).strftime("%Y-%m-%d")
            for ts in candles.timestamps]


def historical_prices(symbol_text: str, range_: str, interval: str,
                      epoch: bool = False) -> dict[str, HistoricalData]:
    """The bars by :func:`bar_keys`, newest first."""
    symbol = require_symbol(symbol_text)
    candles = price_history.candles(symbol, range_, interval)
    decimals = candles.decimals
    keys = bar_keys(candles, epoch)
    out: dict[str, HistoricalData] = {}
    for i in range(len(candles) - 1, -1, -1):
        if keys[i] in out:  # two bars on one key (daily dedupe): keep the newest
            continue
        adjusted = candles.adjclose[i] if candles.adjclose is not None else None
        out[keys[i]] = HistoricalData(
            round_half_up(candles.open[i], decimals), round_half_up(candles.high[i], decimals),
            round_half_up(candles.low[i], decimals), round_half_up(candles.close[i], decimals),
            None if adjusted is None else round_half_up(adjusted, decimals),
            candles.volume[i])
    return out
