"""GET /v6/finance/recommendationsbysymbol/{symbol}[,{symbol}...]?count=N: peers of a symbol.

Why peers come from the sandbox's own world: an equity's peers are equities of the same
sector (the pools the sector endpoint ranks its top companies from), so "similar" and the
sector pages agree; other instruments get peers of their own kind (ETFs, funds, currency
pairs, coins, indices, futures). Order and scores are a hash of (symbol, peer), so they are
the same on every run. Shape as recorded: ``{"finance": {"result": [{"symbol",
"recommendedSymbols": [{"symbol", "score"}]}], "error": null}}``, best score first,
``count`` peers at most (default 5, as Yahoo). A symbol without peers, and an unknown
symbol, are left out of ``result``, so a one-symbol request answers ``result: []`` (the
recorded answer for a symbol Yahoo has no peers for).
"""

from __future__ import annotations

from typing import Any

from marketdata.sandbox.instruments import (
    CRYPTO,
    CRYPTO_LEVELS,
    CURRENCY,
    EQUITY,
    ETF,
    FAMOUS,
    FUTURE,
    FUTURE_ROOTS,
    INDEX,
    INDEX_VENUES,
    KNOWN_ETFS,
    MUTUALFUND,
    Instrument,
    get_instrument,
    normalize_symbol,
    stable_hash,
    unit,
)
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.common import Request, json_response
from marketdata.sandbox.yahoo.sectors import sector_pools

DEFAULT_COUNT = 5
MAX_COUNT = 100
_FX = ("EURUSD=X", "GBPUSD=X", "JPY=X", "AUDUSD=X", "NZDUSD=X", "EURJPY=X", "GBPJPY=X",
       "EURGBP=X", "CAD=X", "CHF=X", "EURCHF=X", "CNY=X")


def _candidates(inst: Instrument) -> tuple[str, ...]:
    if inst.kind == EQUITY:
        return sector_pools().get(inst.sector or "", ())
    if inst.kind == ETF:
        return tuple(sorted(KNOWN_ETFS))
    if inst.kind == MUTUALFUND:
        return (*(s for s, f in FAMOUS.items() if f[0] == MUTUALFUND), "SPY", "VOO", "VTI")
    if inst.kind == CURRENCY:
        return _FX
    if inst.kind == CRYPTO:
        return tuple(f"{coin}-USD" for coin in CRYPTO_LEVELS)
    if inst.kind == INDEX:
        return (*(s for s, f in FAMOUS.items() if f[0] == INDEX), *INDEX_VENUES)
    if inst.kind == FUTURE:
        return tuple(f"{root}=F" for root in FUTURE_ROOTS)
    return ()


def peers(symbol: str, count: int) -> list[dict[str, Any]]:
    """Up to ``count`` {symbol, score} peers of a known symbol, best first (never itself)."""
    inst = get_instrument(symbol)
    if inst is None or count <= 0:
        return []
    others = [s for s in _candidates(inst) if s != inst.symbol]
    ranked = sorted(others, key=lambda s: stable_hash("peer", inst.symbol, s))[:count]
    top = 0.05 + 0.25 * unit("peer-top", inst.symbol)
    scores = [top * 0.88 ** i * (1 - 0.04 * unit("peer-score", inst.symbol, s))
              for i, s in enumerate(ranked)]
    return [{"symbol": s, "score": round(score, 6)} for s, score in zip(ranked, scores,
                                                                        strict=True)]


def _count(req: Request) -> int:
    try:
        return max(0, min(MAX_COUNT, int(req.arg("count") or DEFAULT_COUNT)))
    except ValueError:
        return DEFAULT_COUNT


def handle_recommendations(req: Request) -> SandboxResponse:
    count = _count(req)
    result = []
    for symbol in dict.fromkeys(normalize_symbol(s) for s in req.params["symbol"].split(",")):
        recommended = peers(symbol, count) if symbol else []
        if recommended:
            result.append({"symbol": symbol, "recommendedSymbols": recommended})
    return json_response({"finance": {"result": result, "error": None}})
