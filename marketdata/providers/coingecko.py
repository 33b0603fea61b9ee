"""CoinGecko's public API: crypto coins with market data, the whole market, trending coins
and coin search. Keyless; ``settings.COINGECKO_API_KEY`` (a Demo plan key) is optional.

Calls (``https://api.coingecko.com/api/v3``):

- ``GET /coins/markets?vs_currency=&order=market_cap_desc&per_page=&page=1&sparkline=false``
  (plus ``ids=`` for one coin): a list of ``{id, symbol, name, image, current_price,
  market_cap, market_cap_rank, total_volume, price_change_percentage_24h,
  circulating_supply, ...}``; an unknown id gives ``[]``;
- ``GET /global``: ``{data: {active_cryptocurrencies, markets, total_market_cap: {usd},
  total_volume: {usd}, market_cap_percentage: {btc, eth}, market_cap_change_percentage_24h_usd}}``;
- ``GET /search/trending``: ``{coins: [{item: {id, name, symbol, market_cap_rank,
  price_btc, ...}}], nfts, categories}``;
- ``GET /search?query=``: ``{coins: [{id, name, symbol, market_cap_rank, thumb, large}], ...}``.

The key, when set, travels in the ``x-cg-demo-api-key`` header (CoinGecko's recommended
way for Demo keys: a header stays out of URLs and logs). A 401/403 then means the key was
refused: a 502 naming the setting. A 429 is passed on as a 429 (the client's map).

Pace: without a key CoinGecko limits by IP address at a rate it does not promise (about 5
to 15 calls a minute in practice), so call starts are spaced 6 s apart (10 a minute) per
process; with a Demo key (30 calls a minute when this was written, more since) 2 s. A turn
that would leave less than a second of the request deadline is a 429 without a call. Not
paced when the in-process sandbox answers.

Cache: crypto trades around the clock, so the US market's open/closed clock means nothing
here: one TTL at all hours (:data:`MARKETS_TTL`, :data:`SEARCH_TTL`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings

from marketdata import deadline, pacing
from marketdata.cache import TTLPolicy
from marketdata.errors import MarketDataError, NotFound, UpstreamRateLimited
from marketdata.formatting import integer, mapping, number, rows, text
from marketdata.http import ProviderConfig, UpstreamResponse
from marketdata.providers.base import Provider
from marketdata.providers.registry import get_provider
from marketdata.records.crypto import Coin, CoinMatch, GlobalMarket, TrendingCoin

T = TypeVar("T")
PROVIDER = ProviderConfig(name="coingecko", display_name="CoinGecko",
                          connect_timeout=3.0, read_timeout=8.0, max_attempts=2,
                          hosts=("api.coingecko.com",))
BASE_URL = "https://api.coingecko.com/api/v3"
KEY_SETTING = "COINGECKO_API_KEY"
KEY_HEADER = "x-cg-demo-api-key"
KEYLESS_INTERVAL_SECONDS = 6.0
DEMO_KEY_INTERVAL_SECONDS = 2.0
# CoinGecko refreshes market data about once a minute on its free plans; the reference's
# 60 s (its closed-market value), at all hours since crypto never closes.
MARKETS_TTL = TTLPolicy("crypto_markets", open=60, extended=60, closed=60, market_aware=False)
# Search matches change with listings, not prices: the reference's 60 s as well.
SEARCH_TTL = TTLPolicy("crypto_search", open=60, extended=60, closed=60, market_aware=False)


# -- parsers (CoinGecko's JSON -> our records) ---------------------------------------------
def parse_markets(payload: Any) -> list[Coin]:
    """/coins/markets -> coins in CoinGecko's order; a row without an id is left out; a body
    that is not a list is a 502."""
    if not isinstance(payload, list):
        raise PROVIDER.bad_answer("returned a /coins/markets body that is not a list")
    out = []
    for row in rows(payload):
        coin_id = text(row.get("id"))
        if coin_id is None:
            continue
        out.append(Coin(
            id=coin_id, symbol=text(row.get("symbol")), name=text(row.get("name")),
            current_price=number(row.get("current_price")),
            market_cap=number(row.get("market_cap")),
            price_change_percentage_24h=number(row.get("price_change_percentage_24h")),
            total_volume=number(row.get("total_volume")),
            circulating_supply=number(row.get("circulating_supply")),
            image=text(row.get("image")), market_cap_rank=integer(row.get("market_cap_rank"))))
    return out


def parse_global(payload: Any) -> GlobalMarket:
    """/global's ``data`` -> the market (US-dollar totals, dominance in percent)."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, dict):
        raise PROVIDER.bad_answer("returned a /global body without a 'data' object")
    shares = mapping(data.get("market_cap_percentage"))
    return GlobalMarket(
        active_cryptocurrencies=integer(data.get("active_cryptocurrencies")),
        markets=integer(data.get("markets")),
        total_market_cap_usd=number(mapping(data.get("total_market_cap")).get("usd")),
        total_volume_usd=number(mapping(data.get("total_volume")).get("usd")),
        btc_dominance=number(shares.get("btc")), eth_dominance=number(shares.get("eth")),
        market_cap_change_percentage_24h_usd=number(
            data.get("market_cap_change_percentage_24h_usd")))


def parse_trending(payload: Any) -> list[TrendingCoin]:
    """/search/trending's ``coins[].item`` in CoinGecko's order, ``score`` the place (0
    first), symbols upper-cased; NFTs and categories are not coins and are left out."""
    if not isinstance(payload, dict):
        raise PROVIDER.bad_answer("returned a /search/trending body that is not an object")
    out: list[TrendingCoin] = []
    for row in rows(payload.get("coins")):
        item = mapping(row.get("item"))
        coin_id = text(item.get("id"))
        if coin_id is None:
            continue
        symbol = text(item.get("symbol"))
        out.append(TrendingCoin(id=coin_id, symbol=symbol.upper() if symbol else None,
                                name=text(item.get("name")),
                                market_cap_rank=integer(item.get("market_cap_rank")),
                                price_btc=number(item.get("price_btc")), score=len(out)))
    return out


