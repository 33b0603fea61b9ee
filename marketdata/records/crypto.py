"""Crypto-asset records: coins with their market data, the whole market, trending coins and
search matches, as CoinGecko describes them (the only source today).

Units: prices, market caps and volumes are in the request's ``vs_currency``; percentages
are percent (``0.62`` is 0.62 %), as CoinGecko sends them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from marketdata.records.members import member

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


_PERCENT = "Percent units: 1.5 is 1.5 %, as CoinGecko sends it"
_IN_VS = "In `vsCurrency`"


@dataclass(frozen=True)
class Coin:
    """One coin's market data in one quote currency."""

    id: str = member("CoinGecko's coin id, e.g. `bitcoin`")
    symbol: str | None = member("Ticker, lower-case as CoinGecko sends it")
    name: str | None = member()
    current_price: float | None = member(_IN_VS)
    market_cap: float | None = member(_IN_VS)
    price_change_percentage_24h: float | None = member(
        f"Price change over the last 24 hours. {_PERCENT}", name="priceChangePercentage24H")
    total_volume: float | None = member(f"Traded over the last 24 hours. {_IN_VS}")
    circulating_supply: float | None = member("Coins in circulation")
    image: str | None = member("Logo URL")
    market_cap_rank: int | None = member()


@dataclass(frozen=True)
class GlobalMarket:
    """The whole crypto market, in US dollars; dominance and change in percent."""

    active_cryptocurrencies: int | None = member()
    markets: int | None = member("Exchanges CoinGecko tracks")
    total_market_cap_usd: float | None = member("US dollars")
    total_volume_usd: float | None = member("Last 24 hours, US dollars")
    btc_dominance: float | None = member(f"Bitcoin's share of the market cap. {_PERCENT}")
    eth_dominance: float | None = member(f"Ether's share of the market cap. {_PERCENT}")
    market_cap_change_percentage_24h_usd: float | None = member(
        f"Change of the total market cap over 24 hours. {_PERCENT}",
        name="marketCapChangePercentage24HUsd")


@dataclass(frozen=True)
class TrendingCoin:
    """A coin of CoinGecko's trending list; ``score`` is its place (0 first)."""

    id: str = member()
    symbol: str | None = member("Ticker, upper-case")
    name: str | None = member()
    market_cap_rank: int | None = member()
    price_btc: float | None = member("Price in bitcoin")
    score: int = member("Place in CoinGecko's trending list, 0 first")


@dataclass(frozen=True)
class CoinMatch:
    """A coin matching a search, best match first. ``exchange``, ``asset_type``,
    ``currency`` and ``active`` are the same for every coin: the members search answers of
    other instruments have."""

    symbol: str = member("Upper-case ticker (the id when none)")
    id: str = member("CoinGecko's coin id (for /v2/crypto/coins/{id})")
    name: str | None = member()
    exchange: None = member("Always null: coins trade on many exchanges", default=None,
                            init=False)
    asset_type: Literal["Cryptocurrency"] = member(default="Cryptocurrency", init=False)
    currency: None = member("Always null: coins have no one currency", default=None,
                            init=False)
    active: bool = member("Always true (CoinGecko lists active coins)", default=True,
                          init=False)
    market_cap_rank: int | None = member()
    thumbnail: str | None = member("Small logo URL")
    image: str | None = member("Large logo URL")
