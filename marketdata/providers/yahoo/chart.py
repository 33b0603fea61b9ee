"""v8 chart: OHLCV candles for a symbol, range and interval."""

from __future__ import annotations

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


def parse_chart(payload: Any, interval: str) -> Candles:
    """Yahoo chart JSON -> Candles. Unknown symbol / no rows -> NotFound."""
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
    meta = result.get("meta") or {}
    stamps = result.get("timestamp") or []
    quotes = ((result.get("indicators") or {}).get("quote") or [{}])[0] or {}
    adj_block = (result.get("indicators") or {}).get("adjclose")
    adj = (adj_block[0] or {}).get("adjclose") if adj_block else None
    columns = [quotes.get(name) or [] for name in ("open", "high", "low", "close", "volume")]

    rows: dict[int, tuple] = {}
    for i, ts in enumerate(stamps):
        values = [raw(col[i]) if i < len(col) else None for col in columns]
        if ts is None or any(v is None for v in values):
            continue  # Yahoo pads gaps with nulls; a partial row is not a price
        adj_value = raw(adj[i]) if adj is not None and i < len(adj) else None
        rows[int(ts)] = (*values, adj_value)  # a repeated timestamp keeps the last row
    if not rows:
        raise NotFound("No data returned for symbol")
    ordered = sorted(rows.items())
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
        if adj is not None else None,
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
