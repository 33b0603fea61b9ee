"""The engine's execution rules, each on a tiny series whose every fill, fee and balance is
computed by hand here (README.md "Execution semantics")."""

from __future__ import annotations

import numpy as np
import pytest

from marketdata.backtest.engine import dividends_per_bar, run_backtest
from marketdata.backtest.params import RunConfig
from marketdata.backtest.strategies import SmaCrossover
from tests.marketdata.backtest.helpers import (
    DAY,
    T0,
    XL,
    XS,
    L,
    S,
    Scripted,
    flat,
    make_bars,
    run,
)

approx = pytest.approx


# -- fills at the next open, sizing, costs ----------------------------------------------------
def test_signal_fills_at_next_open_with_sizing_commission_and_slippage():
    bars = make_bars([
        (100, 100, 100, 100),   # 0: long signal at the close
        (102, 103, 101, 102),   # 1: entry at the open
        (104, 106, 103, 105),   # 2: exit signal at the close
        (110, 111, 109, 110),   # 3: exit at the open
        (108, 109, 107, 108),   # 4: (last) a long signal: recorded, never filled
    ])
    result = run(bars, [L, 0, XL, 0, L], initial_capital=10_000, commission_pct=0.01,
                 slippage_pct=0.02, position_size_pct=0.5)

    entry = 102 * 1.02                      # slippage against a buyer
    qty = 10_000 * 0.5 / (entry * 1.01)     # half the cash, entry commission reserved
    entry_fee = qty * entry * 0.01
    cash = 10_000 - qty * entry - entry_fee
    assert qty * entry + entry_fee == approx(5_000)  # exactly half the cash committed
    exit_ = 110 * 0.98                      # slippage against a seller
    exit_fee = qty * exit_ * 0.01
    final = cash + qty * exit_ - exit_fee

    [trade] = result.trades
    assert (trade.side, trade.entry_bar, trade.exit_bar) == ("long", 1, 3)
    assert (trade.entry_timestamp, trade.exit_timestamp) == (T0 + DAY, T0 + 3 * DAY)
    assert trade.entry_price == approx(entry) and trade.exit_price == approx(exit_)
    assert trade.quantity == approx(qty)
    assert trade.commission == approx(entry_fee + exit_fee)
    assert trade.pnl == approx(qty * (exit_ - entry) - entry_fee - exit_fee)
    assert trade.return_pct == approx(trade.pnl / (entry * qty) * 100)
    assert trade.tags == ()
    assert trade.entry_signal.timestamp == T0 and trade.entry_signal.price == 100
    assert trade.exit_signal.timestamp == T0 + 2 * DAY and trade.exit_signal.price == 105

    assert result.equity.tolist() == approx([
        10_000, cash + qty * 102, cash + qty * 105, final, final])
    assert result.final_equity == approx(final)
    # The signal on the last bar is recorded, not executed.
    assert [s.outcome for s in result.signals] == ["executed", "executed", "last_bar"]
    assert result.metrics["totalSignals"] == 3 and result.metrics["executedSignals"] == 2
    assert any("last bar" in d for d in result.diagnostics)


def test_a_position_open_at_the_end_is_closed_at_the_last_close():
    bars = make_bars([(10, 10, 10, 10), (11, 12, 10, 11), (12, 13, 11, 12.5)])
    result = run(bars, [L, 0, 0], commission_pct=0.001, slippage_pct=0.001)
    entry = 11 * 1.001
    qty = 10_000 / (entry * 1.001)
    exit_ = 12.5 * 0.999
    final = qty * exit_ * (1 - 0.001)
    [trade] = result.trades
    assert (trade.entry_bar, trade.exit_bar, trade.exit_price) == (1, 2, approx(exit_))
    assert trade.tags == ("end_of_data",)
    assert trade.exit_signal.tags == ("end_of_data",)
    assert trade.exit_signal.reason.startswith("End of data")
    assert result.final_equity == approx(final) == result.equity[-1]
    assert result.metrics["totalSignals"] == 1  # the end's close is not a signal


