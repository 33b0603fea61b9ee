"""CoinGecko: the parsers (/coins/markets on its recording, values exact; /global,
/search/trending and /search on bodies in CoinGecko's documented shapes, since no
recording of those exists), bodies that are not data (502), registration, pacing (keyless
and with a Demo key), and the sandbox package through the real parsers."""

from __future__ import annotations

import pytest

from marketdata.errors import NotFound, UpstreamBadResponse, UpstreamRateLimited
from marketdata.providers import coingecko
from marketdata.providers.registry import PROVIDERS, provider_class
from marketdata.records.crypto import Coin, CoinMatch, GlobalMarket, TrendingCoin, is_coin_id

REC = "coingecko/coins-markets/coins-markets-finance-query.json"


def test_parse_markets_recording(recording):
    payload = recording(REC)
    coins = coingecko.parse_markets(payload)
    assert len(coins) == 50
    assert coins[0] == Coin(
        id="bitcoin", symbol="btc", name="Bitcoin", current_price=64124.0,
        market_cap=1284561054711.0, price_change_percentage_24h=0.62408,
        total_volume=18598448757.0, circulating_supply=20042284.0,
        image="https://coin-images.coingecko.com/coins/images/1/large/bitcoin.png?1696501400",
        market_cap_rank=1)
    assert coins[2] == Coin(
        id="tether", symbol="usdt", name="Tether", current_price=0.999498,
        market_cap=186481047750.0, price_change_percentage_24h=0.01126,
        total_volume=31424086578.0, circulating_supply=186584693808.4656,
        image="https://coin-images.coingecko.com/coins/images/325/large/Tether.png?1696501661",
        market_cap_rank=3)
    assert [c.market_cap_rank for c in coins] == list(range(1, 51))
    usyc = next(c for c in coins if c.id == "hashnote-usyc")
    assert usyc.price_change_percentage_24h is None and usyc.current_price == 1.13
    for coin, row in zip(coins, payload, strict=True):
        assert (coin.id, coin.current_price, coin.market_cap, coin.total_volume) == (
            row["id"], row["current_price"], row["market_cap"], row["total_volume"])


def test_parse_markets_skips_rows_without_id_and_refuses_non_lists():
    assert coingecko.parse_markets([{"name": "x"}, "junk", {"id": "a"}]) == [
        Coin("a", None, None, None, None, None, None, None, None, None)]
    with pytest.raises(UpstreamBadResponse):
        coingecko.parse_markets({"error": "invalid vs_currency"})


def test_parse_global():
    market = coingecko.parse_global({"data": {
        "active_cryptocurrencies": 17418, "markets": 1294,
        "total_market_cap": {"usd": 3276041123961.8, "eur": 1.0},
        "total_volume": {"usd": 104290186120.6},
        "market_cap_percentage": {"btc": 57.12455, "eth": 12.4478},
        "market_cap_change_percentage_24h_usd": -1.2041832}})
    assert market == GlobalMarket(17418, 1294, 3276041123961.8, 104290186120.6, 57.12455,
                                  12.4478, -1.2041832)
    assert coingecko.parse_global({"data": {}}) == GlobalMarket(*[None] * 7)
    with pytest.raises(UpstreamBadResponse):
        coingecko.parse_global({"status": {"error_code": 429}})


def test_parse_trending_numbers_places_and_ignores_nfts():
    found = coingecko.parse_trending({"coins": [
        {"item": {"id": "pepe", "name": "Pepe", "symbol": "pepe", "market_cap_rank": 32,
                  "price_btc": 1.27e-10, "score": 5}},
        {"item": {}},
        {"item": {"id": "sui", "name": "Sui", "symbol": "SUI", "market_cap_rank": None}},
    ], "nfts": [{"id": "n"}], "categories": [{"id": 1}]})
    assert found == [TrendingCoin("pepe", "PEPE", "Pepe", 32, 1.27e-10, 0),
                     TrendingCoin("sui", "SUI", "Sui", None, None, 1)]
    with pytest.raises(UpstreamBadResponse):
        coingecko.parse_trending([])


def test_parse_search():
    found = coingecko.parse_search({"coins": [
        {"id": "ethereum", "name": "Ethereum", "symbol": "ETH", "market_cap_rank": 2,
         "thumb": "https://t/e.png", "large": "https://l/e.png"},
        {"id": "no-ticker", "name": "No Ticker", "symbol": " "}]})
    assert found == [CoinMatch("ETH", "ethereum", "Ethereum", 2, "https://t/e.png",
                               "https://l/e.png"),
                     CoinMatch("no-ticker", "no-ticker", "No Ticker", None, None, None)]
    assert coingecko.parse_search({"coins": []}) == []


@pytest.mark.parametrize(("text", "ok"), [
    ("bitcoin", True), ("usd-coin", True), ("0x", True), ("Bitcoin", False), ("a_b", False),
    ("-a", False), ("a-", False), ("a--b", False), ("", False), ("a" * 101, False)])
def test_coin_ids(text, ok):
    assert is_coin_id(text) is ok


def test_registered_and_paced_per_plan(settings):
    assert provider_class("coingecko") is coingecko.CoinGeckoProvider
    assert "coingecko" in PROVIDERS
    from marketdata.http import get_client

    settings.COINGECKO_API_KEY = ""
    assert coingecko.CoinGeckoProvider(get_client()).pacer.interval == 6.0
    settings.COINGECKO_API_KEY = "CG-demo"
    assert coingecko.CoinGeckoProvider(get_client()).pacer.interval == 2.0


def test_a_turn_too_far_away_is_a_429_without_a_call():
    pacer = coingecko.CallPacer(1000.0)
    pacer.wait()
    with pytest.raises(UpstreamRateLimited, match="few calls a minute"):
        pacer.wait()


# -- the sandbox package through the real parsers --------------------------------------------
def test_sandbox_through_the_parsers(sandbox_upstream):
    coins = coingecko.coins("usd", 3)
    assert [c.market_cap_rank for c in coins] == [1, 2, 3] and coins[0].id == "bitcoin"
    assert coingecko.coin("tether", "eur").symbol == "usdt"
    with pytest.raises(NotFound):
        coingecko.coin("no-such-coin", "usd")
    market = coingecko.global_market()
    assert market.btc_dominance is not None and 0 < market.btc_dominance < 100
    assert coingecko.trending()[0].score == 0
    assert coingecko.search("sol")[0].id == "solana"
