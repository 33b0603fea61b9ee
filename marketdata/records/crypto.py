"""Crypto-asset records: coins with their market data, the whole market, trending coins and
search matches, as CoinGecko describes them (the only source today).

Units: prices, market caps and volumes are in the request's ``vs_currency``; percentages
are percent (``0.62`` is 0.62 %), as CoinGecko sends them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The quote currencies CoinGecko prices coins in (its /simple/supported_vs_currencies), all
# lower-case: a ``vsCurrency`` outside this list is a 400 before any upstream call.
VS_CURRENCIES: tuple[str, ...] = (
    "usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "nzd", "cny", "hkd", "sgd", "krw",
    "inr", "idr", "twd", "thb", "php", "myr", "vnd", "pkr", "bdt", "lkr", "mmk", "aed",
    "sar", "bhd", "kwd", "ils", "try", "rub", "uah", "gel", "pln", "czk", "huf", "sek",
    "nok", "dkk", "zar", "ngn", "brl", "ars", "clp", "mxn", "vef", "bmd", "xdr", "xag",
    "xau", "btc", "eth", "ltc", "bch", "bnb", "eos", "xrp", "xlm", "link", "dot", "yfi",
    "sol", "bits", "sats",
)
DEFAULT_VS_CURRENCY = "usd"
# CoinGecko's coin ids ("bitcoin", "usd-coin", "wrapped-bitcoin", "0x"): lower-case
# letters, digits and dashes. Anything else names no coin (404 without a call).
COIN_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_COIN_ID_LENGTH = 100
# CoinGecko's largest page of /coins/markets.
MAX_COINS = 250


def is_coin_id(text: str) -> bool:
    return len(text) <= MAX_COIN_ID_LENGTH and COIN_ID.fullmatch(text) is not None


@dataclass(frozen=True)
class Coin:
    """One coin's market data in one quote currency."""

    id: str
    symbol: str | None  # lower-case, as CoinGecko sends it
    name: str | None
    current_price: float | None
    market_cap: float | None
    price_change_percentage_24h: float | None  # percent
    total_volume: float | None
    circulating_supply: float | None
    image: str | None
    market_cap_rank: int | None


@dataclass(frozen=True)
class GlobalMarket:
    """The whole crypto market, in US dollars; dominance and change in percent."""

    active_cryptocurrencies: int | None
    markets: int | None
    total_market_cap_usd: float | None
    total_volume_usd: float | None
    btc_dominance: float | None
    eth_dominance: float | None
    market_cap_change_percentage_24h_usd: float | None


@dataclass(frozen=True)
class TrendingCoin:
    """A coin of CoinGecko's trending list; ``score`` is its place (0 first)."""

    id: str
    symbol: str | None  # upper-case
    name: str | None
    market_cap_rank: int | None
    price_btc: float | None
    score: int


@dataclass(frozen=True)
class CoinMatch:
    """A coin matching a search, best match first."""

    id: str
    symbol: str  # the upper-case ticker, else the id
    name: str | None
    market_cap_rank: int | None
    thumbnail: str | None
    image: str | None
