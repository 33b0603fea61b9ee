"""Yahoo's v7 spark: the ``spark`` fetcher (the closes of many symbols over one window).

Query -> ``/v7/finance/spark?symbols=A,B&interval=&range=&indicators=close&
includeTimestamps=true&includePrePost=false`` (crumb-protected) -> per symbol its
``spark.result[].response[0]``, which is a v8 chart result carrying the close column only.
It is read by the chart's own parser (:func:`marketdata.providers.yahoo.chart.parse_bars`,
the close standing for every price), so the meta is the chart's and a null close goes
together with its timestamp: the two lists always line up.

Yahoo refuses more than :data:`MAX_SPARK_SYMBOLS` symbols in one request, so a larger batch
is sent in that many per request. Each symbol is cached on its own (a symbol shared by two
batches is fetched once); a symbol missing from the answer is unknown.
"""

from __future__ import annotations

from typing import Any

from marketdata.cache import TTLPolicy, fetch_many_through
from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.formatting import mapping, text
from marketdata.providers import yahoo
from marketdata.providers.yahoo.chart import parse_bars
from marketdata.providers.yahoo.client import get_json
from marketdata.records.market import Spark

# The reference's spark TTLs: half a minute while markets trade, five minutes when closed.
SPARK_TTL = TTLPolicy("spark", open=30, extended=120, closed=300)
MAX_SPARK_SYMBOLS = 20


def _spark_from_chart_result(symbol: str, result: dict[str, Any], interval: str) -> Spark:
    quote = (mapping(result.get("indicators")).get("quote") or [{}])[0]
    closes = mapping(quote).get("close")
    columns = dict.fromkeys(("open", "high", "low", "close"), closes)
    chart = {"chart": {"result": [{**result, "indicators": {"quote": [columns]}}],
                       "error": None}}
    bars = parse_bars(chart, interval)
    return Spark(symbol=symbol, meta=bars.meta,
                 timestamps=list(bars.timestamps), closes=list(bars.close))


def parse_spark(payload: Any, interval: str) -> dict[str, Spark]:
    """``{"spark": {"result": [{symbol, response: [chart result]}]}}`` -> {SYMBOL: spark};
    items without a symbol or a chart result are left out (unknown). A body that is no
    spark answer is a 502."""
    block = mapping(payload).get("spark")
    if not isinstance(block, dict):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance spark answer has no 'spark' object")
    out: dict[str, Spark] = {}
    for item in block.get("result") or ():
        if not isinstance(item, dict):
            continue
        symbol = text(item.get("symbol"))
        responses = item.get("response")
        if symbol is None or not isinstance(responses, list) or not responses \
                or not isinstance(responses[0], dict):
            continue
        try:
            out[symbol.upper()] = _spark_from_chart_result(symbol.upper(), responses[0],
                                                           interval)
        except NotFound:
            continue
    return out


def sparks(symbols: list[str], interval: str, range_: str) -> dict[str, Spark]:
    """The ``spark`` fetcher: the sparks of validated symbols for a validated interval and
    range, by symbol (unknown ones absent), through the cache (one request per
    :data:`MAX_SPARK_SYMBOLS` uncached symbols)."""
    window = {"interval": interval, "range": range_}

    def batch(missing: list[str]) -> dict[str, Spark]:
        found: dict[str, Spark] = {}
        for start in range(0, len(missing), MAX_SPARK_SYMBOLS):
            chunk = missing[start:start + MAX_SPARK_SYMBOLS]
            try:
                payload = get_json("spark", f"{yahoo.QUERY1}/v7/finance/spark",
                                   {"symbols": ",".join(chunk), **window,
                                    "indicators": "close", "includeTimestamps": "true",
                                    "includePrePost": "false"})
            except NotFound:
                continue  # Yahoo's 404: none of these symbols has data
            found.update(parse_spark(payload, interval))
        return found

    return fetch_many_through("yahoo", "spark", symbols, batch, SPARK_TTL, group="historical",
                              params=window)
