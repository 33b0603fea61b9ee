"""Options analytics: the greeks of one expiry and the implied-volatility surface of a chain,
computed by :mod:`marketdata.options` from three capabilities' answers: the chain
(``options``), the underlying's quote (``v2_quotes``: its price and dividend yield) and the
Treasury par curve (``treasury_yields``: the risk-free rate at each expiry). Conventions:
``marketdata/options/README.md`` and the README's "Options analytics".

Which volatility a contract's greeks use: the one solved from its mid under the model
(``ivSource: mid``), so that the greeks, the rate and the dividend yield are one consistent
set; where the mid cannot be solved (no two-sided quote, outside the no-arbitrage bounds)
Yahoo's ``impliedVolatility`` when it is a real value (at least :data:`YAHOO_IV_FLOOR`:
Yahoo sends placeholders such as 1e-5), else none and null greeks: no answer rather than
a wrong one.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from apps.core.symbols import require_symbol
from marketdata.capabilities import macro, options, quotes
from marketdata.concurrency import run_parallel
from marketdata.errors import BadRequest
from marketdata.formatting import raw
from marketdata.options import implied, pricing, rates
from marketdata.options.surface import DEFAULT_MONEYNESS, surface
from marketdata.records.macro import YieldCurveRow
from marketdata.records.options import (
    ChainGreeks,
    ContractGreeks,
    OptionChain,
    OptionContract,
    SurfaceExpiry,
    SurfacePoint,
    VolatilitySurface,
)

YAHOO_IV_FLOOR = 1e-3
MODELS = {"european": "black-scholes-merton", "american": "bjerksund-stensland-2002"}
# Expiries one surface reads at most (one chain request each).
MAX_SURFACE_EXPIRIES = 24


def now() -> dt.datetime:
    """The time the analytics are computed at: this minute (a greek moves by a minute's
    theta at most), so that answers are the same within a minute and can be cached."""
    return dt.datetime.now(dt.UTC).replace(second=0, microsecond=0)


@dataclass(frozen=True)
class Market:
    """What the model needs besides the chain."""

    spot: float | None
    dividend_yield: float  # continuous
    curve: YieldCurveRow | None


def _number(value: Any) -> float | None:
    value = raw(value) if isinstance(value, dict) else value
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def latest_curve(when: dt.datetime) -> YieldCurveRow | None:
    """The newest Treasury par curve (this year's, or last year's early in January)."""
    for year in (when.year, when.year - 1):
        rows = macro.treasury_yields(year, when.year)
        if rows:
            return max(rows, key=lambda row: row.date)
    return None


def market(symbol: str, when: dt.datetime) -> Market:
    """The underlying's price and dividend yield, and the par curve, fetched together."""
    quote_result, curve_result = run_parallel(
        lambda fetch: fetch(), [lambda: quotes.v2_quotes([symbol]).get(symbol),
                                lambda: latest_curve(when)])
    if isinstance(quote_result, BaseException):
        raise quote_result
    curve = None if isinstance(curve_result, BaseException) else curve_result
    spot = dividend = None
    if quote_result is not None:
        spot = _number(quote_result.regular_market_price)
        # The batch source sends the dividend yield in percent units (1.27 is 1.27 %).
        percent = _number(quote_result.dividend_yield)
        if percent is None:
            percent = _number(quote_result.trailing_annual_dividend_yield)
            percent = percent * 100 if percent is not None else None
        dividend = percent / 100 if percent is not None else None
    return Market(spot, rates.dividend_yield(dividend), curve)


