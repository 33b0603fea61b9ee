"""Similar: Yahoo's recommended peers of a symbol, as v1 simple quotes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from apps.core.symbols import require_symbol
from apps.quotes.services import simple_quotes
from marketdata.capabilities import market
from marketdata.concurrency import batch_by_symbol
from marketdata.errors import NotFound
from marketdata.records.batches import Batch
from marketdata.records.market import Peer
from marketdata.records.members import member
from marketdata.symbols import normalize_symbol


def similar_quotes(symbol_text: str, limit: int) -> list[dict[str, Any]]:
    """The JSON of up to ``limit`` simple quotes (:class:`~apps.quotes.services.SimpleQuote`)
    of the symbol's peers, Yahoo's best match first.

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


# -- v2 -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SimilarSymbols:
    """The v2 answer for one symbol: its peers as the source ranks and scores them (the
    provider's :class:`~marketdata.records.market.Peer`, whose v1 answer is a quote)."""

    symbol: str = member()
    recommendations: list[Peer] = member()
    provider_id: str = member("The source: `Yahoo`")


@dataclass(frozen=True)
class SimilarSymbolsBatch(Batch):
    """The v2 batch: the served symbols' answers and the others' errors, in request order."""

    items: list[SimilarSymbols] = member(name="recommendations")


def recommendations_for(symbol_text: str, limit: int) -> SimilarSymbols:
    """Up to ``limit`` peers, as Yahoo ranks and scores them (an unknown symbol, like one
    without peers, has none)."""
    symbol = require_symbol(symbol_text)
    return SimilarSymbols(symbol, market.peers(symbol, limit)[:limit], "Yahoo")


def recommendations_batch(symbols: Sequence[str], limit: int) -> SimilarSymbolsBatch:
    """Each symbol's :func:`recommendations_for`, and the errors of those not served."""
    return SimilarSymbolsBatch(*batch_by_symbol(lambda s: recommendations_for(s, limit),
                                                symbols, None, what="recommendations"))
