"""Crypto assets: coins with market data, the whole market, trending coins, coin search.

Sources: the ``crypto_*`` rows of :mod:`marketdata.capabilities.table` (CoinGecko).
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.records.crypto import Coin, CoinMatch, GlobalMarket, TrendingCoin


def coins(vs_currency: str, count: int) -> list[Coin]:
    """The ``count`` largest coins by market cap, priced in ``vs_currency`` (validated)."""
    found: list[Coin] = call("crypto_coins", vs_currency, count)
    return found


def coin(coin_id: str, vs_currency: str) -> Coin:
    """One coin by id (validated); NotFound when no coin has it."""
    found: Coin = call("crypto_coin", coin_id, vs_currency)
    return found


def global_market() -> GlobalMarket:
    found: GlobalMarket = call("crypto_global")
    return found


def trending() -> list[TrendingCoin]:
    found: list[TrendingCoin] = call("crypto_trending")
    return found


def search(query: str) -> list[CoinMatch]:
    """Coins matching ``query``, best match first."""
    found: list[CoinMatch] = call("crypto_search", query)
    return found
