"""v2 crypto: coins by market cap, one coin, the whole market, trending coins, coin search
(CoinGecko)."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import FieldsQuery, PageQuery, V2ApiView, connection_schema
from apps.crypto.serializers import COIN_EXAMPLE, V2CoinQuery, V2CoinsQuery, V2CryptoSearchQuery
from apps.crypto.services import coin, coins, search
from marketdata.capabilities import crypto
from marketdata.records.crypto import Coin, CoinMatch, GlobalMarket, TrendingCoin

TAG = "Crypto (v2)"
COIN_SCHEMA = record_schema(Coin, "One coin with its market data; `fields` selects these "
                            "members", example=COIN_EXAMPLE)


@route("v2/crypto/coins", name="v2-crypto-coins")
class V2CoinsView(V2ApiView):
    """The `count` (default 50, at most 250) largest coins by market cap, from CoinGecko:
    `[{id, symbol, name, currentPrice, marketCap, priceChangePercentage24H, totalVolume,
    circulatingSupply, image, marketCapRank}]`, prices, caps and volumes in `vsCurrency`
    (default usd), the 24-hour change in percent, values as CoinGecko sends them. A
    `vsCurrency` CoinGecko does not price in is a 400. Cached 60 s at all hours (crypto
    trades around the clock). `cursor`/`limit` page the list; `fields` applies to each
    coin."""

    query_serializer = V2CoinsQuery
    response_schema = connection_schema(COIN_SCHEMA, "coins, largest market cap first")
    csv_table = ""
    output = record_output(Coin, paged=("",))
    operation_id, tag = "get_crypto_coins", TAG
    summary = "Crypto coins by market cap"

    def get(self, request: Request) -> Response:
        return self.answer(coins(self.params["vsCurrency"], self.params["count"]))


@route("v2/crypto/coins/<str:id>", name="v2-crypto-coin")
class V2CoinView(V2ApiView):
    """One coin by its CoinGecko id (`bitcoin`, `usd-coin`), members as in
    `/v2/crypto/coins`, priced in `vsCurrency` (default usd). An id CoinGecko does not list,
    or one that cannot be an id (anything but lower-case letters, digits and dashes), is a
    404. `fields` selects members."""

    query_serializer = V2CoinQuery
    path_descriptions = {"id": {"description": "CoinGecko's coin id, e.g. `bitcoin` (see "
                                               "`/v2/crypto/search`)",
                                "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"}}
    response_schema = COIN_SCHEMA
    output = record_output(Coin)
    operation_id, tag = "get_crypto_coin", TAG
    summary = "One crypto coin"

    def get(self, request: Request, **path: str) -> Response:
        return self.answer(coin(path["id"], self.params["vsCurrency"]))


@route("v2/crypto/global", name="v2-crypto-global")
class V2CryptoGlobalView(V2ApiView):
    """The whole crypto market, from CoinGecko: `{activeCryptocurrencies, markets,
    totalMarketCapUsd, totalVolumeUsd, btcDominance, ethDominance,
    marketCapChangePercentage24HUsd}`, totals in US dollars, dominance and change in
    percent. Cached 60 s. `fields` selects members."""

    query_serializer = FieldsQuery
    response_schema = record_schema(GlobalMarket, "The whole crypto market; `fields` selects "
                                    "these members")
    output = record_output(GlobalMarket)
    operation_id, tag = "get_crypto_global", TAG
    summary = "The crypto market"

    def get(self, request: Request) -> Response:
        return self.answer(crypto.global_market())


@route("v2/crypto/trending", name="v2-crypto-trending")
class V2CryptoTrendingView(V2ApiView):
    """The coins trending on CoinGecko (most searched lately), its order: `[{id, symbol,
    name, marketCapRank, priceBtc, score}]`, `symbol` upper-case, `score` the place (0
    first), the price in bitcoin. Trending NFTs and categories are left out. Cached 60 s.
    `cursor`/`limit` page the list; `fields` applies to each coin."""

    query_serializer = PageQuery
    response_schema = connection_schema(
        record_schema(TrendingCoin, "A trending coin; `fields` selects these members"),
        "trending coins, CoinGecko's order")
    csv_table = ""
    output = record_output(TrendingCoin, paged=("",))
    operation_id, tag = "get_crypto_trending", TAG
    summary = "Trending crypto coins"

    def get(self, request: Request) -> Response:
        return self.answer(crypto.trending())


@route("v2/crypto/search", name="v2-crypto-search")
class V2CryptoSearchView(V2ApiView):
    """Coins matching `query` on CoinGecko, best match first, at most `limitResults`
    (default 25): `[{symbol, id, name, exchange, assetType, currency, active,
    marketCapRank, thumbnail, image}]`, `symbol` the upper-case ticker, `assetType`
    always `Cryptocurrency`, `exchange` and `currency` always null. No match gives `[]`; a
    missing or blank `query` is a 400. Cached 60 s. `cursor`/`limit` page the list;
    `fields` applies to each match."""

    query_serializer = V2CryptoSearchQuery
    response_schema = connection_schema(
        record_schema(CoinMatch, "A coin matching the search; `fields` selects these members"),
        "matching coins, best match first")
    output = record_output(CoinMatch, paged=("",))
    operation_id, tag = "get_crypto_search", TAG
    summary = "Crypto coin search"

    def get(self, request: Request) -> Response:
        return self.answer(search(self.params["query"], self.params["limitResults"]))
