"""Each strategy's flags against a plain loop over the shared indicators (the rules of
README.md "Strategies", written out bar by bar), its warm-up, and that it trades."""

from __future__ import annotations

import math

import numpy as np
import pytest

from marketdata.backtest.engine import backtest, setup
from marketdata.backtest.strategies import (
    STRATEGIES,
    BollingerMeanReversion,
    BuyAndHold,
    DonchianBreakout,
    EmaCrossover,
    MacdSignal,
    RsiReversal,
    SmaCrossover,
    SupertrendFollow,
)
from marketdata.errors import InvalidParameters
from marketdata.indicators import classic, core, extra
from marketdata.indicators.bars import PriceArrays
from tests.marketdata.backtest.helpers import XL, XS, L, S, flat
from tests.price_series import bokeh_bars


def sine_bars(n: int = 300) -> PriceArrays:
    """Two overlaid waves: every strategy signals both ways on it."""
    i = np.arange(n)
    close = 100 + 10 * np.sin(i / 9.0) + 3 * np.sin(i / 2.3)
    return PriceArrays.from_columns(i * 86400, np.r_[close[:1], close[:-1]], close + 1.5,
                                    close - 1.5, close, np.full(n, 1000.0))


SERIES = {"AAPL": lambda: bokeh_bars("AAPL"), "IBM": lambda: bokeh_bars("IBM"),
          "sine": sine_bars}


def defined(*values: float) -> bool:
    return not any(math.isnan(v) for v in values)


def cross_flags(a: np.ndarray, b: np.ndarray) -> list[int]:
    """The crossing rule written out: above -> long entry + short exit, below -> long exit
    + short entry."""
    out = [0]
    for i in range(1, len(a)):
        flag = 0
        if defined(a[i - 1], b[i - 1], a[i], b[i]):
            if a[i - 1] <= b[i - 1] and a[i] > b[i]:
                flag |= L | XS
            if a[i - 1] >= b[i - 1] and a[i] < b[i]:
                flag |= XL | S
        out.append(flag)
    return out[:len(a)]


def oracle(strategy, bars: PriceArrays) -> list[int]:
    p, c = strategy.params, bars.close
    if isinstance(strategy, SmaCrossover):
        return cross_flags(core.sma(c, p["fastPeriod"]), core.sma(c, p["slowPeriod"]))
    if isinstance(strategy, EmaCrossover):
        return cross_flags(core.ema(c, p["fastPeriod"]), core.ema(c, p["slowPeriod"]))
    if isinstance(strategy, MacdSignal):
        m = classic.macd(c, p["fastPeriod"], p["slowPeriod"], p["signalPeriod"])
        return cross_flags(m.macd, m.signal)
    if isinstance(strategy, RsiReversal):
        rsi = classic.rsi(c, p["period"])
        out = [0]
        for i in range(1, len(c)):
            flag = 0
            if defined(rsi[i - 1], rsi[i]):
                if rsi[i - 1] <= p["oversold"] < rsi[i]:
                    flag |= L | XS
                if rsi[i - 1] >= p["overbought"] > rsi[i]:
                    flag |= XL | S
            out.append(flag)
        return out[:len(c)]
    if isinstance(strategy, BollingerMeanReversion):
        upper, middle, lower = classic.bollinger_bands(c, p["period"], p["stdDev"])
        out = []
        for i in range(len(c)):
            flag = 0
            if defined(middle[i]):
                flag |= L if c[i] <= lower[i] else 0
                flag |= S if c[i] >= upper[i] else 0
                if p["exitAtMiddle"]:
                    flag |= (XL if c[i] >= middle[i] else 0) | (XS if c[i] <= middle[i] else 0)
                else:
                    flag |= (XL if c[i] >= upper[i] else 0) | (XS if c[i] <= lower[i] else 0)
            out.append(flag)
        return out
    if isinstance(strategy, SupertrendFollow):
        trend = classic.supertrend(bars.high, bars.low, c, p["period"], p["multiplier"]).trend
        out = [0]
        for i in range(1, len(c)):
            flag = 0
            if trend[i - 1] == -1 and trend[i] == 1:
                flag = L | XS
            elif trend[i - 1] == 1 and trend[i] == -1:
                flag = XL | S
            out.append(flag)
        return out[:len(c)]
    if isinstance(strategy, DonchianBreakout):
        upper, middle, lower = extra.donchian_channels(bars.high, bars.low, p["period"])
        out = [0]
        for i in range(1, len(c)):
            flag = 0
            if defined(upper[i - 1]):
                flag |= L if c[i] > upper[i - 1] else 0
                flag |= S if c[i] < lower[i - 1] else 0
                if p["exitAtMiddle"]:
                    flag |= (XL if c[i] < middle[i - 1] else 0) | \
                        (XS if c[i] > middle[i - 1] else 0)
                else:
                    flag |= (XL if c[i] < lower[i - 1] else 0) | \
                        (XS if c[i] > upper[i - 1] else 0)
            out.append(flag)
        return out[:len(c)]
    assert isinstance(strategy, BuyAndHold)
    return [L] + [0] * (len(c) - 1)


