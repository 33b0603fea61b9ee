"""Similar: Yahoo's recommended peers of a symbol, as v1 simple quotes."""

from __future__ import annotations

from typing import Any

from apps.core.symbols import require_symbol
from apps.quotes.services import simple_quotes
from marketdata.capabilities import market
from marketdata.errors import NotFound
from marketdata.symbols import normalize_symbol


def similar_quotes(symbol_text: str, limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` simple quotes of the symbol's peers, Yahoo's best match first.

    The symbol itself is never in its own answer; one extra peer is asked for so the answer
    still has ``limit`` items when Yahoo lists the symbol among its peers. 404 when there
    are no peers (Yahoo answers an unknown symbol the same way) or none of them quotes.
    """
    symbol = require_symbol(symbol_text)
    peers: list[str] = []
    for found in market.peers(symbol, limit + 1):
        peer = normalize_symbol(found.symbol)
        if peer is not None and peer != symbol and peer not in peers:
            peers.append(peer)
    message = f"No similar stocks found for {symbol}."
    if not peers:
        raise NotFound(message)
    try:
        # A spare peer in case one does not quote; more would only cost a bigger batch.
        quotes = simple_quotes(peers[:limit + 1])
    except NotFound as exc:
        raise NotFound(message) from exc
    return quotes[:limit]
