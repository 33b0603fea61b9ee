"""Query declarations and response schemas of the v2 crypto endpoints (CoinGecko)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.params import IntegerParam, TextParam
from apps.core.v2 import FieldsQuery, PageQuery, connection_schema, nullable, object_schema
from marketdata.records.crypto import DEFAULT_VS_CURRENCY, MAX_COINS, VS_CURRENCIES


# Declared with both spellings, since both are taken (mixed case is read too).
@extend_schema_field({"type": "string",
                      "enum": [*VS_CURRENCIES, *(code.upper() for code in VS_CURRENCIES)],
                      "default": DEFAULT_VS_CURRENCY})
class VsCurrencyParam(serializers.ChoiceField):
    """``vsCurrency``: one of CoinGecko's quote currencies, any case (read lower-case);
    anything else is a 400, so no unknown text ever reaches the upstream URL."""

    def to_internal_value(self, data: Any) -> str:
        return str(super().to_internal_value(data.strip().lower() if isinstance(data, str)
                                             else data))


def vs_currency_param() -> VsCurrencyParam:
    return VsCurrencyParam(
        choices=list(VS_CURRENCIES), required=False, default=DEFAULT_VS_CURRENCY,
        help_text="Quote currency of prices, market caps and volumes: one of CoinGecko's "
                  "(`usd`, `eur`, `jpy`, `btc`, `eth`, `sats`...; any case); default usd")


class V2CoinsQuery(PageQuery):
    vsCurrency = vs_currency_param()  # noqa: N815
    count = IntegerParam(required=False, default=50, min_value=1, max_value=MAX_COINS,
                         help_text=f"How many coins, largest market cap first, 1 to "
                                   f"{MAX_COINS}; default 50")


class V2CoinQuery(FieldsQuery):
    vsCurrency = vs_currency_param()  # noqa: N815


class V2CryptoSearchQuery(PageQuery):
    query = TextParam(help_text="Text to look for in coin names, tickers and ids, e.g. "
                                "`bitcoin` or `eth`")
    limitResults = IntegerParam(  # noqa: N815
        required=False, default=25, min_value=1, max_value=100,
        help_text="How many matches to keep, best first, 1 to 100; default 25")


_PERCENT = "Percent units: 1.5 is 1.5 %, as CoinGecko sends it"
_IN_VS = "In `vsCurrency`"
COIN_SCHEMA = object_schema({
    "id": {"type": "string", "description": "CoinGecko's coin id, e.g. `bitcoin`"},
    "symbol": nullable("string", description="Ticker, lower-case as CoinGecko sends it"),
    "name": nullable("string"),
    "currentPrice": nullable("number", description=_IN_VS),
    "marketCap": nullable("number", description=_IN_VS),
    "priceChangePercentage24H": nullable("number", description="Price change over the last "
                                         f"24 hours. {_PERCENT}"),
    "totalVolume": nullable("number", description=f"Traded over the last 24 hours. {_IN_VS}"),
    "circulatingSupply": nullable("number", description="Coins in circulation"),
    "image": nullable("string", description="Logo URL"),
    "marketCapRank": nullable("integer"),
}, "One coin with its market data; `fields` selects these members",
    required=("id", "symbol", "name", "currentPrice", "marketCap", "priceChangePercentage24H",
              "totalVolume", "circulatingSupply", "image", "marketCapRank"))
COIN_SCHEMA["example"] = {
    "id": "bitcoin", "symbol": "btc", "name": "Bitcoin", "currentPrice": 64124.0,
    "marketCap": 1284561054711.0, "priceChangePercentage24H": 0.62408,
    "totalVolume": 18598448757.0, "circulatingSupply": 20042284.0,
    "image": "https://coin-images.coingecko.com/coins/images/1/large/bitcoin.png",
    "marketCapRank": 1}
COINS_SCHEMA = connection_schema(COIN_SCHEMA, "coins, largest market cap first")

GLOBAL_SCHEMA = object_schema({
    "activeCryptocurrencies": nullable("integer"),
    "markets": nullable("integer", description="Exchanges CoinGecko tracks"),
    "totalMarketCapUsd": nullable("number", description="US dollars"),
    "totalVolumeUsd": nullable("number", description="Last 24 hours, US dollars"),
    "btcDominance": nullable("number", description=f"Bitcoin's share of the market cap. "
                                                   f"{_PERCENT}"),
    "ethDominance": nullable("number", description=f"Ether's share of the market cap. "
                                                   f"{_PERCENT}"),
    "marketCapChangePercentage24HUsd": nullable("number", description="Change of the total "
                                                f"market cap over 24 hours. {_PERCENT}"),
}, "The whole crypto market; `fields` selects these members",
    required=("activeCryptocurrencies", "markets", "totalMarketCapUsd", "totalVolumeUsd",
              "btcDominance", "ethDominance", "marketCapChangePercentage24HUsd"))

TRENDING_COIN_SCHEMA = object_schema({
    "id": {"type": "string"},
    "symbol": nullable("string", description="Ticker, upper-case"),
    "name": nullable("string"),
    "marketCapRank": nullable("integer"),
    "priceBtc": nullable("number", description="Price in bitcoin"),
    "score": {"type": "integer", "description": "Place in CoinGecko's trending list, 0 first"},
}, "A trending coin; `fields` selects these members",
    required=("id", "symbol", "name", "marketCapRank", "priceBtc", "score"))
TRENDING_SCHEMA = connection_schema(TRENDING_COIN_SCHEMA, "trending coins, CoinGecko's order")

MATCH_SCHEMA = object_schema({
    "symbol": {"type": "string", "description": "Upper-case ticker (the id when none)"},
    "id": {"type": "string", "description": "CoinGecko's coin id (for /v2/crypto/coins/{id})"},
    "name": nullable("string"),
    "exchange": {"type": "null", "description": "Always null: coins trade on many exchanges"},
    "assetType": {"type": "string", "enum": ["Cryptocurrency"]},
    "currency": {"type": "null", "description": "Always null: coins have no one currency"},
    "active": {"type": "boolean", "description": "Always true (CoinGecko lists active coins)"},
    "marketCapRank": nullable("integer"),
    "thumbnail": nullable("string", description="Small logo URL"),
    "image": nullable("string", description="Large logo URL"),
}, "A coin matching the search; `fields` selects these members",
    required=("symbol", "id", "name", "exchange", "assetType", "currency", "active",
              "marketCapRank", "thumbnail", "image"))
SEARCH_SCHEMA = connection_schema(MATCH_SCHEMA, "matching coins, best match first")
