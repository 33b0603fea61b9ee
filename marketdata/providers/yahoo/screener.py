"""v1 predefined screeners: the day's most active stocks, gainers and losers (the
``movers`` fetcher).

One call per (screener, count): ``/v1/finance/screener/predefined/saved?scrIds=DAY_GAINERS``.
The parser keeps raw numbers (bare or ``{raw, fmt}``) so the service formats movers the
same way as its own quotes rather than passing Yahoo's display strings through.
"""

from __future__ import annotations

from typing import Any

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.formatting import number
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_error_description, yahoo_provider
from marketdata.records.market import ScreenerQuote

SCREENER_URL = f"{yahoo.QUERY1}/v1/finance/screener/predefined/saved"

# Mover list (:data:`marketdata.records.market.MOVER_LISTS`) -> Yahoo's predefined screener.
SCREENERS = {"actives": "MOST_ACTIVES", "gainers": "DAY_GAINERS", "losers": "DAY_LOSERS"}

# Only what a mover needs: Yahoo sends ~80 fields per row otherwise.
FIELDS = ("symbol", "shortName", "longName", "regularMarketPrice", "regularMarketChange",
          "regularMarketChangePercent", "regularMarketVolume", "priceHint")


def parse_screener_quote(item: Any) -> ScreenerQuote | None:
    """A row, or None when it lacks what a mover must show (symbol, price, change, percent)."""
    if not isinstance(item, dict) or not isinstance(item.get("symbol"), str):
        return None
    price = number(item.get("regularMarketPrice"))
    change = number(item.get("regularMarketChange"))
    percent = number(item.get("regularMarketChangePercent"))
    if price is None or change is None or percent is None:
        return None
    hint = number(item.get("priceHint"))
    volume = number(item.get("regularMarketVolume"))
    symbol = item["symbol"].strip().upper()
    return ScreenerQuote(
        symbol=symbol,
        name=item.get("longName") or item.get("shortName") or symbol,
        price=price, change=change, change_percent=percent,
        volume=int(volume) if volume is not None else None,
        price_hint=int(hint) if hint is not None else 2,
    )


def _result(payload: Any) -> dict[str, Any]:
    """``finance.result[0]`` of Yahoo's envelope, or the bare result object itself (some
    recorders and proxies strip the envelope)."""
    if isinstance(payload, dict) and "finance" in payload:
        finance = payload["finance"]
        if not isinstance(finance, dict):
            raise UpstreamBadResponse("yahoo", "Yahoo Finance screener answer has no "
                                      "'finance' object")
        if finance.get("error"):
            raise UpstreamBadResponse("yahoo", "Yahoo Finance screener error: "
                                      f"{yahoo_error_description(payload)}")
        results = finance.get("result")
        if not isinstance(results, list) or not results or not isinstance(results[0], dict):
            raise UpstreamBadResponse("yahoo", "Yahoo Finance screener answer has no result")
        return results[0]
    if isinstance(payload, dict) and isinstance(payload.get("quotes"), list):
        return payload
    raise UpstreamBadResponse("yahoo", "Yahoo Finance screener answer has no quotes")


def parse_screener(payload: Any) -> list[ScreenerQuote]:
    """Screener body -> rows in Yahoo's order (its sort is the screener's ranking).

    Rows without a price, change or percent are left out rather than shown half empty.
    """
    quotes = _result(payload).get("quotes")
    if not isinstance(quotes, list):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance screener answer has no quotes")
    return [row for row in (parse_screener_quote(item) for item in quotes) if row is not None]


def fetch_screener(scr_id: str, count: int) -> list[ScreenerQuote]:
    """Rows of one predefined screener, through the cache (one entry per id and count)."""

    def fetch() -> list[ScreenerQuote]:
        params = {"scrIds": scr_id, "count": count, "formatted": "false",
                  "fields": ",".join(FIELDS), "lang": "en-US", "region": "US"}
        try:
            payload = get_json("screener", SCREENER_URL, params,
                               not_found=f"Screener {scr_id} not found")
        except NotFound as exc:
            # The ids are ours and fixed: Yahoo not knowing one is an upstream fault, and
            # must not reach clients as a 404 the endpoint does not document.
            raise UpstreamBadResponse("yahoo", f"Yahoo Finance has no screener {scr_id}",
                                      404) from exc
        return parse_screener(payload)[:count]

    return yahoo_provider().cached("screener", {"scrIds": scr_id, "count": count}, fetch,
                                   "movers", group="movers")


def movers(mover_list: str, count: int) -> list[ScreenerQuote]:
    """The ``movers`` fetcher: at most ``count`` rows of a mover list (actives, gainers,
    losers), Yahoo's order (its ranking)."""
    return fetch_screener(SCREENERS[mover_list], count)