def test_a_reversal_exits_then_enters_short_from_the_cash_after_the_exit():
    bars = flat([100, 100, 120, 120, 90, 90])
    # long signal at 0; at 2 the long exit and a short entry together; short exit at 4
    result = run(bars, [L, 0, XL | S, 0, XS, 0], allow_short=True, commission_pct=0.01)
    long_qty = 10_000 / (100 * 1.01)
    cash_after_long = 10_000 - long_qty * 100 * 1.01 + long_qty * 120 * 0.99
    short_qty = cash_after_long / (120 * 1.01)
    cash_short = cash_after_long + short_qty * 120 * 0.99
    final = cash_short - short_qty * 90 * 1.01
    first, second = result.trades
    assert (first.side, first.entry_bar, first.exit_bar) == ("long", 1, 3)
    assert (second.side, second.entry_bar, second.exit_bar) == ("short", 3, 5)
    assert second.quantity == approx(short_qty)
    assert second.pnl == approx(short_qty * (120 - 90) - short_qty * (120 + 90) * 0.01)
    assert result.final_equity == approx(final)
    assert result.metrics["shortTrades"] == 1 and result.metrics["longTrades"] == 1


def test_long_only_takes_no_short_and_says_so():
    bars = flat([100, 100, 120, 120, 90])
    result = run(bars, [S, 0, 0, S, 0])  # short signals while flat, allowShort false
    assert result.trades == []
    assert [s.outcome for s in result.signals] == ["shorts_disabled", "shorts_disabled"]
    assert result.metrics["totalSignals"] == 2 and result.metrics["executedSignals"] == 0
    assert result.equity.tolist() == [10_000] * 5
    text = " ".join(result.diagnostics)
    assert "No trades" in text and "allowShort is false" in text

    # Long: the short-entry flag alone only closes the long (no reversal).
    result = run(bars, [L, 0, XL | S, 0, 0])
    assert [t.side for t in result.trades] == ["long"]
    assert len(result.signals) == 2


def test_slippage_moves_every_fill_against_the_trader():
    bars = flat([100, 100, 100, 100, 100])
    result = run(bars, [S, 0, XS, 0, 0], allow_short=True, slippage_pct=0.01)
    [short] = result.trades
    assert short.entry_price == approx(99.0)   # a short sale fills lower
    assert short.exit_price == approx(101.0)   # a cover fills higher
    assert short.pnl == approx(short.quantity * -2.0)


# -- crossovers ---------------------------------------------------------------------------------
def test_crossing_rule_equal_before_counts_equal_now_does_not():
    # fast = SMA(1) = close, slow = SMA(2): [nan, 10, 10, 10.5, 10, 9, 10.5]
    closes = [10, 10, 10, 11, 9, 9, 12]
    plan = SmaCrossover(fastPeriod=1, slowPeriod=2).plan(flat(closes))
    # bar 3: 10 <= 10 before, 11 > 10.5 now: above. bar 4: 11 >= 10.5, 9 < 10: below.
    # bar 5: 9 == 9 now: no crossing. bar 6: 9 <= 9 before, 12 > 10.5: above.
    assert plan.flags.tolist() == [0, 0, 0, L | XS, XL | S, 0, L | XS]
    result = run_backtest(flat(closes), SmaCrossover(fastPeriod=1, slowPeriod=2),
                          RunConfig(commission_pct=0, slippage_pct=0))
    [trade] = result.trades
    assert (trade.entry_bar, trade.exit_bar, trade.entry_price, trade.exit_price) == \
        (4, 5, 9, 9)
    assert [(s.direction, s.bar, s.outcome) for s in result.signals] == [
        ("long", 3, "executed"), ("exit", 4, "executed"), ("long", 6, "last_bar")]
    assert result.signals[0].reason == "SMA(1) 11 crossed above SMA(2) 10.5"


# -- stop-loss and take-profit ------------------------------------------------------------------
@pytest.mark.parametrize(("bar", "fill", "tag"), [
    ((97, 98, 94, 96), 95.0, "stop_loss"),      # touched: filled at the level
    ((93, 94, 90, 92), 93.0, "stop_loss"),      # opened below it: filled at the open
    ((100, 111, 94, 100), 95.0, "stop_loss"),   # both touched: the stop first
    ((105, 111, 104, 106), 110.0, "take_profit"),
    ((112, 115, 111, 113), 112.0, "take_profit"),  # opened above it: at the open
])
def test_long_stop_and_take_profit_intrabar(bar, fill, tag):
    bars = make_bars([(100, 100, 100, 100), (100, 101, 99, 100), (100, 102, 96, 100), bar,
                      (50, 50, 50, 50)])
    result = run(bars, [L, 0, 0, 0, 0], stop_loss_pct=0.05, take_profit_pct=0.1)
    [trade] = result.trades
    assert (trade.exit_bar, trade.exit_price, trade.tags) == (3, approx(fill), (tag,))
    assert trade.pnl == approx(100 * (fill - 100))  # 100 shares at 100
    assert result.equity[3] == approx(10_000 + trade.pnl)
    assert result.equity[4] == result.equity[3]  # flat afterwards
    assert trade.exit_signal.timestamp == T0 + 3 * DAY
    assert ("opened beyond it" in trade.exit_signal.reason) == (fill in (93.0, 112.0))


