"""Yahoo's v1 currencies: the ``currencies`` fetcher (the currencies Yahoo quotes).

Query -> ``/v1/finance/currencies`` (crumb-protected) -> ``currencies.result`` as
:class:`marketdata.records.market.CurrencyInfo`, in Yahoo's order, names as sent. An
answer without a result list is a 502; an empty list is an empty answer.
"""

from __future__ import annotations

from typing import Any

from marketdata.cache import TTLPolicy
from marketdata.errors import UpstreamBadResponse
from marketdata.formatting import text
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_provider
from marketdata.records.market import CurrencyInfo

# The list changes a few times a year.
CURRENCIES_TTL = TTLPolicy("currencies", open=86400, extended=86400, closed=86400,
                           market_aware=False)


def _text(value: Any) -> str | None:
    """A name as sent (not collapsed), None when missing or empty."""
    return text(value, clean=False) or None


def parse_currencies(payload: Any) -> list[CurrencyInfo]:
    """``{"currencies": {"result": [...]}}`` -> records; items without a symbol skipped."""
    block = payload.get("currencies") if isinstance(payload, dict) else None
    result = block.get("result") if isinstance(block, dict) else None
    if not isinstance(result, list):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance currencies answer has no result "
                                           "list")
    return [CurrencyInfo(symbol=item["symbol"], short_name=_text(item.get("shortName")),
                         long_name=_text(item.get("longName")),
                         local_long_name=_text(item.get("localLongName")))
            for item in result
            if isinstance(item, dict) and _text(item.get("symbol")) is not None]


def currencies() -> list[CurrencyInfo]:
    """The ``currencies`` fetcher, through the cache (a day)."""

    def fetch() -> list[CurrencyInfo]:
        return parse_currencies(get_json("currencies", f"{yahoo.QUERY1}/v1/finance/currencies",
                                         {"lang": "en-US", "region": "US"}))

    return yahoo_provider().cached("currencies", {}, fetch, CURRENCIES_TTL, group="forex")
