"""GET /v7/finance/spark?symbols=A,B&interval=&range=: closes of many symbols at once.

Why: Yahoo's spark item is its v8 chart result with the close column only, so each item is
the chart generator's own answer for the symbol (``build_chart``: the same bars, meta and
intraday null rows as ``/v8/finance/chart``) reduced to ``meta``, ``timestamp`` and
``indicators.quote[0].close``. As on Yahoo: at most 20 symbols (400 beyond), interval and
range checked like the chart's, unknown symbols left out, and a 404 when none is known.
``includeTimestamps=false`` leaves the timestamps out.
"""

from __future__ import annotations

from typing import Any

from marketdata.sandbox.prices import series_for
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.chart import RANGES, VALID_INTERVALS, build_chart
from marketdata.sandbox.yahoo.common import Request, error_response, json_response

MAX_SYMBOLS = 20


def _error(code: str, description: str, status: int) -> SandboxResponse:
    return error_response("spark", code, description, status)


def spark_item(symbol: str, interval: str, range_: str, now: int,
               timestamps: bool = True) -> dict[str, Any] | None:
    """One ``spark.result`` item, or None for a symbol the sandbox does not know."""
    series = series_for(symbol)
    if series is None:
        return None
    chart = build_chart(series, interval, range_, None, None, now, set())["chart"]["result"][0]
    response: dict[str, Any] = {"meta": chart["meta"]}
    if timestamps and "timestamp" in chart:
        response["timestamp"] = chart["timestamp"]
    quote = chart["indicators"]["quote"][0] or {}
    response["indicators"] = {"quote": [{"close": quote["close"]} if "close" in quote else {}]}
    return {"symbol": symbol, "response": [response]}


def handle_spark(req: Request) -> SandboxResponse:
    raw = ",".join(req.query.get("symbols", []))
    symbols = list(dict.fromkeys(s.strip().upper() for s in raw.split(",") if s.strip()))
    if not symbols:
        return _error("Bad Request", 'Missing value for the "symbols" argument', 400)
    if len(symbols) > MAX_SYMBOLS:
        return _error("Bad Request", f"Invalid Number of Symbols: Maximum of {MAX_SYMBOLS} "
                                     "symbols allowed", 400)
    interval = req.arg("interval", "1d") or "1d"
    range_ = req.arg("range", "1d") or "1d"
    if interval not in VALID_INTERVALS:
        return _error("Bad Request", f"Invalid input - interval={interval} is not supported",
                      400)
    if range_ not in RANGES:
        return _error("Bad Request", f"Invalid input - range={range_} is not supported", 400)
    with_timestamps = (req.arg("includeTimestamps", "false") or "").lower() == "true"
    now = req.now()
    result = [item for symbol in symbols
              if (item := spark_item(symbol, interval, range_, now, with_timestamps))]
    if not result:
        return _error("Not Found", "No data found for spark symbols", 404)
    return json_response({"spark": {"result": result, "error": None}})
