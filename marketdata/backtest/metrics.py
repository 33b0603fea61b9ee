"""Every metric of a backtest, from the equity curve and the trades, vectorised.

Definitions and units are listed in README.md ("Metrics"); the short version:

- members ending in ``Pct`` are percentages (5.0 = 5 %); ``winRate`` and
  ``kellyCriterion`` are fractions; money is in the chart's currency;
- trade durations and ``maxIdlePeriod`` are seconds, ``maxDrawdownDuration`` is bars;
- bar returns are close-to-close changes of the equity curve; ratios that annualise them
  use the interval's bars per year (:data:`BARS_PER_YEAR`), ``annualizedReturnPct``
  uses calendar time;
- every value is finite: a ratio whose denominator is 0 is :data:`RATIO_CAP` when its
  numerator is positive and 0 otherwise, every ratio is clipped to +/- ``RATIO_CAP``,
  and any other value to +/- :data:`VALUE_CAP`. An empty input gives zeros.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from marketdata.records.members import member, members_of

# Trading bars in a year of US sessions (252 days of 6.5 hours; Yahoo's 1h bars are 7 a
# session, its 90m bars 5).
BARS_PER_YEAR: dict[str, float] = {
    "1m": 252 * 390, "2m": 252 * 195, "5m": 252 * 78, "15m": 252 * 26, "30m": 252 * 13,
    "1h": 252 * 7, "90m": 252 * 5, "1d": 252, "5d": 252 / 5, "1wk": 52, "1mo": 12, "3mo": 4,
}
SECONDS_PER_YEAR = 365.25 * 86400
RATIO_CAP = 1e6
VALUE_CAP = 1e15

# Units where the name does not say them (a name ending in Pct or Ratio does: the schema
# describes those by name).
_MONEY, _SECONDS, _FRACTION = "In the chart's currency", "Seconds", "A fraction: 0.5 is 50 %"


@dataclass(frozen=True)
class BacktestMetrics:
    """Every metric of a run as an answer's members: numbers, then integers, each group in
    name order (the spec's). Definitions: README.md ("Metrics"); the engine computes them as
    a dict by member name (:func:`compute_metrics`), :meth:`of` reads that."""

    annualized_return_pct: float = member()
    avg_loss_duration: float = member(_SECONDS)
    avg_loss_pct: float = member()
    avg_trade_duration: float = member(_SECONDS)
    avg_trade_return_pct: float = member()
    avg_win_duration: float = member(_SECONDS)
    avg_win_pct: float = member()
    calmar_ratio: float = member()
    expectancy: float = member("Mean pnl per trade, in the chart's currency")
    kelly_criterion: float = member(_FRACTION)
    largest_loss: float = member(_MONEY)
    largest_win: float = member(_MONEY)
    max_drawdown_pct: float = member()
    omega_ratio: float = member()
    profit_factor: float = member("Gross profit / gross loss, a ratio")
    recovery_factor: float = member("totalReturnPct / maxDrawdownPct, a ratio")
    serenity_ratio: float = member()
    sharpe_ratio: float = member()
    sortino_ratio: float = member()
    sqn: float = member("System quality number, a ratio")
    tail_ratio: float = member()
    time_in_market_pct: float = member()
    total_commission: float = member(_MONEY)
    total_dividend_income: float = member(_MONEY)
    total_financing_cost: float = member(_MONEY)
    total_return_pct: float = member()
    ulcer_index: float = member("Percent")
    win_rate: float = member(_FRACTION)
    executed_signals: int = member()
    long_trades: int = member()
    losing_trades: int = member()
    max_consecutive_losses: int = member()
    max_consecutive_wins: int = member()
    max_drawdown_duration: int = member("Bars")
    max_idle_period: int = member(_SECONDS)
    short_trades: int = member()
    total_signals: int = member()
    total_trades: int = member()
    winning_trades: int = member()

    @classmethod
    def of(cls, values: Mapping[str, float | int]) -> BacktestMetrics:
        """The record of :func:`compute_metrics`' dict."""
        given: dict[str, Any] = {m.attribute: values[m.name]
                                 for m in members_of(BacktestMetrics)}
        return cls(**given)


# The metrics' names, by JSON type, in the record's order.
NUMBER_METRICS = tuple(m.name for m in members_of(BacktestMetrics)
                       if m.schema["type"] == "number")
INTEGER_METRICS = tuple(m.name for m in members_of(BacktestMetrics)
                        if m.schema["type"] == "integer")
RATIOS = frozenset({"calmarRatio", "kellyCriterion", "omegaRatio", "profitFactor",
                    "recoveryFactor", "serenityRatio", "sharpeRatio", "sortinoRatio", "sqn",
                    "tailRatio"})


@dataclass(frozen=True)
class TradeColumns:
    """The closed trades as parallel arrays (one row per trade, entry order)."""

    side: np.ndarray  # +1 long, -1 short
    entry_timestamp: np.ndarray
    exit_timestamp: np.ndarray
    pnl: np.ndarray
    return_pct: np.ndarray
    commission: np.ndarray
    dividend_income: np.ndarray
    financing_cost: np.ndarray


def ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator; RATIO_CAP for a positive numerator over 0, else 0 over 0."""
    if denominator > 0.0:
        return numerator / denominator
    return RATIO_CAP if numerator > 0.0 else 0.0


def drawdown_pct(equity: np.ndarray) -> np.ndarray:
    """(running peak - equity) / running peak x 100 at each point (0 at a new peak)."""
    if equity.size == 0:
        return equity.copy()
    peak = np.maximum.accumulate(equity)
    out = np.zeros(equity.size)
    np.divide((peak - equity) * 100.0, peak, out=out, where=peak > 0.0)
    return out


def bar_returns(equity: np.ndarray) -> np.ndarray:
    """equity[i] / equity[i-1] - 1 for i >= 1 (0 after a non-positive equity)."""
    if equity.size < 2:
        return np.zeros(0)
    previous = equity[:-1]
    out = np.zeros(previous.size)
    np.divide(equity[1:], previous, out=out, where=previous > 0.0)
    out[previous > 0.0] -= 1.0
    return out


def longest_run(mask: np.ndarray) -> int:
    """Length of the longest run of True."""
    if not mask.any():
        return 0
    padded = np.concatenate(([0], mask.astype(np.int8), [0]))
    edges = np.flatnonzero(np.diff(padded))
    return int((edges[1::2] - edges[::2]).max())


def streaks(outcome: np.ndarray) -> tuple[int, int]:
    """Longest run of wins (+1) and of losses (-1); a break-even trade (0) ends both."""
    return longest_run(outcome > 0), longest_run(outcome < 0)


def compute_metrics(equity: np.ndarray, timestamps: np.ndarray, held: np.ndarray,
                    trades: TradeColumns, initial_capital: float, bars_per_year: float,
                    total_signals: int, executed_signals: int) -> dict[str, float | int]:
    """The spec's metrics, numbers then integers (each group in the spec's order)."""
    n = equity.size
    final = float(equity[-1]) if n else initial_capital
    dd = drawdown_pct(equity)
    returns = bar_returns(equity)
    m: dict[str, float] = {}

    total_return = (final / initial_capital - 1.0) * 100.0
    years = float(timestamps[-1] - timestamps[0]) / SECONDS_PER_YEAR if n >= 2 else 0.0
    if years <= 0.0:
        annualized = 0.0
    elif final <= 0.0:
        annualized = -100.0
    else:
        exponent = math.log(final / initial_capital) / years
        annualized = (math.exp(exponent) - 1.0) * 100.0 if exponent < 700 else VALUE_CAP
    max_dd = float(dd.max()) if n else 0.0
    ulcer = float(np.sqrt(np.mean(dd * dd))) if n else 0.0

    if returns.size >= 2:
        mean = float(returns.mean())
        sd = float(returns.std(ddof=1))
        downside = math.sqrt(float(np.sum(np.minimum(returns, 0.0) ** 2)) / (returns.size - 1))
        scale = math.sqrt(bars_per_year)
        sharpe = mean / sd * scale if sd > 0.0 else (RATIO_CAP if mean > 0.0 else 0.0)
        sortino = mean / downside * scale if downside > 0.0 else \
            (RATIO_CAP if mean > 0.0 else 0.0)
    else:
        sharpe = sortino = 0.0
    omega = ratio(float(returns[returns > 0.0].sum()), float(-returns[returns < 0.0].sum()))
    # Tail ratio over the bars with market exposure (a flat stretch is no tail).
    exposed = returns[held[1:] | held[:-1]] if n >= 2 else returns
    if exposed.size >= 2:
        p95, p5 = np.percentile(exposed, [95.0, 5.0])
        tail = ratio(abs(float(p95)), abs(float(p5)))
    else:
        tail = 0.0

    pnl, ret = trades.pnl, trades.return_pct
    count = pnl.size
    wins, losses = pnl > 0.0, pnl < 0.0
    n_wins, n_losses = int(wins.sum()), int(losses.sum())
    durations = (trades.exit_timestamp - trades.entry_timestamp).astype(np.float64)
    win_rate = n_wins / count if count else 0.0
    avg_win = float(ret[wins].mean()) if n_wins else 0.0
    avg_loss = float(ret[losses].mean()) if n_losses else 0.0
    if not n_wins:
        kelly = 0.0
    elif not n_losses:
        kelly = win_rate
    else:
        kelly = win_rate - (1.0 - win_rate) / (avg_win / abs(avg_loss))
    if count >= 2 and float(ret.std(ddof=1)) > 0.0:
        sqn = float(ret.mean()) / float(ret.std(ddof=1)) * math.sqrt(count)
    else:
        sqn = 0.0
    idle = int((trades.entry_timestamp[1:] - trades.exit_timestamp[:-1]).max()) \
        if count >= 2 else 0
    max_wins, max_losses = streaks(np.sign(pnl))

    m.update({
        "annualizedReturnPct": annualized,
        "avgLossDuration": float(durations[losses].mean()) if n_losses else 0.0,
        "avgLossPct": avg_loss,
        "avgTradeDuration": float(durations.mean()) if count else 0.0,
        "avgTradeReturnPct": float(ret.mean()) if count else 0.0,
        "avgWinDuration": float(durations[wins].mean()) if n_wins else 0.0,
        "avgWinPct": avg_win,
        "calmarRatio": ratio(annualized, max_dd),
        "expectancy": float(pnl.mean()) if count else 0.0,
        "kellyCriterion": kelly,
        "largestLoss": float(pnl[losses].min()) if n_losses else 0.0,
        "largestWin": float(pnl[wins].max()) if n_wins else 0.0,
        "maxDrawdownPct": max_dd,
        "omegaRatio": omega,
        "profitFactor": ratio(float(pnl[wins].sum()), float(-pnl[losses].sum())),
        "recoveryFactor": ratio(total_return, max_dd),
        "serenityRatio": ratio(annualized, ulcer),
        "sharpeRatio": sharpe,
        "sortinoRatio": sortino,
        "sqn": sqn,
        "tailRatio": tail,
        "timeInMarketPct": float(held.mean()) * 100.0 if n else 0.0,
        "totalCommission": float(trades.commission.sum()),
        "totalDividendIncome": float(trades.dividend_income.sum()),
        "totalFinancingCost": float(trades.financing_cost.sum()),
        "totalReturnPct": total_return,
        "ulcerIndex": ulcer,
        "winRate": win_rate,
    })
    out: dict[str, float | int] = {name: finite(m[name], name in RATIOS)
                                   for name in NUMBER_METRICS}
    out.update({
        "executedSignals": int(executed_signals),
        "longTrades": int((trades.side > 0).sum()),
        "losingTrades": n_losses,
        "maxConsecutiveLosses": max_losses,
        "maxConsecutiveWins": max_wins,
        "maxDrawdownDuration": longest_run(equity < np.maximum.accumulate(equity))
        if n else 0,
        "maxIdlePeriod": idle,
        "shortTrades": int((trades.side < 0).sum()),
        "totalSignals": int(total_signals),
        "totalTrades": count,
        "winningTrades": n_wins,
    })
    return out


def finite(value: float, is_ratio: bool = False) -> float:
    """``value`` as a finite float: NaN -> 0, clipped to +/- RATIO_CAP (ratios) or
    +/- VALUE_CAP."""
    cap = RATIO_CAP if is_ratio else VALUE_CAP
    value = float(value)
    if math.isnan(value):
        return 0.0
    return max(-cap, min(cap, value))
