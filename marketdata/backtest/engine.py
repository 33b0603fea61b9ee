"""One backtest over OHLCV arrays: strategy flags -> compiled bar loop -> trades, metrics.

Pure: it takes :class:`~marketdata.indicators.bars.PriceArrays` (and the dividends going ex within
them) and returns a :class:`BacktestResult`; fetching, caching and JSON belong to the
caller (``apps.backtest``). Semantics: README.md in this package.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from marketdata.backtest import _kernel as k
from marketdata.backtest.metrics import (
    BARS_PER_YEAR,
    TradeColumns,
    compute_metrics,
    drawdown_pct,
    finite,
)
from marketdata.backtest.params import RUN_DEFAULTS, RunConfig, parse_params
from marketdata.backtest.strategies import STRATEGIES, Strategy, num
from marketdata.errors import FieldError, InvalidParameters
from marketdata.indicators.bars import PriceArrays
from marketdata.records.members import member

Direction = Literal["long", "short", "exit"]
Side = Literal["long", "short"]
DIRECTIONS: dict[int, Direction] = {k.LONG: "long", k.SHORT: "short", k.EXIT_LONG: "exit",
                                    k.EXIT_SHORT: "exit"}
OUTCOMES = {k.EXECUTED: "executed", k.LAST_BAR: "last_bar",
            k.SHORTS_DISABLED: "shorts_disabled", k.NO_CASH: "no_cash",
            k.PENDING: "pending"}
EXIT_TAGS = {k.EXIT_STOP: "stop_loss", k.EXIT_TAKE: "take_profit",
             k.EXIT_MARGIN: "margin_call", k.EXIT_END: "end_of_data"}


@dataclass(frozen=True)
class Signal:
    """A decision: the strategy's (at a close) or the engine's (a stop, take-profit, margin
    call or the end of the data, at the fill). ``price`` is the close it was decided at,
    or the fill price of an engine exit; ``outcome`` says whether it was filled. Its members
    are a trade's ``entrySignal`` and ``exitSignal`` in the answer; ``bar`` and ``outcome``
    stay the engine's."""

    direction: Direction = member()
    reason: str = member()
    tags: tuple[str, ...] = member("Engine exits: one of stop_loss, take_profit, margin_call, "
                                   "end_of_data; strategy signals: none")
    timestamp: int = member("The bar it was decided at (engine exits: the bar of the fill)")
    price: float = member("That bar's close (engine exits: the fill price)")
    strength: float = member("0-1; 1 except rsi_reversal (1, 0.5 or 0.3 by distance from 50)")
    bar: int = field(kw_only=True)
    outcome: str = field(default="executed", kw_only=True)


@dataclass(frozen=True)
class Trade:
    """One round trip. Prices include slippage; ``commission`` is both fills';
    ``pnl`` = side x quantity x (exit - entry) - commission - financing + dividends;
    ``return_pct`` = pnl / (entry price x quantity) x 100."""

    side: Side
    entry_bar: int
    exit_bar: int
    entry_timestamp: int
    exit_timestamp: int
    entry_price: float
    exit_price: float
    quantity: float
    commission: float
    dividend_income: float
    financing_cost: float
    pnl: float
    return_pct: float
    entry_signal: Signal
    exit_signal: Signal
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class BacktestResult:
    strategy: Strategy
    config: RunConfig
    timestamps: np.ndarray
    equity: np.ndarray
    drawdown_pct: np.ndarray
    held: np.ndarray
    max_leverage_used: float
    trades: list[Trade]
    signals: list[Signal]
    metrics: dict[str, float | int]
    diagnostics: list[str] = field(default_factory=list)

    @property
    def final_equity(self) -> float:
        return float(self.equity[-1]) if self.equity.size else self.config.initial_capital


@dataclass(frozen=True)
class Setup:
    """A request's strategy and run settings, and the given ``params`` members that neither
    the strategy nor the run reads (ignored, reported in the diagnostics)."""

    strategy: Strategy
    config: RunConfig
    ignored: tuple[str, ...] = ()


