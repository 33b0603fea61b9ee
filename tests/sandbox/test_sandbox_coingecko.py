"""The simulated CoinGecko: /coins/markets (vs_currency, ids, order, per_page, page),
/global, /search/trending and /search, deterministic, agreeing with the sandbox's Yahoo
crypto prices, CoinGecko's 400 for an unknown vs_currency, routing by host."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox.instruments import USD_PER, known_instrument
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.registry import PROVIDERS
from marketdata.sandbox.yahoo.market import market_view

HOST = "api.coingecko.com"
CLOCK = datetime(2026, 11, 20, 22, 30, tzinfo=UTC)


def get(path: str, **params: str) -> tuple[int, Any]:
    sb = UpstreamSandbox(clock=lambda: CLOCK)
    answer = sb.handle("GET", HOST, f"/api/v3{path}", {k: [v] for k, v in params.items()}, {})
    return answer.status, json.loads(answer.body)


def test_registered():
    assert any(factory.__module__.endswith("coingecko.router") for factory in PROVIDERS)


def test_markets_agree_with_the_yahoo_sandbox_and_are_deterministic():
    status, rows = get("/coins/markets", vs_currency="usd")
    assert status == 200 and len(rows) == 10
    assert rows == get("/coins/markets", vs_currency="usd")[1]
    assert [row["market_cap_rank"] for row in rows] == list(range(1, 11))
    caps = [row["market_cap"] for row in rows]
    assert caps == sorted(caps, reverse=True)
    view = market_view(get_series(known_instrument("BTC-USD")), int(CLOCK.timestamp()))
    btc = next(row for row in rows if row["id"] == "bitcoin")
    assert btc["current_price"] == view.snap.price
    assert btc["price_change_percentage_24h"] == round(view.snap.change_fraction * 100, 5)
    assert btc["market_cap"] == view.market_cap and btc["circulating_supply"] == view.shares
    assert btc["symbol"] == "btc" and btc["name"] == "Bitcoin"


def test_markets_in_other_currencies():
    usd = {row["id"]: row for row in get("/coins/markets", vs_currency="usd")[1]}
    eur = {row["id"]: row for row in get("/coins/markets", vs_currency="EUR")[1]}
    assert eur["ethereum"]["current_price"] == pytest.approx(
        usd["ethereum"]["current_price"] / USD_PER["EUR"], rel=1e-9)
    btc = {row["id"]: row for row in get("/coins/markets", vs_currency="btc")[1]}
    assert btc["bitcoin"]["current_price"] == 1.0
    sats = get("/coins/markets", vs_currency="sats", ids="bitcoin")[1]
    assert sats[0]["current_price"] == 100_000_000
    assert get("/coins/markets", vs_currency="xau")[0] == 200


def test_markets_filters_orders_and_pages():
    status, rows = get("/coins/markets", vs_currency="usd", ids="tether,nope,bitcoin")
    assert status == 200 and [row["id"] for row in rows] == ["bitcoin", "tether"]
    assert get("/coins/markets", vs_currency="usd", ids="nope")[1] == []
    by_id = get("/coins/markets", vs_currency="usd", order="id_asc")[1]
    assert [row["id"] for row in by_id] == sorted(row["id"] for row in by_id)
    volumes = [row["total_volume"] for row in
               get("/coins/markets", vs_currency="usd", order="volume_asc")[1]]
    assert volumes == sorted(volumes)
    second = get("/coins/markets", vs_currency="usd", per_page="3", page="2")[1]
    assert [row["market_cap_rank"] for row in second] == [4, 5, 6]


@pytest.mark.parametrize("params", [{}, {"vs_currency": "xyz"}, {"vs_currency": 'usd"'}])
def test_unknown_vs_currency_is_its_400(params):
    assert get("/coins/markets", **params) == (400, {"error": "invalid vs_currency"})


def test_global_sums_the_coins():
    status, body = get("/global")
    data = body["data"]
    rows = get("/coins/markets", vs_currency="usd")[1]
    assert status == 200
    assert data["total_market_cap"]["usd"] == round(sum(r["market_cap"] for r in rows) / 0.9)
    btc = next(r for r in rows if r["id"] == "bitcoin")
    assert data["market_cap_percentage"]["btc"] == round(
        btc["market_cap"] / data["total_market_cap"]["usd"] * 100, 6)
    assert data["active_cryptocurrencies"] > 10000 and data["markets"] > 1000


def test_trending_and_search():
    status, body = get("/search/trending")
    assert status == 200 and body["nfts"] == [] and body["categories"] == []
    items = [coin["item"] for coin in body["coins"]]
    assert [item["score"] for item in items] == list(range(7))
    assert all(item["symbol"].isupper() for item in items)
    status, found = get("/search", query="ETH")
    assert status == 200 and found["coins"][0]["id"] == "ethereum"
    assert found["coins"][0]["symbol"] == "ETH"
    assert get("/search", query="zzzz")[1]["coins"] == []
    assert get("/search")[1]["coins"] == []


def test_unknown_path_is_404():
    assert get("/coins/list")[0] == 404