@pytest.mark.parametrize(("bar", "fill", "tag"), [
    ((103, 106, 102, 104), 105.0, "stop_loss"),
    ((108, 109, 100, 101), 108.0, "stop_loss"),
    ((100, 106, 89, 100), 105.0, "stop_loss"),
    ((95, 96, 89, 92), 90.0, "take_profit"),
    ((85, 88, 84, 86), 85.0, "take_profit"),
])
def test_short_stop_and_take_profit_mirror(bar, fill, tag):
    bars = make_bars([(100, 100, 100, 100), (100, 101, 99, 100), bar, (100, 100, 100, 100)])
    result = run(bars, [S, 0, 0, 0], allow_short=True, stop_loss_pct=0.05,
                 take_profit_pct=0.1)
    [trade] = result.trades
    assert (trade.side, trade.exit_bar, trade.exit_price, trade.tags) == \
        ("short", 2, approx(fill), (tag,))
    assert trade.pnl == approx(100 * (100 - fill))


def test_stop_applies_on_the_entry_bar_and_pays_slippage_and_commission():
    bars = make_bars([(100, 100, 100, 100), (100, 100, 90, 92), (92, 92, 92, 92)])
    result = run(bars, [L, 0, 0], stop_loss_pct=0.05, slippage_pct=0.01,
                 commission_pct=0.001)
    entry = 101.0
    qty = 10_000 / (entry * 1.001)
    level = entry * 0.95
    fill = level * 0.99
    [trade] = result.trades
    assert (trade.entry_bar, trade.exit_bar) == (1, 1)
    assert trade.exit_price == approx(fill)
    assert trade.commission == approx(qty * entry * 0.001 + qty * fill * 0.001)
    assert result.held.tolist() == [False, False, False]  # never held at a close


# -- leverage, margin, financing ----------------------------------------------------------------
def test_leverage_borrows_cash_and_pays_margin_interest_per_bar():
    bars = flat([100, 100, 100, 100])
    result = run_backtest(bars, Scripted([L, 0, 0, 0]), RunConfig(
        commission_pct=0, slippage_pct=0, max_leverage=2.0, margin_interest_rate=0.252),
        bars_per_year=252)  # 0.001 per bar
    # bar 1: 200 shares at 100, cash -10,000; interest at closes 1, 2 and 3 (compounding)
    cash = -10_000.0
    costs, leverage = [], []
    for _ in range(3):
        costs.append(-cash * 0.001)
        cash -= costs[-1]
        leverage.append(20_000 / (20_000 + cash))  # position value / equity at the close
    [trade] = result.trades
    assert trade.quantity == approx(200)
    assert trade.financing_cost == approx(sum(costs))
    assert result.final_equity == approx(cash + 200 * 100)
    assert result.max_leverage_used == approx(max(leverage))
    assert result.metrics["totalFinancingCost"] == approx(sum(costs))


def test_maintenance_margin_forces_a_close_at_the_breaching_close():
    # 200 shares bought with 10,000 of cash and 10,000 borrowed. equity = 200 p - 10,000,
    # below 25 % of 200 p when p < 66.67: the close of bar 3 (66) breaches it.
    bars = flat([100, 100, 80, 66, 50, 60])
    result = run(bars, [L, 0, 0, 0, 0, 0], max_leverage=2.0)
    [trade] = result.trades
    assert (trade.exit_bar, trade.exit_price, trade.tags) == (3, 66.0, ("margin_call",))
    assert trade.exit_signal.reason.startswith("Margin call")
    assert result.equity.tolist() == approx([10_000, 10_000, 6_000, 3_200, 3_200, 3_200])


