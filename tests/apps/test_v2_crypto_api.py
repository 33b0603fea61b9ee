"""GET /v2/crypto/coins, /v2/crypto/coins/{id}, /v2/crypto/global, /v2/crypto/trending and
/v2/crypto/search: CoinGecko's recorded /coins/markets through the endpoints (values exact),
hand-written /global, /search/trending and /search bodies in CoinGecko's documented shapes
(no recording of those exists), the 400s before any call (``vsCurrency`` never spliced into
the URL), the 404s, the upstream failures naming the provider, the optional Demo key, the
cache at all hours, and the sandbox (agreeing with the Yahoo sandbox's BTC-USD)."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from marketdata.markets import MarketPhase
from marketdata.providers import coingecko
from tests.apps.payloads import FAILURES, fail_url
from tests.conftest import calls_to

REC = "coingecko/coins-markets/coins-markets-finance-query.json"
API = "https://api.coingecko.com/api/v3"
MARKETS = f"{API}/coins/markets"
COIN_MEMBERS = ["id", "symbol", "name", "currentPrice", "marketCap",
                "priceChangePercentage24H", "totalVolume", "circulatingSupply", "image",
                "marketCapRank"]
GLOBAL = {"data": {
    "active_cryptocurrencies": 17418, "upcoming_icos": 0, "ongoing_icos": 49,
    "ended_icos": 3376, "markets": 1294,
    "total_market_cap": {"btc": 33795226.5, "eth": 1028153021.2, "usd": 3276041123961.8},
    "total_volume": {"btc": 1075836.2, "usd": 104290186120.6},
    "market_cap_percentage": {"btc": 57.12455, "eth": 12.4478, "usdt": 4.6},
    "market_cap_change_percentage_24h_usd": -1.2041832, "updated_at": 1764201600}}
TRENDING = {"coins": [
    {"item": {"id": "pepe", "coin_id": 29850, "name": "Pepe", "symbol": "pepe",
              "market_cap_rank": 32, "thumb": "https://t/pepe.png", "price_btc": 1.27e-10,
              "score": 0}},
    {"item": {"id": "solana", "coin_id": 4128, "name": "Solana", "symbol": "SOL",
              "market_cap_rank": 7, "thumb": "https://t/sol.png", "price_btc": 0.00213,
              "score": 1}},
    {"item": {"name": "no id"}},
], "nfts": [{"id": "pudgy-penguins", "name": "Pudgy Penguins"}],
    "categories": [{"id": 1, "name": "Meme"}]}
SEARCH = {"coins": [
    {"id": "ethereum", "name": "Ethereum", "api_symbol": "ethereum", "symbol": "ETH",
     "market_cap_rank": 2, "thumb": "https://t/eth.png", "large": "https://l/eth.png"},
    {"id": "ethereum-classic", "name": "Ethereum Classic", "api_symbol": "ethereum-classic",
     "symbol": "etc", "market_cap_rank": 35, "thumb": "https://t/etc.png",
     "large": "https://l/etc.png"},
    {"id": "no-ticker", "name": "No Ticker", "symbol": "", "market_cap_rank": None,
     "thumb": None, "large": None},
], "exchanges": [], "icos": [], "categories": [], "nfts": []}


@pytest.fixture(autouse=True)
def _unpaced(monkeypatch):
    # Real calls are spaced seconds apart; the tests' mocked upstream needs no pace.
    monkeypatch.setattr(coingecko, "KEYLESS_INTERVAL_SECONDS", 0.0)
    monkeypatch.setattr(coingecko, "DEMO_KEY_INTERVAL_SECONDS", 0.0)


def serve(yahoo, url: str, body: Any, status: int = 200, **kwargs: Any) -> None:
    yahoo.mock.add(responses.GET, re.compile(re.escape(url) + r"(\?.*)?$"),
                   body=json.dumps(body), status=status, content_type="application/json",
                   **kwargs)


def cg_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "api.coingecko.com")


def query_of(call) -> dict[str, list[str]]:
    return parse_qs(urlsplit(call.request.url).query)


def expected(row: dict[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "symbol": row["symbol"], "name": row["name"],
            "currentPrice": row["current_price"], "marketCap": row["market_cap"],
            "priceChangePercentage24H": row["price_change_percentage_24h"],
            "totalVolume": row["total_volume"], "circulatingSupply": row["circulating_supply"],
            "image": row["image"], "marketCapRank": row["market_cap_rank"]}


# -- /v2/crypto/coins -----------------------------------------------------------------------
def test_coins_from_the_recording(api, yahoo, recording):
    rows = recording(REC)
    serve(yahoo, MARKETS, rows)
    response = api.get("/v2/crypto/coins")
    assert response.status_code == 200, response.content
    body = response.json()
    assert len(body) == 50
    assert body[0] == {
        "id": "bitcoin", "symbol": "btc", "name": "Bitcoin", "currentPrice": 64124.0,
        "marketCap": 1284561054711.0, "priceChangePercentage24H": 0.62408,
        "totalVolume": 18598448757.0, "circulatingSupply": 20042284.0,
        "image": "https://coin-images.coingecko.com/coins/images/1/large/bitcoin.png"
                 "?1696501400",
        "marketCapRank": 1}
    assert body[-1]["id"] == "polkadot" and body[-1]["currentPrice"] == 0.981583
    # A coin CoinGecko sends without a 24-hour change keeps the member, null.
    usyc = next(coin for coin in body if coin["id"] == "hashnote-usyc")
    assert usyc["priceChangePercentage24H"] is None and usyc["marketCapRank"] == 31
    assert body == [expected(row) for row in rows]
    (call,) = cg_calls(yahoo)
    assert query_of(call) == {"vs_currency": ["usd"], "order": ["market_cap_desc"],
                              "per_page": ["50"], "page": ["1"], "sparkline": ["false"]}


def test_coins_count_currency_fields_and_paging(api, yahoo, recording):
    rows = recording(REC)
    serve(yahoo, MARKETS, rows[:3])
    response = api.get("/v2/crypto/coins?count=3&vsCurrency=EUR&fields=id,currentPrice"
                       "&limit=2")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["nodes"] == [{"id": "bitcoin", "currentPrice": 64124.0},
                             {"id": "ethereum", "currentPrice": 1678.15}]
    assert body["pageInfo"]["hasNextPage"] is True
    (call,) = cg_calls(yahoo)
    assert query_of(call)["vs_currency"] == ["eur"] and query_of(call)["per_page"] == ["3"]


def test_coins_keeps_at_most_count(api, yahoo, recording):
    serve(yahoo, MARKETS, recording(REC))
    body = api.get("/v2/crypto/coins?count=2").json()
    assert [coin["id"] for coin in body] == ["bitcoin", "ethereum"]


@pytest.mark.parametrize("query", [
    "vsCurrency=xyz", 'vsCurrency=usd"', "vsCurrency=usd%26ids%3Dbitcoin", "vsCurrency=",
    "count=0", "count=251", "count=ten", "cursor=nope", "limit=-1"])
def test_coins_bad_input_is_400_without_a_call(api, yahoo, query):
    response = api.get(f"/v2/crypto/coins?{query}")
    assert response.status_code == 400, query
    body = response.json()
    assert body["status"] == 400 and body["error"]
    assert cg_calls(yahoo) == []


def test_coins_cached_one_minute_at_all_hours(api, yahoo, recording):
    # Crypto trades around the clock: the US market's phase does not change the TTL.
    for policy in (coingecko.MARKETS_TTL, coingecko.SEARCH_TTL):
        assert {policy.ttl(phase) for phase in MarketPhase} == {60}
    serve(yahoo, MARKETS, recording(REC))
    assert api.get("/v2/crypto/coins").status_code == 200
    assert api.get("/v2/crypto/coins").status_code == 200
    assert len(cg_calls(yahoo)) == 1


# -- /v2/crypto/coins/{id} ------------------------------------------------------------------
def test_one_coin(api, yahoo, recording):
    rows = recording(REC)
    usdc = next(row for row in rows if row["id"] == "usd-coin")
    serve(yahoo, MARKETS, [usdc])
    response = api.get("/v2/crypto/coins/usd-coin?vsCurrency=usd")
    assert response.status_code == 200, response.content
    assert response.json() == expected(usdc)
    assert response.json()["currentPrice"] == 0.999854
    (call,) = cg_calls(yahoo)
    assert query_of(call) == {"vs_currency": ["usd"], "order": ["market_cap_desc"],
                              "per_page": ["1"], "page": ["1"], "sparkline": ["false"],
                              "ids": ["usd-coin"]}
    fields = api.get("/v2/crypto/coins/usd-coin?fields=symbol,nope").json()
    assert fields == {"symbol": "usdc"}


def test_unknown_coin_is_404(api, yahoo):
    serve(yahoo, MARKETS, [])
    response = api.get("/v2/crypto/coins/no-such-coin")
    assert response.status_code == 404
    assert response.json() == {"error": "No coin found with id no-such-coin", "status": 404}
    assert len(cg_calls(yahoo)) == 1


@pytest.mark.parametrize("coin_id", ["Bitcoin", "bit_coin", "bit%20coin", "-btc", "btc-",
                                     "a--b", "%22", "x" * 101])
def test_malformed_coin_id_is_404_without_a_call(api, yahoo, coin_id):
    response = api.get(f"/v2/crypto/coins/{coin_id}")
    assert response.status_code == 404, coin_id
    assert response.json()["status"] == 404
    assert cg_calls(yahoo) == []


def test_one_coin_bad_currency_is_400(api, yahoo):
    assert api.get("/v2/crypto/coins/bitcoin?vsCurrency=doge").status_code == 400
    assert cg_calls(yahoo) == []


# -- /v2/crypto/global ----------------------------------------------------------------------
def test_global(api, yahoo):
    serve(yahoo, f"{API}/global", GLOBAL)
    response = api.get("/v2/crypto/global")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "activeCryptocurrencies": 17418, "markets": 1294,
        "totalMarketCapUsd": 3276041123961.8, "totalVolumeUsd": 104290186120.6,
        "btcDominance": 57.12455, "ethDominance": 12.4478,
        "marketCapChangePercentage24HUsd": -1.2041832}
    assert api.get("/v2/crypto/global?fields=btcDominance").json() == {"btcDominance": 57.12455}


def test_global_without_data_is_502(api, yahoo):
    serve(yahoo, f"{API}/global", {"status": {"error_code": 0}})
    response = api.get("/v2/crypto/global")
    assert response.status_code == 502
    assert response.json()["provider"] == "coingecko"


# -- /v2/crypto/trending --------------------------------------------------------------------
def test_trending(api, yahoo):
    serve(yahoo, f"{API}/search/trending", TRENDING)
    response = api.get("/v2/crypto/trending")
    assert response.status_code == 200, response.content
    assert response.json() == [
        {"id": "pepe", "symbol": "PEPE", "name": "Pepe", "marketCapRank": 32,
         "priceBtc": 1.27e-10, "score": 0},
        {"id": "solana", "symbol": "SOL", "name": "Solana", "marketCapRank": 7,
         "priceBtc": 0.00213, "score": 1}]
    paged = api.get("/v2/crypto/trending?limit=1&fields=id").json()
    assert paged["nodes"] == [{"id": "pepe"}] and paged["pageInfo"]["hasNextPage"] is True


# -- /v2/crypto/search ----------------------------------------------------------------------
def test_search(api, yahoo):
    serve(yahoo, f"{API}/search", SEARCH)
    response = api.get("/v2/crypto/search?query=%20ethereum%20")
    assert response.status_code == 200, response.content
    assert response.json() == [
        {"symbol": "ETH", "id": "ethereum", "name": "Ethereum", "exchange": None,
         "assetType": "Cryptocurrency", "currency": None, "active": True,
         "marketCapRank": 2, "thumbnail": "https://t/eth.png", "image": "https://l/eth.png"},
        {"symbol": "ETC", "id": "ethereum-classic", "name": "Ethereum Classic",
         "exchange": None, "assetType": "Cryptocurrency", "currency": None, "active": True,
         "marketCapRank": 35, "thumbnail": "https://t/etc.png",
         "image": "https://l/etc.png"},
        {"symbol": "no-ticker", "id": "no-ticker", "name": "No Ticker", "exchange": None,
         "assetType": "Cryptocurrency", "currency": None, "active": True,
         "marketCapRank": None, "thumbnail": None, "image": None}]
    (call,) = cg_calls(yahoo)
    assert query_of(call) == {"query": ["ethereum"]}
    limited = api.get("/v2/crypto/search?query=ethereum&limitResults=1&fields=id").json()
    assert limited == [{"id": "ethereum"}]


@pytest.mark.parametrize("query", ["", "query=", "query=%20%20", "query=eth&limitResults=0",
                                   "query=eth&limitResults=101"])
def test_search_bad_input_is_400(api, yahoo, query):
    response = api.get(f"/v2/crypto/search?{query}")
    assert response.status_code == 400, query
    assert cg_calls(yahoo) == []


# -- failures, the key ----------------------------------------------------------------------
ROUTES = {
    "/v2/crypto/coins": MARKETS, "/v2/crypto/coins/bitcoin": MARKETS,
    "/v2/crypto/global": f"{API}/global", "/v2/crypto/trending": f"{API}/search/trending",
    "/v2/crypto/search?query=btc": f"{API}/search"}


@pytest.mark.parametrize("kind", sorted(FAILURES))
@pytest.mark.parametrize("path", sorted(ROUTES))
def test_upstream_failures_name_the_provider(api, yahoo, kind, path):
    fail_url(yahoo.mock, ROUTES[path], kind)
    status, _ = FAILURES[kind]
    response = api.get(path)
    assert response.status_code == status, path
    body = response.json()
    assert body["status"] == status and body["provider"] == "coingecko" and body["error"]
    if status == 429:
        assert response["Retry-After"]


def test_no_key_sends_no_header(api, yahoo, recording):
    serve(yahoo, MARKETS, recording(REC))
    api.get("/v2/crypto/coins")
    (call,) = cg_calls(yahoo)
    assert coingecko.KEY_HEADER not in call.request.headers


def test_demo_key_goes_in_its_header(api, yahoo, recording, settings):
    settings.COINGECKO_API_KEY = "CG-demo-secret"
    serve(yahoo, MARKETS, recording(REC))
    assert api.get("/v2/crypto/coins").status_code == 200
    (call,) = cg_calls(yahoo)
    assert call.request.headers[coingecko.KEY_HEADER] == "CG-demo-secret"
    assert "CG-demo-secret" not in call.request.url


def test_refused_demo_key_is_502_naming_the_setting(api, yahoo, settings):
    settings.COINGECKO_API_KEY = "CG-bad"
    serve(yahoo, f"{API}/global", {"status": {"error_code": 10011}}, status=401)
    response = api.get("/v2/crypto/global")
    assert response.status_code == 502
    assert "COINGECKO_API_KEY" in response.json()["error"]
    assert "CG-bad" not in response.content.decode()


# -- the sandbox ----------------------------------------------------------------------------
def test_sandbox_serves_every_route(api, sandbox_upstream):
    coins = api.get("/v2/crypto/coins?count=5").json()
    assert [coin["marketCapRank"] for coin in coins] == [1, 2, 3, 4, 5]
    assert all(set(coin) == set(COIN_MEMBERS) for coin in coins)
    bitcoin = api.get("/v2/crypto/coins/bitcoin").json()
    assert bitcoin["symbol"] == "btc" and bitcoin["currentPrice"] > 0
    assert api.get("/v2/crypto/coins/dogecoin?vsCurrency=jpy").json()["currentPrice"] > 0
    assert api.get("/v2/crypto/coins/no-such-coin").status_code == 404
    market = api.get("/v2/crypto/global").json()
    assert 0 < market["btcDominance"] < 100 and market["totalMarketCapUsd"] > 0
    trending = api.get("/v2/crypto/trending").json()
    assert [coin["score"] for coin in trending] == list(range(len(trending))) and trending
    found = api.get("/v2/crypto/search?query=btc").json()
    assert found[0]["id"] == "bitcoin" and found[0]["symbol"] == "BTC"
    assert api.get("/v2/crypto/search?query=zzzz").json() == []


@pytest.mark.parametrize(("coin_id", "symbol"), [("bitcoin", "BTC-USD"),
                                                 ("ethereum", "ETH-USD"),
                                                 ("tether", "USDT-USD")])
def test_sandbox_agrees_with_the_yahoo_sandbox(api, sandbox_upstream, coin_id, symbol):
    coin = api.get(f"/v2/crypto/coins/{coin_id}").json()
    quote = api.get(f"/v2/quote/{symbol}?fields=regularMarketPrice,"
                    "regularMarketChangePercent").json()
    assert coin["currentPrice"] == pytest.approx(quote["regularMarketPrice"], rel=1e-9)
    # Yahoo's v2 change is a fraction, CoinGecko's percent (rounded to 5 decimals).
    assert coin["priceChangePercentage24H"] == pytest.approx(
        quote["regularMarketChangePercent"] * 100, abs=1e-5)
