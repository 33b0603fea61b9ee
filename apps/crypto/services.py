"""Crypto: CoinGecko's coins, market, trending list and search, in v2's members."""

from __future__ import annotations

from typing import Any

from marketdata.capabilities import crypto
from marketdata.errors import NotFound
from marketdata.records.crypto import Coin, is_coin_id

COIN_MEMBERS = ("id", "symbol", "name", "currentPrice", "marketCap", "priceChangePercentage24H",
                "totalVolume", "circulatingSupply", "image", "marketCapRank")
GLOBAL_MEMBERS = ("activeCryptocurrencies", "markets", "totalMarketCapUsd", "totalVolumeUsd",
                  "btcDominance", "ethDominance", "marketCapChangePercentage24HUsd")
TRENDING_MEMBERS = ("id", "symbol", "name", "marketCapRank", "priceBtc", "score")
MATCH_MEMBERS = ("symbol", "id", "name", "exchange", "assetType", "currency", "active",
                 "marketCapRank", "thumbnail", "image")


def _coin(row: Coin) -> dict[str, Any]:
    return {"id": row.id, "symbol": row.symbol, "name": row.name,
            "currentPrice": row.current_price, "marketCap": row.market_cap,
            "priceChangePercentage24H": row.price_change_percentage_24h,
            "totalVolume": row.total_volume, "circulatingSupply": row.circulating_supply,
            "image": row.image, "marketCapRank": row.market_cap_rank}


def coins(vs_currency: str, count: int) -> list[dict[str, Any]]:
    """The ``count`` largest coins, CoinGecko's order (market cap, largest first)."""
    return [_coin(row) for row in crypto.coins(vs_currency, count)[:count]]


def coin(coin_id: str, vs_currency: str) -> dict[str, Any]:
    """One coin; an id that cannot be CoinGecko's (see :func:`is_coin_id`) is a 404 without
    a call, like one CoinGecko does not list."""
    if not is_coin_id(coin_id):
        raise NotFound(f"No coin found with id {coin_id}")
    return _coin(crypto.coin(coin_id, vs_currency))


def global_market() -> dict[str, Any]:
    market = crypto.global_market()
    return {"activeCryptocurrencies": market.active_cryptocurrencies,
            "markets": market.markets, "totalMarketCapUsd": market.total_market_cap_usd,
            "totalVolumeUsd": market.total_volume_usd, "btcDominance": market.btc_dominance,
            "ethDominance": market.eth_dominance,
            "marketCapChangePercentage24HUsd": market.market_cap_change_percentage_24h_usd}


def trending() -> list[dict[str, Any]]:
    return [{"id": row.id, "symbol": row.symbol, "name": row.name,
             "marketCapRank": row.market_cap_rank, "priceBtc": row.price_btc,
             "score": row.score} for row in crypto.trending()]


def search(query: str, limit_results: int) -> list[dict[str, Any]]:
    """The first ``limit_results`` coins matching ``query`` (validated non-blank)."""
    return [{"symbol": row.symbol, "id": row.id, "name": row.name, "exchange": None,
             "assetType": "Cryptocurrency", "currency": None, "active": True,
             "marketCapRank": row.market_cap_rank, "thumbnail": row.thumbnail,
             "image": row.image} for row in crypto.search(query)[:limit_results]]