VARIANTS = [
    ("sma_crossover", {}), ("sma_crossover", {"fastPeriod": 5, "slowPeriod": 50}),
    ("ema_crossover", {}), ("ema_crossover", {"fastPeriod": 3, "slowPeriod": 7}),
    ("rsi_reversal", {}), ("rsi_reversal", {"period": 5, "oversold": 40, "overbought": 60}),
    ("macd_signal", {}), ("macd_signal", {"fastPeriod": 5, "slowPeriod": 13,
                                          "signalPeriod": 4}),
    ("bollinger_mean_reversion", {}),
    ("bollinger_mean_reversion", {"period": 10, "stdDev": 1.0, "exitAtMiddle": False}),
    ("supertrend_follow", {}), ("supertrend_follow", {"period": 5, "multiplier": 1.5}),
    ("donchian_breakout", {}), ("donchian_breakout", {"period": 10, "exitAtMiddle": False}),
    ("buy_and_hold", {}),
]


@pytest.mark.parametrize("series", SERIES)
@pytest.mark.parametrize(("name", "params"), VARIANTS)
def test_flags_follow_the_rules(name, params, series):
    bars = SERIES[series]()
    strategy = STRATEGIES[name](**params)
    with np.errstate(all="raise"):
        flags = strategy.plan(bars).flags
    assert flags.dtype == np.uint8 and flags.size == len(bars)
    assert flags.tolist() == oracle(strategy, bars)
    # Nothing before the warm-up.
    assert not flags[:strategy.warmup()].any()


@pytest.mark.parametrize("name", list(STRATEGIES))
def test_warmup_is_the_first_bar_whose_inputs_are_all_defined(name):
    # The warm-up bar is the first whose inputs (and, for a crossing, the previous bar's)
    # are all defined; a series that short never signals.
    strategy = STRATEGIES[name]()
    warmup = strategy.warmup()
    assert strategy.plan(sine_bars(warmup)).flags.sum() == 0
    if name == "buy_and_hold":
        assert warmup == 0
        return
    c = sine_bars(warmup + 5).close
    p = strategy.params
    first_defined = {
        "sma_crossover": core.first_valid(core.sma(c, p.get("slowPeriod", 1))) + 1,
        "ema_crossover": core.first_valid(core.ema(c, p.get("slowPeriod", 1))) + 1,
        "rsi_reversal": core.first_valid(classic.rsi(c, p.get("period", 1))) + 1,
        "macd_signal": core.first_valid(classic.macd(c, 12, 26, 9).signal) + 1,
        "bollinger_mean_reversion": core.first_valid(core.sma(c, p.get("period", 1))),
        "supertrend_follow": core.first_valid(
            classic.supertrend(c + 1.5, c - 1.5, c, 10, 3.0).trend) + 1,
        "donchian_breakout": core.first_valid(core.sma(c, p.get("period", 1))) + 1,
    }[name]
    assert warmup == first_defined


@pytest.mark.parametrize("name", list(STRATEGIES))
@pytest.mark.parametrize("allow_short", [False, True])
def test_every_strategy_trades_on_a_turning_series(name, allow_short):
    result = backtest(sine_bars(), name, {"allowShort": allow_short})
    assert result.trades, result.diagnostics
    assert result.strategy.title == STRATEGIES[name].title
    sides = {t.side for t in result.trades}
    assert sides == ({"long", "short"} if allow_short and name != "buy_and_hold"
                     else {"long"})
    for trade in result.trades:
        assert trade.entry_bar == trade.entry_signal.bar + 1  # the next open
        assert trade.entry_signal.reason and 0 < trade.entry_signal.strength <= 1


def test_buy_and_hold_enters_at_the_second_open_and_holds_to_the_end():
    result = backtest(flat([10, 11, 12, 13]), "buy_and_hold",
                      {"commissionPct": 0, "slippagePct": 0})
    [trade] = result.trades
    assert (trade.entry_bar, trade.entry_price, trade.exit_bar, trade.exit_price) == \
        (1, 11.0, 3, 13.0)
    assert trade.tags == ("end_of_data",)


def test_rsi_strength_grows_away_from_the_middle():
    plan = RsiReversal().plan(sine_bars())
    strengths = {plan.describe(0, i)[1] for i in np.flatnonzero(plan.flags)}
    assert strengths <= {1.0, 0.5, 0.3} and strengths


@pytest.mark.parametrize(("name", "params", "member"), [
    ("sma_crossover", {"fastPeriod": 20}, "fastPeriod"),
    ("ema_crossover", {"fastPeriod": 30, "slowPeriod": 30}, "fastPeriod"),
    ("macd_signal", {"slowPeriod": 12}, "fastPeriod"),
    ("rsi_reversal", {"oversold": 70}, "oversold"),
])
def test_parameter_relations_are_400s_naming_the_member(name, params, member):
    with pytest.raises(InvalidParameters) as caught:
        setup(name, params)
    assert [e.param for e in caught.value.errors] == [member]


def test_members_a_strategy_does_not_read_are_ignored_and_reported():
    chosen = setup("sma_crossover", {"oversold": 20, "period": 5, "fastPeriod": 3})
    assert chosen.ignored == ("oversold", "period")
    assert chosen.strategy.params == {"fastPeriod": 3, "slowPeriod": 20}
    result = backtest(sine_bars(), "sma_crossover", {"oversold": 20})
    assert result.diagnostics[0] == "Ignored params not read by sma_crossover: oversold."
