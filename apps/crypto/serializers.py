"""Query declarations of the v2 crypto endpoints (CoinGecko); their answers are the records
of :mod:`marketdata.records.crypto`."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.params import IntegerParam, TextParam
from apps.core.v2 import FieldsQuery, PageQuery
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


# The example of one coin's answer (its members are the record's: marketdata.records.crypto).
COIN_EXAMPLE = {
    "id": "bitcoin", "symbol": "btc", "name": "Bitcoin", "currentPrice": 64124.0,
    "marketCap": 1284561054711.0, "priceChangePercentage24H": 0.62408,
    "totalVolume": 18598448757.0, "circulatingSupply": 20042284.0,
    "image": "https://coin-images.coingecko.com/coins/images/1/large/bitcoin.png",
    "marketCapRank": 1}