def test_a_short_pays_the_borrow_fee_on_its_value_at_each_close():
    bars = flat([100, 100, 110, 90])
    result = run_backtest(bars, Scripted([S, 0, 0, 0]), RunConfig(
        commission_pct=0, slippage_pct=0, allow_short=True, short_borrow_rate=0.252),
        bars_per_year=252)
    fees = [100 * 100 * 0.001, 100 * 110 * 0.001, 100 * 90 * 0.001]
    [trade] = result.trades
    assert trade.financing_cost == approx(sum(fees))
    assert trade.pnl == approx(100 * (100 - 90) - sum(fees))
    assert result.final_equity == approx(10_000 + trade.pnl)


def test_a_default_maintenance_margin_closes_a_runaway_short():
    # 100 shares short from 10,000: cash 20,000. At 170: equity 3,000 < 0.25 x 17,000.
    bars = flat([100, 100, 150, 170, 200])
    result = run(bars, [S, 0, 0, 0, 0], allow_short=True)
    [trade] = result.trades
    assert (trade.exit_bar, trade.exit_price, trade.tags) == (3, 170.0, ("margin_call",))
    assert result.final_equity == approx(3_000)


def test_no_cash_no_entry():
    bars = flat([100, 100, 300, 300, 300, 300])
    result = run(bars, [S, 0, 0, 0, L, 0], allow_short=True, maintenance_margin_pct=0.0)
    [trade] = result.trades  # the short is closed at equity <= 0, then nothing is left
    assert trade.tags == ("margin_call",)
    assert result.final_equity == approx(-10_000)
    assert result.signals[-1].outcome == "no_cash"
    assert any("no cash left" in d for d in result.diagnostics)


# -- dividends ----------------------------------------------------------------------------------
def test_dividend_credited_to_the_position_held_over_the_previous_close():
    bars = flat([100, 100, 100, 100, 100])
    dividends = [(T0 + 2 * DAY, 1.5), (T0 + 4 * DAY - 3600, 0.5)]  # ex on bars 2 and 4
    result = run_backtest(bars, Scripted([L, 0, 0, XL, 0]),
                          RunConfig(commission_pct=0, slippage_pct=0), dividends=dividends)
    [trade] = result.trades  # held over the closes of 1, 2, 3; sold at bar 4's open
    assert trade.dividend_income == approx(100 * 1.5 + 100 * 0.5)
    assert trade.pnl == approx(200)
    assert result.equity.tolist() == approx([10_000, 10_000, 10_150, 10_150, 10_200])
    assert result.metrics["totalDividendIncome"] == approx(200)


def test_no_dividend_for_a_position_bought_on_the_ex_date_and_a_short_pays_it():
    bars = flat([100, 100, 100, 100])
    bought_on_ex_date = run_backtest(bars, Scripted([0, L, 0, 0]), RunConfig(
        commission_pct=0, slippage_pct=0), dividends=[(T0 + 2 * DAY, 1.0)])
    assert bought_on_ex_date.trades[0].dividend_income == 0.0
    short = run_backtest(bars, Scripted([S, 0, 0, 0]), RunConfig(
        commission_pct=0, slippage_pct=0, allow_short=True),
        dividends=[(T0 + 2 * DAY, 1.0)])
    assert short.trades[0].dividend_income == approx(-100.0)
    assert short.final_equity == approx(9_900)


def test_dividends_map_to_bars():
    stamps = T0 + DAY * np.arange(4, dtype=np.int64)
    got = dividends_per_bar(stamps, [(T0 - 5, 9.0), (T0 + 1, 1.0), (T0 + DAY + 5, 2.0),
                                     (T0 + 2 * DAY, 0.5), (T0 + 10 * DAY, 7.0)])
    assert got.tolist() == [0.0, 1.0, 2.5, 0.0]


# -- edge cases ---------------------------------------------------------------------------------
@pytest.mark.parametrize("prices", [[], [100.0], [100.0, 100.0]])
def test_tiny_series_give_finite_results(prices):
    result = run(flat(prices), [L] * len(prices))
    assert result.equity.size == len(prices)
    assert result.final_equity == 10_000
    assert all(np.isfinite(v) for v in result.metrics.values())


def test_an_all_in_long_borrows_nothing():
    bars = make_bars([(100, 100, 100, 100), (100.37, 101, 99, 100.11), (100, 100, 100, 100)])
    result = run(bars, [L, 0, 0], commission_pct=0.0013, margin_interest_rate=0.5)
    assert result.trades[0].financing_cost == 0.0
