"""Yahoo's v6 market summary: the ``market_summary`` fetcher (the instruments Yahoo shows
atop a region's pages: its main indices, futures, rates, currencies and crypto).

Query -> ``/v6/finance/quote/marketSummary`` (crumb-protected, with the region's
``lang``/``region``) -> ``marketSummaryResponse.result[]`` as
:class:`marketdata.records.market.MarketSummaryItem`, in Yahoo's order. The price members
keep Yahoo's ``{raw, fmt}`` form so the client's ``format`` applies after the cache;
``spark`` is the intraday line as sent (null closes kept, aligned with their timestamps). An
answer without a result list is a 502.
"""

from __future__ import annotations

from typing import Any

from marketdata.errors import UpstreamBadResponse
from marketdata.formatting import integer, json_number, mapping, number, raw, text
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_provider
from marketdata.providers.yahoo.full_quote import usable_value
from marketdata.records.market import (
    REGION_LANGUAGES,
    MarketSummaryItem,
    SummarySpark,
)
from marketdata.records.quotes import NUMBER


def parse_spark(value: Any) -> SummarySpark | None:
    """A summary item's ``spark`` -> its line; None when absent. A pair without a timestamp
    is left out; the longer list is cut to the shorter, so positions always match."""
    if not isinstance(value, dict):
        return None
    stamps, closes = value.get("timestamp"), value.get("close")
    pairs = zip(stamps if isinstance(stamps, list) else (),
                closes if isinstance(closes, list) else (), strict=False)
    kept = [(ts, json_number(raw(close))) for stamp, close in pairs
            if (ts := integer(stamp)) is not None]
    return SummarySpark(symbol=text(value.get("symbol")),
                        timestamps=[ts for ts, _ in kept], closes=[c for _, c in kept],
                        previous_close=number(value.get("previousClose")),
                        chart_previous_close=number(value.get("chartPreviousClose")))


def parse_summary_item(item: dict[str, Any]) -> MarketSummaryItem | None:
    """One result -> item; None without a symbol."""
    symbol = text(item.get("symbol"))
    if symbol is None:
        return None
    return MarketSummaryItem(
        symbol=symbol, short_name=text(item.get("shortName")),
        exchange=text(item.get("exchange")),
        full_exchange_name=text(item.get("fullExchangeName")),
        quote_type=text(item.get("quoteType")), market_state=text(item.get("marketState")),
        regular_market_price=usable_value(NUMBER, item.get("regularMarketPrice")),
        regular_market_change=usable_value(NUMBER, item.get("regularMarketChange")),
        regular_market_change_percent=usable_value(NUMBER,
                                                   item.get("regularMarketChangePercent")),
        regular_market_previous_close=usable_value(NUMBER,
                                                   item.get("regularMarketPreviousClose")),
        regular_market_time=usable_value(NUMBER, item.get("regularMarketTime")),
        spark=parse_spark(item.get("spark")))


def parse_market_summary(payload: Any) -> list[MarketSummaryItem]:
    """``{"marketSummaryResponse": {"result": [...]}}`` -> items in Yahoo's order."""
    result = mapping(mapping(payload).get("marketSummaryResponse")).get("result")
    if not isinstance(result, list):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance market summary answer has no "
                                           "result list")
    return [parsed for item in result if isinstance(item, dict)
            and (parsed := parse_summary_item(item)) is not None]


def market_summary(region: str, lang: str | None = None) -> list[MarketSummaryItem]:
    """The ``market_summary`` fetcher: a Region's summary (``GB``, not ``UK``), texts in
    ``lang`` (the region's own language when None), through the cache (policy
    ``indices``)."""
    language = lang or REGION_LANGUAGES[region]

    def fetch() -> list[MarketSummaryItem]:
        return parse_market_summary(get_json(
            "market_summary", f"{yahoo.QUERY2}/v6/finance/quote/marketSummary",
            {"lang": language, "region": region},
            not_found=f"Yahoo Finance has no market summary for region {region}"))

    return yahoo_provider().cached("market_summary", {"region": region, "lang": language},
                                   fetch, "indices", group="market")
