"""v6 finance/recommendationsbysymbol/{SYMBOL}: Yahoo's "people also watch" peers (the
``similar`` fetcher).

Wire shape: ``{"finance": {"result": [{"symbol", "recommendedSymbols": [{"symbol",
"score"}]}], "error": null}}``, best score first, ``count`` peers at most (Yahoo's default
is 5). A symbol with no peers answers ``result: []``; a comma list of symbols gets one
result per symbol.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from marketdata.errors import UpstreamBadResponse
from marketdata.formatting import raw
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_provider
from marketdata.records.market import Peer

# The record's name here before it moved to the records.
Recommendation = Peer


def parse_recommendations(payload: Any, symbol: str) -> list[Recommendation]:
    """The peers Yahoo recommends for ``symbol`` (empty when it has none), best first.

    When the body answers several symbols, the result for ``symbol`` is used.
    """
    body = payload.get("finance") if isinstance(payload, dict) else None
    if not isinstance(body, dict) or not isinstance(body.get("result", []), list | None):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance recommendations answer has no "
                                  "'finance.result' list")
    results = [r for r in body.get("result") or [] if isinstance(r, dict)]
    wanted = symbol.upper()
    match = next((r for r in results if str(r.get("symbol", "")).upper() == wanted), None)
    if match is None:
        return []
    out: list[Recommendation] = []
    for item in match.get("recommendedSymbols") or []:
        if isinstance(item, dict) and isinstance(item.get("symbol"), str) and item["symbol"]:
            score = raw(item.get("score"))
            out.append(Recommendation(item["symbol"].upper(),
                                      float(score) if isinstance(score, int | float) else None))
    return out


def fetch_recommendations(symbol: str, count: int) -> list[Recommendation]:
    """The ``similar`` fetcher: up to ``count`` peers of a validated symbol, through the
    cache ("similar" policy).

    An unknown symbol is not an error for Yahoo: it answers an empty list like a symbol
    without peers, so both come back as ``[]``.
    """

    def fetch() -> list[Recommendation]:
        payload = get_json(
            "recommendations",
            f"{yahoo.QUERY2}/v6/finance/recommendationsbysymbol/{quote(symbol, safe='')}",
            {"count": count}, not_found=f"No similar stocks found for {symbol}")
        return parse_recommendations(payload, symbol)

    return yahoo_provider().cached("recommendations", {"symbol": symbol, "count": count},
                                   fetch, "similar", group="similar")
