"""GET /v1/finance/trending/{REGION}: the symbols most looked at in a region.

Why these: the sandbox has no users, so "trending" is the day's biggest movers (absolute
percent change at the request's clock, ties by symbol) among a fixed pool per region: the
region's own listings where the sandbox has an exchange for them, the famous US equities
and four crypto pairs (Yahoo's own lists mix all three). The moves are the v7 quote's, so
the two answers agree. ``count`` (default 20, at most 100) as Yahoo takes it; an unknown
region is Yahoo's 404 (upper case only, as Yahoo has it).
"""

from __future__ import annotations

from datetime import UTC, datetime

from marketdata.sandbox.instruments import EQUITY, FAMOUS, get_instrument
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.common import Request, finance_error, json_response
from marketdata.sandbox.yahoo.market import market_view

DEFAULT_COUNT = 20
MAX_COUNT = 100
REGIONS = frozenset(("AR", "AU", "BR", "CA", "CN", "DK", "FI", "FR", "DE", "GR", "HK", "IN",
                     "IL", "IT", "JP", "KR", "MY", "MX", "NZ", "NO", "PT", "QA", "RU", "SG",
                     "ES", "SE", "TW", "TH", "TR", "GB", "US", "VN"))
# Listings on the exchanges the sandbox simulates, by region.
LOCAL: dict[str, tuple[str, ...]] = {
    "GB": ("AZN.L", "HSBA.L", "SHEL.L", "BP.L", "BARC.L", "ULVR.L"),
    "DE": ("SAP.DE", "SIE.DE", "ALV.DE", "BMW.DE", "DTE.DE", "VOW3.DE"),
    "FR": ("MC.PA", "OR.PA", "TTE.PA", "AIR.PA", "BNP.PA"),
    "IT": ("ENI.MI", "ISP.MI", "LDO.MI", "UCG.MI", "RACE.MI"),
    "JP": ("7203.T", "6758.T", "9984.T", "8306.T", "6861.T", "7974.T"),
    "HK": ("0700.HK", "9988.HK", "0005.HK", "1299.HK", "3690.HK"),
    "AU": ("BHP.AX", "CBA.AX", "CSL.AX", "WBC.AX", "NAB.AX"),
    "CA": ("SHOP.TO", "RY.TO", "TD.TO", "ENB.TO", "CNQ.TO"),
    "TR": ("THYAO.IS", "ASELS.IS", "KCHOL.IS", "BIMAS.IS"),
}
CRYPTO = ("BTC-USD", "ETH-USD", "SOL-USD", "XRP-USD")
US = tuple(sorted(s for s, row in FAMOUS.items() if row[0] == EQUITY))


def trending_symbols(region: str, count: int, now: int) -> list[str]:
    """The region's pool ranked by the size of the day's move (largest first)."""
    moves = []
    for symbol in (*LOCAL.get(region, ()), *US, *CRYPTO):
        inst = get_instrument(symbol)
        if inst is not None:
            view = market_view(get_series(inst), now)
            moves.append((-abs(view.snap.change_fraction), inst.symbol))
    return [symbol for _, symbol in sorted(moves)[:count]]


def handle_trending(req: Request) -> SandboxResponse:
    region = req.params["region"]
    if region not in REGIONS:
        return finance_error("Not Found", f"No trending tickers for region {region}", 404)
    count = req.int_arg("count", DEFAULT_COUNT)
    if count is None or count < 0:
        return finance_error("Bad Request", "Invalid count", 400)
    now = req.now()
    symbols = trending_symbols(region, min(count, MAX_COUNT), now)
    stamp = datetime.fromtimestamp(now, UTC)
    return json_response({"finance": {"result": [{
        "count": len(symbols), "quotes": [{"symbol": s} for s in symbols],
        "jobTimestamp": now * 1000,
        "startInterval": int(stamp.strftime("%Y%m%d%H00")),
    }], "error": None}})
