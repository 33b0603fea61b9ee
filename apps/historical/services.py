"""Historical prices: the v1 view of a symbol's bars keyed by date, newest first."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from apps.core.symbols import require_symbol
from marketdata.capabilities import bars as price_history
from marketdata.formatting import round_half_up
from marketdata.markets import EASTERN
from marketdata.records.bars import INTRADAY, Candles


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
                      epoch: bool = False) -> dict[str, dict[str, Any]]:
    symbol = require_symbol(symbol_text)
    candles = price_history.candles(symbol, range_, interval)
    decimals = candles.decimals
    keys = bar_keys(candles, epoch)
    out: dict[str, dict[str, Any]] = {}
    for i in range(len(candles) - 1, -1, -1):
        row: dict[str, Any] = {
            "open": round_half_up(candles.open[i], decimals),
            "high": round_half_up(candles.high[i], decimals),
            "low": round_half_up(candles.low[i], decimals),
            "close": round_half_up(candles.close[i], decimals),
        }
        if candles.adjclose is not None and candles.adjclose[i] is not None:
            row["adjClose"] = round_half_up(candles.adjclose[i], decimals)
        row["volume"] = candles.volume[i]
        out.setdefault(keys[i], row)  # two bars on one key (daily dedupe): keep the newest
    return out
