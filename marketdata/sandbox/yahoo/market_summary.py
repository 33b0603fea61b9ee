"""GET /v6/finance/quote/marketSummary?lang=&region=: a region's headline instruments.

Why: the answer must agree with the quote and chart endpoints, so each item is the v7
quote of its symbol at the request's clock (formatted ``{raw, fmt}`` as Yahoo sends this
endpoint, the time as ``"4:00PM EDT"``) and its ``spark`` is the session's 5-minute
closes from the chart generator (its all-null rows included: Yahoo's line has holes too).
The list is the region's own indices, then the US list of the recording (indices, oil,
gold, silver, currencies, the 10-year yield, crypto, London and Tokyo); an unknown region
is the US list, as Yahoo answers.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from marketdata.sandbox.instruments import get_instrument
from marketdata.sandbox.prices import DailySeries, get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.chart import INTRADAY_SECONDS, build_chart
from marketdata.sandbox.yahoo.common import Request, json_response
from marketdata.sandbox.yahoo.market import MarketView, market_view
from marketdata.sandbox.yahoo.quote import format_quote_object, quote_values

US_SUMMARY = ("^GSPC", "^DJI", "^IXIC", "^RUT", "CL=F", "GC=F", "SI=F", "EURUSD=X", "^TNX",
              "GBPUSD=X", "JPY=X", "BTC-USD", "XRP-USD", "^FTSE", "^N225")
LOCAL_INDICES: dict[str, tuple[str, ...]] = {
    "GB": ("^FTSE", "^FTMC"), "DE": ("^GDAXI", "^MDAXI"), "FR": ("^FCHI",),
    "IT": ("FTSEMIB.MI",), "ES": ("^IBEX",), "JP": ("^N225",), "HK": ("^HSI",),
    "CN": ("000001.SS", "399001.SZ"), "IN": ("^BSESN", "^NSEI"), "AU": ("^AXJO", "^AORD"),
    "NZ": ("^NZ50",), "CA": ("^GSPTSE",), "BR": ("^BVSP",), "MX": ("^MXX",),
    "AR": ("^MERV",), "KR": ("^KS11",), "TW": ("^TWII",), "SG": ("^STI",),
    "MY": ("^KLSE",), "IL": ("^TA125.TA",), "TR": ("XU100.IS",),
}
# Yahoo's key order of a summary item (the spark last).
KEYS = ("fullExchangeName", "symbol", "gmtOffSetMilliseconds", "language",
        "regularMarketTime", "regularMarketChangePercent", "quoteType", "typeDisp",
        "tradeable", "regularMarketPreviousClose", "exchangeTimezoneName",
        "regularMarketChange", "cryptoTradeable", "exchangeDataDelayedBy",
        "firstTradeDateMilliseconds", "exchangeTimezoneShortName",
        "customPriceAlertConfidence", "marketState", "regularMarketPrice", "market",
        "quoteSourceName", "priceHint", "exchange", "sourceInterval", "shortName", "region",
        "triggerable", "longName")
SPARK_INTERVAL = "5m"


def summary_symbols(region: str) -> list[str]:
    return list(dict.fromkeys((*LOCAL_INDICES.get(region, ()), *US_SUMMARY)))


def _clock_text(view: MarketView) -> str:
    moment = datetime.fromtimestamp(view.snap.market_time, ZoneInfo(view.inst.tz))
    return f"{moment.strftime('%I:%M%p').lstrip('0')} {view.tz_short}"


def spark_line(series: DailySeries, now: int) -> dict[str, Any]:
    """The session's 5-minute closes, from the chart generator."""
    chart = build_chart(series, SPARK_INTERVAL, "1d", None, None, now, set())
    result = chart["chart"]["result"][0]
    meta = result["meta"]
    regular = meta["currentTradingPeriod"]["regular"]
    closes = (result["indicators"]["quote"][0] or {}).get("close", [])
    snap = market_view(series, now).snap
    return {"dataGranularity": INTRADAY_SECONDS[SPARK_INTERVAL],
            "timestamp": result.get("timestamp", []), "symbol": series.inst.symbol,
            "end": regular["end"], "start": regular["start"], "close": closes,
            "previousClose": snap.prev_close, "chartPreviousClose": meta["chartPreviousClose"]}


def summary_item(view: MarketView, lang: str, region: str, now: int) -> dict[str, Any]:
    vals = {**quote_values(view), "language": lang, "region": region}
    item = format_quote_object({k: vals[k] for k in KEYS if k in vals}, view.inst.price_hint)
    item["regularMarketTime"] = {"raw": view.snap.market_time, "fmt": _clock_text(view)}
    item["spark"] = spark_line(view.series, now)
    return item


def handle_market_summary(req: Request) -> SandboxResponse:
    region = (req.arg("region", "US") or "US").upper()
    lang = req.arg("lang", "en-US") or "en-US"
    now = req.now()
    result = []
    for symbol in summary_symbols(region):
        inst = get_instrument(symbol)
        if inst is not None:
            result.append(summary_item(market_view(get_series(inst), now), lang, region, now))
    return json_response({"marketSummaryResponse": {"result": result, "error": None}})