def setup(strategy_name: str, raw_params: Any = None) -> Setup:
    """Strategy and settings from the API's ``strategy`` and ``params`` (validated here:
    InvalidParameters names each bad member)."""
    cls = STRATEGIES.get(strategy_name)
    if cls is None:
        raise InvalidParameters([FieldError(
            "strategy", "Input should be " + ", ".join(f"'{s}'" for s in STRATEGIES),
            "enum", strategy_name, location="body")])
    given = parse_params(raw_params)
    ignored = tuple(name for name in given
                    if name not in RUN_DEFAULTS and name not in cls.defaults)
    return Setup(cls.from_params(given), RunConfig.from_params(given), ignored)


def dividends_per_bar(timestamps: np.ndarray,
                      dividends: Sequence[tuple[int, float]]) -> np.ndarray:
    """Dividend amount per share going ex on each bar: a dividend dated ``t`` goes ex on
    the first bar whose timestamp is >= t (dated before the first bar or after the last:
    none)."""
    out = np.zeros(timestamps.size)
    if not dividends or not timestamps.size:
        return out
    stamps = np.fromiter((t for t, _ in dividends), dtype=np.int64, count=len(dividends))
    amounts = np.fromiter((a for _, a in dividends), dtype=np.float64, count=len(dividends))
    index = np.searchsorted(timestamps, stamps, side="left")
    keep = (index < timestamps.size) & (stamps >= timestamps[0])
    np.add.at(out, index[keep], amounts[keep])
    return out


def run_backtest(bars: PriceArrays, strategy: Strategy, config: RunConfig | None = None, *,
                 dividends: Sequence[tuple[int, float]] = (),
                 bars_per_year: float = BARS_PER_YEAR["1d"],
                 ignored: Sequence[str] = ()) -> BacktestResult:
    """Backtest ``strategy`` over ``bars``. ``dividends``: ``(timestamp, amount per share)``
    of the chart's events; ``bars_per_year`` annualises the bar-return ratios."""
    config = config or RunConfig()
    plan = strategy.plan(bars)
    (equity, held, max_leverage, n_trades, t_side, t_entry_bar, t_exit_bar, t_entry_price,
     t_exit_price, t_quantity, t_commission, t_dividends, t_financing, t_entry_signal,
     t_exit_signal, t_exit_kind, n_signals, s_bar, s_kind, s_status) = k.simulate(
        bars.open, bars.high, bars.low, bars.close,
        dividends_per_bar(bars.timestamps, dividends), plan.flags,
        config.initial_capital, config.commission_pct, config.slippage_pct,
        config.position_size_pct, config.max_leverage, config.stop_loss_pct,
        config.take_profit_pct, config.maintenance_margin_pct,
        config.margin_interest_rate / bars_per_year, config.short_borrow_rate / bars_per_year,
        config.allow_short)
    stamps = bars.timestamps

    signals = []
    for j in range(n_signals):
        bar, kind = int(s_bar[j]), int(s_kind[j])
        reason, strength = plan.describe(kind, bar)
        signals.append(Signal(DIRECTIONS[kind], reason, (), int(stamps[bar]),
                              float(bars.close[bar]), float(strength), bar=bar,
                              outcome=OUTCOMES[int(s_status[j])]))

    rows = slice(0, n_trades)
    side = t_side[rows].astype(np.float64)
    quantity, entry_price, exit_price = t_quantity[rows], t_entry_price[rows], t_exit_price[rows]
    pnl = (side * quantity * (exit_price - entry_price) - t_commission[rows]
           - t_financing[rows] + t_dividends[rows])
    cost = entry_price * quantity
    return_pct = np.zeros(n_trades)
    np.divide(pnl * 100.0, cost, out=return_pct, where=cost > 0.0)
    columns = TradeColumns(side, stamps[t_entry_bar[rows]], stamps[t_exit_bar[rows]], pnl,
                           return_pct, t_commission[rows], t_dividends[rows],
                           t_financing[rows])

    trades = []
    for j in range(n_trades):
        exit_kind = int(t_exit_kind[j])
        entry_bar, exit_bar = int(t_entry_bar[j]), int(t_exit_bar[j])
        entry_signal = signals[int(t_entry_signal[j])]
        tags: tuple[str, ...]
        if exit_kind == k.EXIT_SIGNAL:
            exit_signal, tags = signals[int(t_exit_signal[j])], ()
        else:
            exit_signal = _engine_exit(exit_kind, bars, exit_bar, float(exit_price[j]),
                                       float(entry_price[j]), side[j] > 0, config)
            tags = exit_signal.tags
        trades.append(Trade(
            "long" if side[j] > 0 else "short", entry_bar, exit_bar, int(stamps[entry_bar]),
            int(stamps[exit_bar]), float(entry_price[j]), float(exit_price[j]),
            float(quantity[j]), float(t_commission[j]), float(t_dividends[j]),
            float(t_financing[j]), finite(pnl[j]), finite(return_pct[j]), entry_signal,
            exit_signal, tags))

    executed = sum(1 for s in signals if s.outcome == "executed")
    metrics = compute_metrics(equity, stamps, held, columns, config.initial_capital,
                              bars_per_year, len(signals), executed)
    return BacktestResult(
        strategy, config, stamps, equity, drawdown_pct(equity), held, finite(max_leverage),
        trades, signals, metrics,
        diagnose(strategy, config, len(bars), signals, n_trades, ignored))


