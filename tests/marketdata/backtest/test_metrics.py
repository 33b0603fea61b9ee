"""Every metric on hand-computed inputs, and the edge cases that must stay finite
(README.md "Metrics")."""

from __future__ import annotations

import json
import math
import statistics

import numpy as np
import pytest

from marketdata.backtest.metrics import (
    INTEGER_METRICS,
    NUMBER_METRICS,
    RATIO_CAP,
    VALUE_CAP,
    TradeColumns,
    compute_metrics,
    drawdown_pct,
    finite,
    longest_run,
)
from tests.marketdata.backtest.helpers import XL, L, flat, run

approx = pytest.approx
YEAR = 31_557_600  # 365.25 days


def trades(pnl=(), ret=None, side=None, entry=None, exit_=None, commission=None,
           dividends=None, financing=None) -> TradeColumns:
    n = len(pnl)

    def col(values, default=0.0, dtype=np.float64):
        return np.asarray(values if values is not None else [default] * n, dtype=dtype)

    return TradeColumns(col(side, 1.0), col(entry, 0, np.int64), col(exit_, 0, np.int64),
                        col(pnl), col(ret if ret is not None else pnl), col(commission),
                        col(dividends), col(financing))


def test_every_metric_by_hand():
    equity = np.array([100.0, 110.0, 99.0, 121.0])
    stamps = np.array([0, YEAR // 3, 2 * YEAR // 3, YEAR])
    held = np.array([False, True, True, True])
    book = trades(pnl=[10, -5, 20], side=[1, -1, 1], entry=[0, 100, 300], exit_=[50, 200, 600],
                  commission=[1, 1, 2], dividends=[0.5, -0.25, 0], financing=[0, 0.1, 0])
    m = compute_metrics(equity, stamps, held, book, 100.0, bars_per_year=3.0,
                        total_signals=7, executed_signals=6)
    assert list(m) == list(NUMBER_METRICS) + list(INTEGER_METRICS)

    r = [0.1, -0.1, 121 / 99 - 1]
    mean, sd = statistics.mean(r), statistics.stdev(r)
    assert m["totalReturnPct"] == approx(21.0)
    assert m["annualizedReturnPct"] == approx(21.0)  # exactly one calendar year
    assert m["sharpeRatio"] == approx(mean / sd * math.sqrt(3))
    assert m["sortinoRatio"] == approx(mean / math.sqrt(0.1 ** 2 / 2) * math.sqrt(3))
    assert m["maxDrawdownPct"] == approx(10.0)        # 110 -> 99
    assert m["maxDrawdownDuration"] == 1
    assert m["ulcerIndex"] == approx(math.sqrt(10.0 ** 2 / 4))
    assert m["calmarRatio"] == approx(2.1)
    assert m["recoveryFactor"] == approx(2.1)
    assert m["serenityRatio"] == approx(21.0 / 5.0)
    assert m["omegaRatio"] == approx((0.1 + r[2]) / 0.1)
    # sorted returns -0.1, 0.1, 0.2222: p95 at rank 1.9, p5 at rank 0.1 (linear)
    p95 = 0.1 + 0.9 * (r[2] - 0.1)
    p5 = -0.1 + 0.1 * (0.1 - -0.1)
    assert m["tailRatio"] == approx(p95 / abs(p5))
    assert m["timeInMarketPct"] == approx(75.0)

    assert m["winRate"] == approx(2 / 3)
    assert m["profitFactor"] == approx(30 / 5)
    assert m["avgTradeReturnPct"] == approx(25 / 3)
    assert (m["avgWinPct"], m["avgLossPct"]) == (approx(15.0), approx(-5.0))
    assert m["avgTradeDuration"] == approx(150.0)
    assert (m["avgWinDuration"], m["avgLossDuration"]) == (approx(175.0), approx(100.0))
    assert (m["largestWin"], m["largestLoss"]) == (20.0, -5.0)
    assert m["expectancy"] == approx(2 / 3 * 15 + 1 / 3 * -5)
    assert m["kellyCriterion"] == approx(2 / 3 - (1 / 3) / (15 / 5))
    assert m["sqn"] == approx(statistics.mean([10, -5, 20]) / statistics.stdev([10, -5, 20])
                              * math.sqrt(3))
    assert (m["totalCommission"], m["totalDividendIncome"], m["totalFinancingCost"]) == \
        (approx(4.0), approx(0.25), approx(0.1))
    assert {k: m[k] for k in INTEGER_METRICS} == {
        "executedSignals": 6, "longTrades": 2, "losingTrades": 1, "maxConsecutiveLosses": 1,
        "maxConsecutiveWins": 1, "maxDrawdownDuration": 1, "maxIdlePeriod": 100,
        "shortTrades": 1, "totalSignals": 7, "totalTrades": 3, "winningTrades": 2}
    assert all(isinstance(m[k], int) for k in INTEGER_METRICS)
    assert all(isinstance(m[k], float) for k in NUMBER_METRICS)


def test_streaks_reset_on_break_even_and_the_unrecovered_tail_counts():
    book = trades(pnl=[1, 2, 0, 3, -1, -2, -3, 4])
    equity = np.array([100.0, 120, 90, 95, 119, 125, 124, 123, 122])
    m = compute_metrics(equity, np.arange(9) * 86400, np.ones(9, bool), book, 100.0, 252, 0, 0)
    assert (m["maxConsecutiveWins"], m["maxConsecutiveLosses"]) == (2, 3)
    assert m["maxDrawdownDuration"] == 3  # 90, 95, 119 below 120; then 124..122 below 125
    assert longest_run(np.array([True, True, False, True, True, True])) == 3
    assert drawdown_pct(equity).tolist()[:3] == approx([0.0, 0.0, 25.0])


def test_no_trades_and_a_flat_curve_are_all_zero_and_finite():
    result = run(flat([100, 101, 99, 100, 102]), [0] * 5)
    m = result.metrics
    assert m["totalTrades"] == 0 and m["totalReturnPct"] == 0.0
    assert all(value == 0 for value in m.values())
    json.dumps(m, allow_nan=False)
    assert result.diagnostics and "No trades" in result.diagnostics[0]


def test_no_losses_caps_the_ratios_and_kelly_is_the_win_rate():
    m = compute_metrics(np.array([100.0, 110.0, 121.0]), np.array([0, 86400, 172800]),
                        np.array([False, True, True]), trades(pnl=[5.0, 0.0, 5.0]), 100.0,
                        252, 3, 3)
    assert m["profitFactor"] == RATIO_CAP
    assert m["kellyCriterion"] == approx(2 / 3)
    assert m["sharpeRatio"] == RATIO_CAP  # returns 0.1, 0.1: no deviation, positive mean
    assert m["sortinoRatio"] == RATIO_CAP and m["omegaRatio"] == RATIO_CAP
    assert m["calmarRatio"] == RATIO_CAP and m["recoveryFactor"] == RATIO_CAP
    assert m["serenityRatio"] == RATIO_CAP
    assert m["maxDrawdownPct"] == 0.0
    assert m["largestLoss"] == 0.0 and m["avgLossPct"] == 0.0


def test_only_losses():
    m = compute_metrics(np.array([100.0, 90.0, 81.0]), np.array([0, 86400, 172800]),
                        np.array([False, True, True]), trades(pnl=[-5.0, -5.0]), 100.0,
                        252, 2, 2)
    assert m["profitFactor"] == 0.0 and m["kellyCriterion"] == 0.0 and m["winRate"] == 0.0
    assert m["omegaRatio"] == 0.0 and m["sqn"] == 0.0  # no deviation among the trades
    assert m["sharpeRatio"] == 0.0  # no deviation, negative mean: not a cap
    assert m["annualizedReturnPct"] < 0 and m["calmarRatio"] < 0


def test_extreme_values_are_capped_and_wiped_out_equity_is_minus_100_pct_a_year():
    m = compute_metrics(np.array([100.0, 1e9]), np.array([0, 86400]), np.array([False, True]),
                        trades(), 100.0, 252, 0, 0)
    assert m["annualizedReturnPct"] == VALUE_CAP
    assert m["serenityRatio"] == RATIO_CAP
    m = compute_metrics(np.array([100.0, -5.0]), np.array([0, 86400]), np.array([False, True]),
                        trades(pnl=[-105.0]), 100.0, 252, 1, 1)
    assert m["annualizedReturnPct"] == -100.0
    json.dumps(m, allow_nan=False)


def test_finite():
    assert finite(float("nan")) == 0.0
    assert finite(float("inf")) == VALUE_CAP and finite(-float("inf"), True) == -RATIO_CAP
    assert finite(3.5) == 3.5


def test_metrics_of_a_run_match_its_trades():
    bars = flat([100, 100, 110, 110, 110, 99, 99, 99, 121])
    # in at 1's open (100), out at 3's open (110); in at 4's open (110), out at 5's (99)
    result = run(bars, [L, 0, XL, L, XL, 0, 0, 0, 0])
    m = result.metrics
    assert [t.return_pct for t in result.trades] == approx([10.0, -10.0])
    assert m["totalTrades"] == 2 and m["winRate"] == 0.5
    assert m["totalReturnPct"] == approx((110 / 100 * 99 / 110 - 1) * 100)
    assert result.held.tolist() == [False, True, True, False, True, False, False, False, False]
    assert m["timeInMarketPct"] == approx(100 * 3 / 9)
    assert m["maxIdlePeriod"] == 86400  # out at bar 3's open, in again at bar 4's
