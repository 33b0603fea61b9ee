"""CoinGecko's public API v3: ``/coins/markets``, ``/global``, ``/search/trending`` and
``/search``, from the sandbox's own crypto instruments.

Why these values: a coin is the Yahoo sandbox's ``{TICKER}-USD`` instrument
(:data:`marketdata.sandbox.instruments.CRYPTO_LEVELS`), so both sources tell the same story
at the same clock time: ``current_price`` is Yahoo's regular-market price, the 24-hour
change its change against the previous close (percent, 5 decimals, as CoinGecko rounds),
``market_cap`` price times the instrument's supply, ``total_volume`` the session's volume
(dollars, as Yahoo counts crypto volume). Other quote currencies convert the dollar values
with the sandbox's FX levels (:data:`~marketdata.sandbox.instruments.USD_PER`), with the
coins' own prices (``btc``, ``eth``, ``sats``...), or, for a currency the sandbox has no
level of, with a fixed pseudo-random rate (deterministic, plausible, not real). Ranks are
by dollar market cap.

CoinGecko's rules the service can meet: an unknown ``vs_currency`` is its 400 ``{"error":
"invalid vs_currency"}``; ``ids`` (a comma list) filters, an unknown id gives ``[]``;
``per_page`` 1..250 (default 100) and ``page`` (default 1) slice; ``order`` is one of
``market_cap_desc`` (default), ``market_cap_asc``, ``volume_desc``, ``volume_asc``,
``id_asc``, ``id_desc``. ``/search`` without ``query`` gives empty lists.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from marketdata.records.crypto import VS_CURRENCIES
from marketdata.sandbox.common import Request, json_response
from marketdata.sandbox.instruments import CRYPTO_LEVELS, USD_PER, known_instrument, unit
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.market import MarketView, market_view

# CoinGecko's ids of the sandbox's coins (its tickers are CRYPTO_LEVELS' keys).
COIN_IDS = {"BTC": "bitcoin", "ETH": "ethereum", "SOL": "solana", "XRP": "ripple",
            "DOGE": "dogecoin", "ADA": "cardano", "BNB": "binancecoin", "LTC": "litecoin",
            "USDT": "tether", "USDC": "usd-coin"}
# vs currencies priced in coins: the coin, and units of it per coin.
_COIN_UNITS = {"btc": ("BTC", 1.0), "eth": ("ETH", 1.0), "ltc": ("LTC", 1.0),
               "bnb": ("BNB", 1.0), "xrp": ("XRP", 1.0), "sol": ("SOL", 1.0),
               "sats": ("BTC", 1e-8), "bits": ("BTC", 1e-6)}
ORDERS = ("market_cap_desc", "market_cap_asc", "volume_desc", "volume_asc", "id_asc",
          "id_desc")
# The sandbox's coins are about this share of the whole market (CoinGecko's ~17,000 coins).
_COVERED_SHARE = 0.9
IMAGE = "https://coin-images.coingecko.com/coins/images/sandbox/{size}/{id}.png"


def error(text: str, status: int = 400) -> SandboxResponse:
    """CoinGecko's error body."""
    return json_response({"error": text}, status)


def not_found() -> SandboxResponse:
    return json_response({"error": "Not Found"}, 404)


def _view(ticker: str, req: Request) -> MarketView:
    inst = known_instrument(f"{ticker}-USD")
    return market_view(get_series(inst), req.now())


def usd_per_unit(vs: str, views: dict[str, MarketView]) -> float:
    """US dollars per unit of ``vs`` (a CoinGecko code, lower-case)."""
    if vs in _COIN_UNITS:
        ticker, units = _COIN_UNITS[vs]
        return views[ticker].snap.price * units
    level = USD_PER.get(vs.upper())
    if level is not None:
        return level
    return 0.001 + 2.0 * unit("coingecko-vs", vs)


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _market_rows(req: Request, vs: str) -> list[dict[str, Any]]:
    """Every sandbox coin's /coins/markets row in ``vs``, ranked by dollar market cap."""
    views = {ticker: _view(ticker, req) for ticker in COIN_IDS}
    rate = usd_per_unit(vs, views)
    ranked = sorted(COIN_IDS, key=lambda t: -(views[t].market_cap or 0))

    def conv(usd: float, digits: int = 10) -> float:
        return float(f"{usd / rate:.{digits}g}")

    rows = []
    for rank, ticker in enumerate(ranked, 1):
        view, coin_id = views[ticker], COIN_IDS[ticker]
        snap = view.snap
        rows.append({
            "id": coin_id, "symbol": ticker.lower(), "name": CRYPTO_LEVELS[ticker][1],
            "image": IMAGE.format(size="large", id=coin_id),
            "current_price": conv(snap.price),
            "market_cap": float(round((view.market_cap or 0) / rate)),
            "market_cap_rank": rank,
            "fully_diluted_valuation": None,
            "total_volume": float(round(snap.volume / rate)),
            "high_24h": conv(snap.high), "low_24h": conv(snap.low),
            "price_change_24h": conv(snap.change),
            "price_change_percentage_24h": round(snap.change_fraction * 100, 5),
            "circulating_supply": float(view.shares),
            "total_supply": float(view.shares), "max_supply": None,
            "last_updated": _iso(snap.market_time),
        })
    return rows


