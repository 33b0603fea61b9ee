"""Crypto assets: coins with market data, the whole market, trending coins, coin search.

Sources: CoinGecko (keyless) for each.
"""

from __future__ import annotations

from marketdata.capabilities.table import Source, declare
from marketdata.records.crypto import Coin, CoinMatch, GlobalMarket, TrendingCoin

COINGECKO = "marketdata.providers.coingecko"


@declare("crypto_coins", "Crypto coins by market cap (/v2/crypto/coins)",
         Source("coingecko", "CoinGecko /coins/markets", fetcher=f"{COINGECKO}:coins"))
def coins(vs_currency: str, count: int) -> list[Coin]:
    """The ``count`` largest coins by market cap, priced in ``vs_currency`` (validated)."""


@declare("crypto_coin", "One crypto coin (/v2/crypto/coins/{id})",
         Source("coingecko", "CoinGecko /coins/markets", fetcher=f"{COINGECKO}:coin"))
def coin(coin_id: str, vs_currency: str) -> Coin:
    """One coin by id (validated); NotFound when no coin has it."""


@declare("crypto_global", "The crypto market (/v2/crypto/global)",
         Source("coingecko", "CoinGecko /global", fetcher=f"{COINGECKO}:global_market"))
def global_market() -> GlobalMarket:
    """The whole crypto market: its capitalisation, volume and dominance."""


@declare("crypto_trending", "Trending crypto coins (/v2/crypto/trending)",
         Source("coingecko", "CoinGecko /search/trending", fetcher=f"{COINGECKO}:trending"))
def trending() -> list[TrendingCoin]:
    """The coins trending on the source, its order."""


@declare("crypto_search", "Crypto coin search (/v2/crypto/search)",
         Source("coingecko", "CoinGecko /search", fetcher=f"{COINGECKO}:search"))
def search(query: str) -> list[CoinMatch]:
    """Coins matching ``query``, best match first."""