def _engine_exit(kind: int, bars: PriceArrays, bar: int, fill: float, entry: float, is_long: bool,
                 config: RunConfig) -> Signal:
    """The signal of an exit the engine made (not the strategy), at its fill."""
    opened = float(bars.open[bar])
    if kind in (k.EXIT_STOP, k.EXIT_TAKE):
        pct = config.stop_loss_pct if kind == k.EXIT_STOP else config.take_profit_pct
        adverse = (kind == k.EXIT_STOP) == is_long  # the level is below the entry
        level = entry * (1.0 - pct) if adverse else entry * (1.0 + pct)
        name = "Stop-loss" if kind == k.EXIT_STOP else "Take-profit"
        sign = "-" if adverse else "+"
        reason = f"{name} at {num(level)} ({sign}{pct * 100:g}% from the entry {num(entry)})"
        gapped = opened < level if adverse else opened > level
        if gapped:
            reason += f"; the bar opened beyond it, filled at the open {num(opened)}"
    elif kind == k.EXIT_MARGIN:
        reason = ("Margin call at the close: equity fell below "
                  f"{config.maintenance_margin_pct * 100:g}% of the position value")
    else:
        reason = "End of data: the open position was closed at the last close"
    return Signal("exit", reason, (EXIT_TAGS[kind],), int(bars.timestamps[bar]), fill, 1.0,
                  bar=bar)


def diagnose(strategy: Strategy, config: RunConfig, n_bars: int, signals: Sequence[Signal],
             n_trades: int, ignored: Sequence[str] = ()) -> list[str]:
    """Why a run traded as it did: always the ignored parameters and the signals that were
    not filled; with no trades, why there were none."""
    out = []
    if ignored:
        out.append(f"Ignored params not read by {strategy.name}: {', '.join(ignored)}.")
    outcomes: dict[str, int] = {}
    for signal in signals:
        outcomes[signal.outcome] = outcomes.get(signal.outcome, 0) + 1
    warmup = strategy.warmup()
    if not n_trades:
        if n_bars <= warmup:
            out.append(f"No trades: {strategy.title} can signal from bar {warmup + 1} on "
                       f"(indicator warm-up) and the chart has {n_bars} bars; use a longer "
                       "range or shorter periods.")
        elif not signals:
            out.append(f"No trades: the conditions of {strategy.title} were never met in the "
                       f"{n_bars - warmup} bars after its warm-up of {warmup} bars.")
        elif not outcomes.get("executed"):
            out.append(f"No trades: {len(signals)} signal(s), none filled.")
    if outcomes.get("shorts_disabled"):
        out.append(f"{outcomes['shorts_disabled']} short signal(s) taken no action on because "
                   "allowShort is false.")
    if outcomes.get("last_bar"):
        out.append(f"{outcomes['last_bar']} signal(s) on the last bar, which has no next open "
                   "to fill at: recorded, not executed.")
    if outcomes.get("no_cash"):
        out.append(f"{outcomes['no_cash']} entry signal(s) not filled: no cash left.")
    return out


def backtest(bars: PriceArrays, strategy_name: str, params: Mapping[str, Any] | None = None, *,
             dividends: Sequence[tuple[int, float]] = (), interval: str = "1d"
             ) -> BacktestResult:
    """The API's entry point in one call: validate ``strategy``/``params`` and run."""
    chosen = setup(strategy_name, params)
    return run_backtest(bars, chosen.strategy, chosen.config, dividends=dividends,
                        bars_per_year=BARS_PER_YEAR[interval], ignored=chosen.ignored)