def parse_search(payload: Any) -> list[CoinMatch]:
    """/search's ``coins`` (best match first): the ticker upper-cased (the id when there is
    none), ``thumb`` and ``large`` images."""
    if not isinstance(payload, dict):
        raise PROVIDER.bad_answer("returned a /search body that is not an object")
    out = []
    for row in rows(payload.get("coins")):
        coin_id = text(row.get("id"))
        if coin_id is None:
            continue
        symbol = text(row.get("symbol"))
        out.append(CoinMatch(id=coin_id, symbol=symbol.upper() if symbol else coin_id,
                             name=text(row.get("name")),
                             market_cap_rank=integer(row.get("market_cap_rank")),
                             thumbnail=text(row.get("thumb")), image=text(row.get("large"))))
    return out


# -- the provider ---------------------------------------------------------------------------
class CallPacer(pacing.Pacer):
    """Call starts ``interval`` seconds apart in this process (see the module doc)."""

    def __init__(self, interval: float) -> None:
        super().__init__(interval, self._refused, leave_seconds=1.0,
                         budget_without_deadline=deadline.default_seconds(), clock=time)

    def _refused(self) -> UpstreamRateLimited:
        return UpstreamRateLimited(
            PROVIDER.name, f"{PROVIDER.display_name} allows only a few calls a minute and "
            "its next slot is too far away; retry shortly", None)


class CoinGeckoProvider(Provider):
    """Keyless, with an optional Demo key sent as a header; calls are paced."""

    config = PROVIDER

    def __init__(self, client: Any) -> None:
        super().__init__(client)
        interval = DEMO_KEY_INTERVAL_SECONDS if self.api_key else KEYLESS_INTERVAL_SECONDS
        self.pacer = CallPacer(interval if self.paced else 0.0)

    def load_credentials(self) -> dict[str, Any]:
        return {"api_key": str(getattr(settings, KEY_SETTING, "") or "").strip()}

    @property
    def api_key(self) -> str:
        return str(self.credentials.get("api_key") or "")

    def authenticate(self, params: dict[str, Any], headers: dict[str, str]) -> None:
        if self.api_key:
            headers[KEY_HEADER] = self.api_key

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        if response.status in (401, 403) and self.api_key:
            return self.config.bad_answer(f"refused the API key ({KEY_SETTING})",
                                          response.status)
        return super().error_for(response, endpoint, not_found)

    def query(self, endpoint: str, path: str, params: dict[str, Any] | None = None) -> Any:
        """One paced call of ``path`` (under :data:`BASE_URL`), decoded."""
        self.pacer.wait()
        return self.get_json(endpoint, f"{BASE_URL}{path}", params)


def coingecko_provider() -> CoinGeckoProvider:
    return get_provider(PROVIDER.name)


def _cached(call: str, params: dict[str, Any], fetch: Callable[[CoinGeckoProvider], T],
            policy: TTLPolicy) -> T:
    provider = coingecko_provider()
    return provider.cached(call, params, lambda: fetch(provider), policy, group="crypto")


def _markets_params(vs_currency: str, per_page: int) -> dict[str, Any]:
    return {"vs_currency": vs_currency, "order": "market_cap_desc", "per_page": per_page,
            "page": 1, "sparkline": "false"}


# -- fetchers (the capability table's) ------------------------------------------------------
def coins(vs_currency: str, count: int) -> list[Coin]:
    """The ``crypto_coins`` fetcher: the ``count`` (1..250) largest coins by market cap,
    priced in ``vs_currency`` (a validated, lower-case code)."""
    found: list[Coin] = _cached(
        "coins_markets", {"vs": vs_currency, "count": count},
        lambda p: parse_markets(p.query("coins_markets", "/coins/markets",
                                        _markets_params(vs_currency, count))), MARKETS_TTL)
    return found


def coin(coin_id: str, vs_currency: str) -> Coin:
    """The ``crypto_coin`` fetcher: one coin by its CoinGecko id (validated); NotFound when
    CoinGecko lists no such coin."""
    found: list[Coin] = _cached(
        "coin", {"id": coin_id, "vs": vs_currency},
        lambda p: parse_markets(p.query("coins_markets", "/coins/markets",
                                        {**_markets_params(vs_currency, 1), "ids": coin_id})),
        MARKETS_TTL)
    for row in found:
        if row.id == coin_id:
            return row
    raise NotFound(f"No coin found with id {coin_id}")


def global_market() -> GlobalMarket:
    """The ``crypto_global`` fetcher."""
    found: GlobalMarket = _cached("global", {},
                                  lambda p: parse_global(p.query("global", "/global")),
                                  MARKETS_TTL)
    return found


def trending() -> list[TrendingCoin]:
    """The ``crypto_trending`` fetcher: CoinGecko's trending coins, its order."""
    found: list[TrendingCoin] = _cached(
        "trending", {}, lambda p: parse_trending(p.query("trending", "/search/trending")),
        MARKETS_TTL)
    return found


def search(query: str) -> list[CoinMatch]:
    """The ``crypto_search`` fetcher: every coin matching ``query``, best first."""
    found: list[CoinMatch] = _cached(
        "search", {"query": query},
        lambda p: parse_search(p.query("search", "/search", {"query": query})), SEARCH_TTL)
    return found
