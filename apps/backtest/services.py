"""Backtests on the chart's candles: history through the cache, the engine, the spec's shape
(records that declare their members: the answer's, below, and the engine's).

The candles are the ones ``/v2/chart/{symbol}`` serves for the same interval and range:
both read :func:`marketdata.capabilities.bars.chart` (one cached upstream call per symbol,
interval and range, events included), so a backtest after a chart, or a second backtest
with other parameters, costs no upstream call. Dividends are that answer's events.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from apps.core.symbols import require_symbol
from apps.core.v2 import paginate
from marketdata.backtest.engine import (
    BacktestResult,
    Setup,
    Side,
    Signal,
    Trade,
    run_backtest,
)
from marketdata.backtest.metrics import BARS_PER_YEAR, BacktestMetrics
from marketdata.capabilities import bars as price_history
from marketdata.errors import NotFound
from marketdata.indicators.bars import PriceArrays
from marketdata.records.members import member, members_of


def run_for_symbol(symbol_text: str, chosen: Setup, interval: str,
                   range_: str) -> tuple[str, BacktestResult]:
    """The symbol as the chart names it and the result of the backtest over its candles.
    An unknown symbol, or a window without candles, is a 404."""
    symbol = require_symbol(symbol_text)
    chart = price_history.chart(symbol, interval, range_)
    if not chart.timestamps:
        raise NotFound(f"No candles for {symbol} with interval {interval} and range {range_}")
    arrays = PriceArrays.from_columns(chart.timestamps, chart.open, chart.high, chart.low,
                                      chart.close, chart.volumes())
    result = run_backtest(arrays, chosen.strategy, chosen.config,
                          dividends=chart.events.dividends,
                          bars_per_year=BARS_PER_YEAR[interval], ignored=chosen.ignored)
    return chart.symbol or symbol, result


# The answer's records (GqlBacktestResult). The engine's Signal and the metrics declare their
# members where the engine makes them; a trade, an equity point and the result itself are
# answer records of this app: the spec's trade carries members the engine has no notion of
# (isPartial, scaleSequence, transactionTax: constants here; entryQuantity and
# unreinvestedDividends repeat quantity and dividendIncome), the engine keeps the curve as
# arrays, and the result adds the chart's symbol and the paging of its two lists.
@dataclass(frozen=True)
class EquityPoint:
    """Equity at one close."""

    timestamp: int = member()
    equity: float = member("Cash + position value at this close")
    drawdown_pct: float = member("Percent below the running peak")

    @classmethod
    def rows(cls, result: BacktestResult) -> tuple[dict[str, Any], ...]:
        """Every point's JSON, written from the members by column: one point per bar is
        thousands of them, which as records (and through ``as_json``) would cost ten times
        the run. A tuple: ``as_json`` leaves it as it is."""
        columns = {"timestamp": result.timestamps.tolist(), "equity": result.equity.tolist(),
                   "drawdown_pct": result.drawdown_pct.tolist()}
        members = members_of(EquityPoint)
        names = [m.name for m in members]
        return tuple(dict(zip(names, point, strict=True)) for point in zip(
            *(columns[m.attribute] for m in members), strict=True))


@dataclass(frozen=True)
class RoundTrip:
    """One round trip as the spec shows a trade."""

    side: Side = member()
    tags: tuple[str, ...] = member("The engine exit's tag, if it ended one")
    is_partial: bool = member("Always false (no partial exits)", default=False, init=False)
    scale_sequence: int = member("Always 0 (no scaling in)", default=0, init=False)
    entry_timestamp: int = member("Bar of the entry fill (its open)")
    exit_timestamp: int = member("Bar of the exit fill")
    entry_price: float = member("Fill price, slippage included")
    exit_price: float = member("Fill price, slippage included")
    entry_quantity: float = member("Shares (fractional)")
    quantity: float = member("Shares closed (= entryQuantity)")
    pnl: float = member("side x quantity x (exit - entry) - commission - financingCost + "
                        "dividendIncome")
    return_pct: float = member("pnl / (entryPrice x quantity) x 100")
    commission: float = member("Both fills'")
    dividend_income: float = member("Dividends credited (negative: paid on a short)")
    financing_cost: float = member("Margin interest and short borrow fees")
    transaction_tax: float = member("Always 0", default=0.0, init=False)
    unreinvested_dividends: float = member("Dividends kept as cash (all of them: "
                                           "= dividendIncome)")
    entry_signal: Signal = member("A decision")
    exit_signal: Signal = member("A decision")

    @classmethod
    def of(cls, trade: Trade) -> RoundTrip:
        return cls(trade.side, trade.tags, trade.entry_timestamp, trade.exit_timestamp,
                   trade.entry_price, trade.exit_price, trade.quantity, trade.quantity,
                   trade.pnl, trade.return_pct, trade.commission, trade.dividend_income,
                   trade.financing_cost, trade.dividend_income, trade.entry_signal,
                   trade.exit_signal)


@dataclass(frozen=True)
class BacktestAnswer:
    """GqlBacktestResult: one run on one symbol's chart."""

    symbol: str = member()
    strategy_name: str = member("The strategy's title, e.g. SMA Crossover")
    start_timestamp: int = member("First bar")
    end_timestamp: int = member("Last bar")
    initial_capital: float = member()
    final_equity: float = member("Cash after the last close (a position still open was "
                                 "closed there)")
    max_leverage_used: float = member("Largest position value / equity at a close")
    diagnostics: list[str] = member("Why a run has no trades; signals not filled; ignored "
                                    "params")
    # Bare arrays (EquityPoint rows, RoundTrip records), or connections when their own
    # cursor or limit is given: the view's schema says which (connection_schema).
    equity_curve: Any = member()
    trades: Any = member()
    metrics: BacktestMetrics = member("Definitions and units: marketdata/backtest/README.md. "
                                      "Always finite (see the operation's description)")


def backtest_answer(symbol: str, result: BacktestResult,
                    body: Mapping[str, Any]) -> BacktestAnswer:
    """The result with the equity curve and the trades paged by the body's own
    cursor/limit pairs."""
    stamps = result.timestamps
    cursor, limit = body.get("equityCursor"), body.get("equityLimit")
    curve = EquityPoint.rows(result)
    return BacktestAnswer(
        symbol, result.strategy.title, int(stamps[0]), int(stamps[-1]),
        result.config.initial_capital, result.final_equity, result.max_leverage_used,
        list(result.diagnostics),
        curve if cursor is None and limit is None else paginate(curve, cursor, limit),
        paginate([RoundTrip.of(t) for t in result.trades], body.get("tradesCursor"),
                 body.get("tradesLimit")),
        BacktestMetrics.of(result.metrics))