def _or_none(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _contracts(chain: OptionChain) -> list[tuple[str, OptionContract]]:
    """Calls and puts, by strike, a call before the put of its strike."""
    rows = [("call", c) for c in chain.calls] + [("put", p) for p in chain.puts]
    return sorted(rows, key=lambda row: (row[1].strike if row[1].strike is not None
                                         else math.inf, row[0] != "call"))


def _selected(rows: list[tuple[str, OptionContract]], spot: float | None,
              kind: str | None, strikes: Sequence[float] | None,
              window: tuple[float, float] | None) -> list[tuple[str, OptionContract]]:
    out = []
    wanted = {round(s, 6) for s in strikes} if strikes else None
    for side, contract in rows:
        if kind and side != kind:
            continue
        if wanted is not None and (contract.strike is None or
                                   round(contract.strike, 6) not in wanted):
            continue
        if window is not None:
            if spot is None or contract.strike is None:
                continue
            if not window[0] <= contract.strike / spot <= window[1]:
                continue
        out.append((side, contract))
    return out


def _array(values: Sequence[Any]) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=float)


def greeks_for(symbol_text: str, expiration: int | None = None, *, kind: str | None = None,
               strikes: Sequence[float] | None = None,
               moneyness: tuple[float, float] | None = None,
               at: dt.datetime | None = None) -> ChainGreeks:
    """The greeks of one expiry of ``symbol``'s chain (``expiration``, else the nearest),
    its contracts filtered by ``kind``, ``strikes`` or a ``moneyness`` window of K/S."""
    symbol = require_symbol(symbol_text)
    when = at or now()
    chain = options.chain(symbol, expiration)
    found = market(symbol, when)
    style = pricing.exercise_style(symbol)
    rows = _selected(_contracts(chain), found.spot, kind, strikes, moneyness)
    T = float(pricing.time_to_expiry(chain.expiration_date, when)[0]) \
        if chain.expiration_date is not None else math.nan
    r = float(rates.risk_free_rate(found.curve, T)) if found.curve is not None \
        and math.isfinite(T) else math.nan
    S = found.spot if found.spot is not None else math.nan
    q = found.dividend_yield
    contracts = [c for _, c in rows]
    is_call = np.array([side == "call" for side, _ in rows], dtype=bool)
    K = _array([c.strike for c in contracts])
    bid, ask = _array([c.bid for c in contracts]), _array([c.ask for c in contracts])
    mids = implied.mid(bid, ask) if contracts else np.array([])
    solved = implied.implied_volatility(mids, S, K, T, r, q, is_call, style) \
        if contracts else np.array([])
    yahoo = _array([c.implied_volatility for c in contracts])
    use_yahoo = ~np.isfinite(solved) & np.isfinite(yahoo) & (yahoo >= YAHOO_IV_FLOOR)
    sigma = np.where(np.isfinite(solved), solved, np.where(use_yahoo, yahoo, np.nan))
    g = pricing.greeks(S, K, T, r, q, sigma, is_call, style) if contracts else None
    out = []
    for i, (side, contract) in enumerate(rows):
        has_iv = math.isfinite(sigma[i])
        out.append(ContractGreeks(
            contract_symbol=contract.contract_symbol, type=side,  # type: ignore[arg-type]
            strike=contract.strike,
            moneyness=_or_none(K[i] / S) if math.isfinite(S) and S > 0 else None,
            bid=contract.bid, ask=contract.ask, mid=_or_none(mids[i]),
            last_price=contract.last_price,
            implied_volatility=_or_none(sigma[i]),
            iv_source=("mid" if math.isfinite(solved[i]) else "yahoo") if has_iv else None,
            model_price=_or_none(g.price[i]) if g is not None and has_iv else None,
            delta=_or_none(g.delta[i]) if g is not None and has_iv else None,
            gamma=_or_none(g.gamma[i]) if g is not None and has_iv else None,
            theta=_or_none(g.theta[i]) if g is not None and has_iv else None,
            vega=_or_none(g.vega[i]) if g is not None and has_iv else None,
            rho=_or_none(g.rho[i]) if g is not None and has_iv else None,
            open_interest=contract.open_interest, volume=contract.volume))
    return ChainGreeks(
        symbol=chain.symbol, expiration=chain.expiration_date,
        expiration_dates=list(chain.expiration_dates), underlying_price=found.spot,
        time_to_expiry=_or_none(T), risk_free_rate=_or_none(r),
        rate_date=found.curve.date if found.curve is not None else None,
        dividend_yield=q, style=style, model=MODELS[style],  # type: ignore[arg-type]
        as_of=int(when.timestamp()), contracts=out)


