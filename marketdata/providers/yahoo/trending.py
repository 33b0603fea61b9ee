"""Yahoo's v1 trending tickers: the ``trending`` fetcher (the symbols of a region that
Yahoo's users look at most right now).

Query -> ``/v1/finance/trending/{REGION}`` (crumb-protected, with the region's
``lang``/``region``) -> ``finance.result[0].quotes[].symbol`` in Yahoo's order. Yahoo sends
symbols only; the caller fills prices from a quote batch. An answer without a result is a
502; an empty list is an empty answer.
"""

from __future__ import annotations

from typing import Any

from marketdata.errors import UpstreamBadResponse
from marketdata.formatting import text
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_provider
from marketdata.records.market import REGION_LANGUAGES


def parse_trending(payload: Any) -> list[str]:
    """``{"finance": {"result": [{"quotes": [{"symbol"}]}]}}`` -> symbols in Yahoo's order
    (upper case, duplicates and items without a symbol left out)."""
    block = payload.get("finance") if isinstance(payload, dict) else None
    result = block.get("result") if isinstance(block, dict) else None
    if not isinstance(result, list):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance trending answer has no result list")
    first = result[0] if result and isinstance(result[0], dict) else {}
    quotes = first.get("quotes")
    symbols = [text(item.get("symbol")) for item in
               (quotes if isinstance(quotes, list) else ()) if isinstance(item, dict)]
    return list(dict.fromkeys(s.upper() for s in symbols if s))


def trending(region: str) -> list[str]:
    """The ``trending`` fetcher: the trending symbols of a Region (upper case, ``GB`` not
    ``UK``), through the cache (policy ``movers``)."""

    def fetch() -> list[str]:
        return parse_trending(get_json(
            "trending", f"{yahoo.QUERY2}/v1/finance/trending/{region}",
            {"lang": REGION_LANGUAGES[region], "region": region},
            not_found=f"Yahoo Finance has no trending symbols for region {region}"))

    return yahoo_provider().cached("trending", {"region": region}, fetch, "movers",
                                   group="market")