def handle_markets(req: Request) -> SandboxResponse:
    vs = (req.arg("vs_currency") or "").strip().lower()
    if vs not in VS_CURRENCIES:
        return error("invalid vs_currency")
    order = req.arg("order") or "market_cap_desc"
    if order not in ORDERS:
        return error("invalid order")
    per_page, page = req.int_arg("per_page", 100), req.int_arg("page", 1)
    if per_page is None or page is None or per_page < 1 or page < 1:
        return error("invalid per_page or page")
    rows = _market_rows(req, vs)
    ids = req.arg("ids")
    if ids:
        wanted = {part.strip() for part in ids.split(",")}
        rows = [row for row in rows if row["id"] in wanted]
    key, reverse = order.rsplit("_", 1)
    member = {"market": "market_cap", "volume": "total_volume", "id": "id"}[
        key.removesuffix("_cap")]
    rows.sort(key=lambda row: row[member], reverse=reverse == "desc")
    start = (page - 1) * min(per_page, 250)
    return json_response(rows[start:start + min(per_page, 250)])


def handle_global(req: Request) -> SandboxResponse:
    rows = _market_rows(req, "usd")
    covered_cap = sum(row["market_cap"] for row in rows)
    covered_volume = sum(row["total_volume"] for row in rows)
    before = sum(row["market_cap"] / (1 + row["price_change_percentage_24h"] / 100)
                 for row in rows)
    total_cap = round(covered_cap / _COVERED_SHARE)
    by_id = {row["symbol"]: row for row in rows}
    day = req.now() // 86400
    return json_response({"data": {
        "active_cryptocurrencies": 17000 + day % 500,
        "upcoming_icos": 0, "ongoing_icos": 49, "ended_icos": 3376,
        "markets": 1250 + day % 60,
        "total_market_cap": {"usd": float(total_cap)},
        "total_volume": {"usd": float(round(covered_volume / _COVERED_SHARE))},
        "market_cap_percentage": {
            symbol: round(row["market_cap"] / total_cap * 100, 6)
            for symbol, row in by_id.items()},
        "market_cap_change_percentage_24h_usd": round((covered_cap / before - 1) * 100, 6),
        "updated_at": req.now(),
    }})


def handle_trending(req: Request) -> SandboxResponse:
    """The coins that moved most over 24 hours, largest move first (CoinGecko ranks by
    searches; moves are what people search)."""
    rows = _market_rows(req, "usd")
    btc = next(row for row in rows if row["id"] == "bitcoin")["current_price"]
    rows.sort(key=lambda row: -abs(row["price_change_percentage_24h"]))
    coins = []
    for score, row in enumerate(rows[:7]):
        coins.append({"item": {
            "id": row["id"], "coin_id": row["market_cap_rank"], "name": row["name"],
            "symbol": row["symbol"].upper(), "market_cap_rank": row["market_cap_rank"],
            "thumb": IMAGE.format(size="thumb", id=row["id"]),
            "small": IMAGE.format(size="small", id=row["id"]),
            "large": row["image"], "slug": row["id"],
            "price_btc": float(f"{row['current_price'] / btc:.10g}"), "score": score,
        }})
    return json_response({"coins": coins, "nfts": [], "categories": []})


def handle_search(req: Request) -> SandboxResponse:
    """Coins whose id, name or ticker contains the query (any case): an exact ticker or id
    first, then by market cap rank."""
    query = (req.arg("query") or "").strip().lower()
    rows = _market_rows(req, "usd") if query else []
    found = [row for row in rows
             if query in row["id"] or query in row["name"].lower() or query in row["symbol"]]
    found.sort(key=lambda row: (query not in (row["id"], row["symbol"]),
                                row["market_cap_rank"]))
    coins = [{"id": row["id"], "name": row["name"], "api_symbol": row["id"],
              "symbol": row["symbol"].upper(), "market_cap_rank": row["market_cap_rank"],
              "thumb": IMAGE.format(size="thumb", id=row["id"]),
              "large": row["image"]} for row in found]
    return json_response({"coins": coins, "exchanges": [], "icos": [], "categories": [],
                          "nfts": []})
