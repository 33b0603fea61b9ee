"""Crypto: what the views compute beyond the capability's answer (a page of coins, an id
checked before any call, a cut list of matches); the whole market and the trending coins
are the capability's answers as they are, which the views serve directly. The records'
members are declared on them (:mod:`marketdata.records.crypto`)."""

from __future__ import annotations

from marketdata.capabilities import crypto
from marketdata.errors import NotFound
from marketdata.records.crypto import Coin, CoinMatch, is_coin_id


def coins(vs_currency: str, count: int) -> list[Coin]:
    """The ``count`` largest coins, CoinGecko's order (market cap, largest first)."""
    return crypto.coins(vs_currency, count)[:count]


def coin(coin_id: str, vs_currency: str) -> Coin:
    """One coin; an id that cannot be CoinGecko's (see :func:`is_coin_id`) is a 404 without
    a call, like one CoinGecko does not list."""
    if not is_coin_id(coin_id):
        raise NotFound(f"No coin found with id {coin_id}")
    return crypto.coin(coin_id, vs_currency)


def search(query: str, limit_results: int) -> list[CoinMatch]:
    """The first ``limit_results`` coins matching ``query`` (validated non-blank)."""
    return crypto.search(query)[:limit_results]
