"""The SMA crossover against backtesting.py on real daily data (its bundled GOOG series).

backtesting.py (AGPL-3.0) is a test-only dependency (requirements/dev.txt): imported here
and by bench/backtest.py, never by the service. Settings are matched as README.md
("Cross-check against backtesting.py") lists: fractional units through FractionalBacktest,
our crossing rule in its strategy, no slippage (its `spread` moves only entries), and its
last position, left open, valued at the last close less the exit commission we pay.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from backtesting import Strategy
from backtesting.lib import FractionalBacktest
from backtesting.test import GOOG, SMA

from marketdata.backtest.engine import backtest
from marketdata.indicators.bars import PriceArrays

UNIT = 1e-8  # FractionalBacktest's share unit
ALL_IN = 1 - 1e-12  # backtesting.py reads a size of 1 as one unit: "all" must be below 1


class SmaCross(Strategy):
    fast = 10
    slow = 20
    short = False
    size = ALL_IN

    def init(self):
        self.fast_sma = self.I(SMA, self.data.Close, self.fast)
        self.slow_sma = self.I(SMA, self.data.Close, self.slow)

    def next(self):
        f, s = self.fast_sma, self.slow_sma
        # Our rule (backtesting.lib.crossover uses < on the previous bar).
        above = f[-2] <= s[-2] and f[-1] > s[-1]
        below = f[-2] >= s[-2] and f[-1] < s[-1]
        if above:
            if self.position.is_short:
                self.position.close()
            if not self.position.is_long:
                self.buy(size=self.size)
        elif below:
            if self.position.is_long:
                self.position.close()
            if self.short and not self.position.is_short:
                self.sell(size=self.size)


def goog_bars() -> PriceArrays:
    stamps = GOOG.index.values.astype("datetime64[s]").astype("int64")
    return PriceArrays.from_columns(stamps, GOOG.Open, GOOG.High, GOOG.Low, GOOG.Close, GOOG.Volume)


CASES = {
    "long only": dict(fast=10, slow=20, short=False, commission=0.002, size=1.0),
    "long and short": dict(fast=10, slow=20, short=True, commission=0.002, size=1.0),
    "half the cash, 5/30": dict(fast=5, slow=30, short=False, commission=0.001, size=0.5),
    "no costs, 20/50, short": dict(fast=20, slow=50, short=True, commission=0.0, size=1.0),
}


@pytest.mark.parametrize("case", CASES)
def test_sma_crossover_matches_backtesting_py(case):
    c = CASES[case]
    bt = FractionalBacktest(GOOG, SmaCross, cash=10_000, commission=c["commission"],
                            fractional_unit=UNIT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = bt.run(fast=c["fast"], slow=c["slow"], short=c["short"],
                       size=ALL_IN if c["size"] == 1.0 else c["size"])
    ours = backtest(goog_bars(), "sma_crossover", {
        "fastPeriod": c["fast"], "slowPeriod": c["slow"], "allowShort": c["short"],
        "commissionPct": c["commission"], "slippagePct": 0.0, "positionSizePct": c["size"],
        "initialCapital": 10_000})

    closed = stats._trades
    theirs = [(int(entry), int(exit_), "long" if size > 0 else "short")
              for entry, exit_, size in zip(closed.EntryBar, closed.ExitBar, closed.Size,
                                            strict=True)]
    still_open = stats._strategy.trades  # left open at the end (finalize_trades=False)
    ours_trades = [(t.entry_bar, t.exit_bar, t.side) for t in ours.trades]
    assert len(theirs) > 20
    assert ours_trades[:len(theirs)] == theirs
    last_close = float(GOOG.Close.iloc[-1])
    exit_commission = 0.0
    if still_open:
        [position] = still_open
        assert ours_trades[len(theirs):] == [
            (position.entry_bar, len(GOOG) - 1, "long" if position.is_long else "short")]
        exit_commission = abs(position.size) * UNIT * last_close * c["commission"]
    else:
        assert len(ours_trades) == len(theirs)
    # P&L of every closed trade; their sizes are whole units of 1e-8 shares.
    assert [t.pnl for t in ours.trades[:len(theirs)]] == pytest.approx(
        list(closed.PnL), rel=1e-6, abs=1e-4)

    # Every equity point but the last (where we pay the exit commission they do not).
    equity = stats._equity_curve.Equity.to_numpy()
    assert np.max(np.abs(ours.equity[:-1] / equity[:-1] - 1)) < 1e-8
    final = float(stats["Equity Final [$]"]) - exit_commission
    assert abs(ours.final_equity / final - 1) < 1e-4  # the 0.01 %
    assert abs(ours.final_equity / final - 1) < 1e-8  # what is observed
