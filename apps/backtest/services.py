"""Backtests on the chart's candles: history through the cache, the engine, the spec's shape.

The candles are the ones ``/v2/chart/{symbol}`` serves for the same interval and range:
both read :func:`marketdata.capabilities.bars.chart` (one cached upstream call per symbol,
interval and range, events included), so a backtest after a chart, or a second backtest
with other parameters, costs no upstream call. Dividends are that answer's events.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apps.core.symbols import require_symbol
from apps.core.v2 import paginate
from marketdata.backtest.engine import BacktestResult, Setup, Signal, Trade, run_backtest
from marketdata.backtest.metrics import BARS_PER_YEAR
from marketdata.capabilities import bars as price_history
from marketdata.errors import NotFound
from marketdata.indicators.bars import PriceArrays


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


def signal_json(signal: Signal) -> dict[str, Any]:
    return {"direction": signal.direction, "reason": signal.reason, "tags": list(signal.tags),
            "timestamp": signal.timestamp, "price": signal.price, "strength": signal.strength}


def trade_json(trade: Trade) -> dict[str, Any]:
    return {
        "side": trade.side, "tags": list(trade.tags), "isPartial": False, "scaleSequence": 0,
        "entryTimestamp": trade.entry_timestamp, "exitTimestamp": trade.exit_timestamp,
        "entryPrice": trade.entry_price, "exitPrice": trade.exit_price,
        "entryQuantity": trade.quantity, "quantity": trade.quantity, "pnl": trade.pnl,
        "returnPct": trade.return_pct, "commission": trade.commission,
        "dividendIncome": trade.dividend_income, "financingCost": trade.financing_cost,
        "transactionTax": 0.0, "unreinvestedDividends": trade.dividend_income,
        "entrySignal": signal_json(trade.entry_signal),
        "exitSignal": signal_json(trade.exit_signal),
    }


def equity_points(result: BacktestResult) -> list[dict[str, Any]]:
    return [{"timestamp": t, "equity": e, "drawdownPct": d} for t, e, d in zip(
        result.timestamps.tolist(), result.equity.tolist(), result.drawdown_pct.tolist(),
        strict=True)]


def result_json(symbol: str, result: BacktestResult, body: Mapping[str, Any],
                members: frozenset[str] | None = None) -> dict[str, Any]:
    """GqlBacktestResult with the equity curve and the trades paged by the body's own
    cursor/limit pairs; only ``members`` (all when None) are built."""
    stamps = result.timestamps
    builders = {
        "symbol": lambda: symbol,
        "strategyName": lambda: result.strategy.title,
        "startTimestamp": lambda: int(stamps[0]),
        "endTimestamp": lambda: int(stamps[-1]),
        "initialCapital": lambda: result.config.initial_capital,
        "finalEquity": lambda: result.final_equity,
        "maxLeverageUsed": lambda: result.max_leverage_used,
        "diagnostics": lambda: list(result.diagnostics),
        "equityCurve": lambda: paginate(equity_points(result), body.get("equityCursor"),
                                        body.get("equityLimit")),
        "trades": lambda: paginate([trade_json(t) for t in result.trades],
                                   body.get("tradesCursor"), body.get("tradesLimit")),
        "metrics": lambda: dict(result.metrics),
    }
    return {name: build() for name, build in builders.items()
            if members is None or name in members}
