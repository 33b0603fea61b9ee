"""Generated Yahoo bodies (only where no recording fits) and upstream-failure registrations."""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import requests
import responses

QUERY1 = "https://query1.finance.yahoo.com"
QUERY2 = "https://query2.finance.yahoo.com"

Row = tuple[float | None, float | None, float | None, float | None, int | None]


def chart_payload(symbol: str, timestamps: Sequence[int], rows: Sequence[Row], *,
                  adjclose: Sequence[float | None] | None = None, price_hint: int = 2,
                  timezone: str = "America/New_York", granularity: str = "1d") -> dict[str, Any]:
    """A v8 chart body in Yahoo's shape; ``rows`` are (open, high, low, close, volume)."""
    indicators: dict[str, Any] = {"quote": [{
        "open": [r[0] for r in rows], "high": [r[1] for r in rows], "low": [r[2] for r in rows],
        "close": [r[3] for r in rows], "volume": [r[4] for r in rows],
    }]}
    if adjclose is not None:
        indicators["adjclose"] = [{"adjclose": list(adjclose)}]
    return {"chart": {"result": [{
        "meta": {"currency": "USD", "symbol": symbol, "exchangeName": "NMS",
                 "instrumentType": "EQUITY", "gmtoffset": -18000, "timezone": "EST",
                 "exchangeTimezoneName": timezone, "priceHint": price_hint,
                 "dataGranularity": granularity, "range": ""},
        "timestamp": list(timestamps),
        "indicators": indicators,
    }], "error": None}}


def simple_chart(symbol: str = "AAPL", granularity: str = "1d") -> dict[str, Any]:
    """Two regular bars; daily bodies carry adjclose like Yahoo's, intraday ones don't."""
    intraday = granularity in {"1m", "5m", "15m", "30m", "1h"}
    stamps = [1705415400, 1705415700] if intraday else [1705329000, 1705415400]
    rows = [(100.0, 101.0, 99.0, 100.5, 1000), (100.5, 102.0, 100.0, 101.5, 2000)]
    return chart_payload(symbol, stamps, rows, granularity=granularity,
                         adjclose=None if intraday else [100.25, 101.25])


CHART_NOT_FOUND = {"chart": {"result": None, "error": {
    "code": "Not Found", "description": "No data found, symbol may be delisted"}}}
QUOTE_SUMMARY_NOT_FOUND = {"quoteSummary": {"result": None, "error": {
    "code": "Not Found", "description": "Quote not found for symbol: ZZZZ"}}}
EMPTY_QUOTE_RESPONSE = {"quoteResponse": {"result": [], "error": None}}


def half_up(value: float, decimals: int = 2) -> float:
    """How a person rounds the printed number: 2.675 -> 2.68, 0.125 -> 0.13."""
    return float(Decimal(repr(value)).quantize(Decimal(1).scaleb(-decimals),
                                               rounding=ROUND_HALF_UP))


# -- upstream failures -----------------------------------------------------------------------
ENDPOINT_URLS = {
    "historical": QUERY2 + "/v8/finance/chart/AAPL",
    "quotes": QUERY2 + "/v10/finance/quoteSummary/AAPL",
    "simple-quotes": QUERY1 + "/v7/finance/quote",
}
REQUESTS = {
    "historical": "/v1/historical?symbol=AAPL&range=1mo&interval=1d",
    "quotes": "/v1/quotes?symbols=AAPL",
    "simple-quotes": "/v1/simple-quotes?symbols=AAPL",
}

# failure kind -> (HTTP status the client gets, error code in the body)
FAILURES = {
    "yahoo_500": (502, "upstream_bad_response"),
    "connection_error": (503, "upstream_unavailable"),
    "timeout": (504, "upstream_timeout"),
    "yahoo_429": (429, "upstream_rate_limited"),
}


def url_pattern(url: str) -> re.Pattern[str]:
    return re.compile(re.escape(url) + r"(\?.*)?$")


def fail_url(mock: responses.RequestsMock, url: str, kind: str) -> Any:
    """Make every GET of ``url`` (any query) fail the way ``kind`` (a FAILURES key) says."""
    pattern = url_pattern(url)
    if kind == "yahoo_500":
        return mock.add(responses.GET, pattern, status=500, body="<html>Internal error</html>",
                        content_type="text/html")
    if kind == "yahoo_429":
        return mock.add(responses.GET, pattern, status=429, body="Too Many Requests",
                        content_type="text/plain")
    if kind == "connection_error":
        return mock.add(responses.GET, pattern,
                        body=requests.exceptions.ConnectionError("connection refused"))
    if kind == "timeout":
        return mock.add(responses.GET, pattern,
                        body=requests.exceptions.ReadTimeout("read timed out"))
    raise ValueError(kind)


def register_failure(mock: responses.RequestsMock, endpoint: str, kind: str) -> Any:
    return fail_url(mock, ENDPOINT_URLS[endpoint], kind)


def upstream_calls(mock: responses.RequestsMock, endpoint: str) -> list[Any]:
    url = ENDPOINT_URLS[endpoint]
    return [c for c in mock.calls if c.request.url.split("?")[0] == url]