def surface_for(symbol_text: str, *, expirations: int = 8,
                moneyness: Sequence[float] = DEFAULT_MONEYNESS,
                at: dt.datetime | None = None) -> VolatilitySurface:
    """The implied-volatility surface of ``symbol``'s first ``expirations`` listed expiries
    (one chain request each, in parallel) on the ``moneyness`` grid."""
    symbol = require_symbol(symbol_text)
    if not 1 <= expirations <= MAX_SURFACE_EXPIRIES:
        raise BadRequest(f"expirations must be between 1 and {MAX_SURFACE_EXPIRIES}")
    when = at or now()
    first = options.chain(symbol, None)
    found = market(symbol, when)
    style = pricing.exercise_style(symbol)
    wanted = [e for e in first.expiration_dates
              if float(pricing.time_to_expiry(e, when)[0]) > 0][:expirations]
    others = [e for e in wanted if e != first.expiration_date]
    results = run_parallel(lambda e: options.chain(symbol, e), others)
    by_expiry = {first.expiration_date: first} if first.expiration_date in wanted else {}
    for expiry, result in zip(others, results, strict=True):
        if isinstance(result, BaseException):
            raise result
        by_expiry[expiry] = result
    chains = [by_expiry[e] for e in wanted if e in by_expiry]
    rows = [(chain.expiration_date, side, c) for chain in chains
            for side, c in _contracts(chain)]
    S = found.spot if found.spot is not None else math.nan
    T = pricing.time_to_expiry(np.array([e for e, _, _ in rows], dtype=float), when) \
        if rows else np.array([])
    r = rates.risk_free_rate(found.curve, T) if found.curve is not None else \
        np.full(T.shape, np.nan)
    grid_moneyness = np.array(sorted(moneyness), dtype=float)
    built = surface(T, _array([c.strike for _, _, c in rows]),
                    np.array([side == "call" for _, side, _ in rows], dtype=bool),
                    _array([c.bid for _, _, c in rows]), _array([c.ask for _, _, c in rows]),
                    S, r, found.dividend_yield, style, moneyness=grid_moneyness) \
        if rows else None
    expiries: list[SurfaceExpiry] = []
    points: list[SurfacePoint] = []
    for expiry in wanted:
        years = float(pricing.time_to_expiry(expiry, when)[0])
        if built is not None:
            mask = (T == years) & built.liquid & np.isfinite(built.iv)
            found_rows = np.flatnonzero(np.isclose(built.expiries, years, rtol=0, atol=1e-12))
            row = int(found_rows[0]) if found_rows.size else -1
        else:
            mask, row = np.array([], dtype=bool), -1
        rate = float(rates.risk_free_rate(found.curve, years)) if found.curve is not None \
            else math.nan
        expiries.append(SurfaceExpiry(
            expiration=int(expiry), time_to_expiry=years, risk_free_rate=_or_none(rate),
            contracts=int(mask.sum()),
            atm_volatility=_or_none(built.atm[row]) if row >= 0 and built else None,
            skew_25_delta=_or_none(built.skew25[row]) if row >= 0 and built else None))
        for j, k in enumerate(grid_moneyness):
            value = built.grid[row, j] if row >= 0 and built is not None else math.nan
            points.append(SurfacePoint(int(expiry), years, float(k), _or_none(value)))
    return VolatilitySurface(
        symbol=first.symbol, underlying_price=found.spot,
        dividend_yield=found.dividend_yield,
        rate_date=found.curve.date if found.curve is not None else None,
        style=style, model=MODELS[style],  # type: ignore[arg-type]
        as_of=int(when.timestamp()), moneyness=[float(k) for k in grid_moneyness],
        expirations=expiries, grid=points)
