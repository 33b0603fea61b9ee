"""The backtest's JSON body (BacktestRequest) and its 200 body's schema (GqlBacktestResult,
from the records that declare its members).

The ``params`` members, their types, bounds and run-wide defaults come from the engine's
one table (:mod:`marketdata.backtest.params`), the strategies and their defaults from
:data:`marketdata.backtest.strategies.STRATEGIES`: the validation, the OpenAPI schema and
the engine cannot disagree.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema_field
from rest_framework import serializers

from apps.backtest.services import BacktestAnswer, EquityPoint, RoundTrip
from apps.core.params import choice
from apps.core.shapes import record_schema
from apps.core.v2 import (
    INTERVALS,
    MAX_LIMIT,
    TIME_RANGES,
    BodyCursor,
    BodyInteger,
    BodyString,
    connection_schema,
)
from marketdata.backtest.engine import setup
from marketdata.backtest.params import (
    BOOLEAN,
    INTEGER,
    RUN_PARAMS,
    STRATEGY_PARAMS,
    Param,
    parse_params,
)
from marketdata.backtest.strategies import STRATEGIES
from marketdata.errors import InvalidParameters
from marketdata.records.bars import check_range_interval

DEFAULT_INTERVAL, DEFAULT_RANGE = "1d", "1y"


def _by_param(exc: InvalidParameters) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for error in exc.errors:
        out.setdefault(error.param, []).append(error.message)
    return out


def _param_schema(param: Param) -> dict[str, Any]:
    readers = [name for name, cls in STRATEGIES.items() if param.name in cls.defaults]
    text = param.description
    if param.default is not None:
        text += f". Default {param.default}"
    if readers:
        text += ". Read by " + ", ".join(
            f"{name} (default {STRATEGIES[name].defaults[param.name]})" for name in readers)
    schema: dict[str, Any] = {"type": [param.kind, "null"], "description": text}
    if param.kind != BOOLEAN:
        if param.minimum is not None:
            schema["exclusiveMinimum" if param.exclusive_minimum else "minimum"] = \
                int(param.minimum) if param.kind == INTEGER else param.minimum
        if param.maximum is not None:
            schema["exclusiveMaximum" if param.exclusive_maximum else "maximum"] = \
                int(param.maximum) if param.kind == INTEGER else param.maximum
    return schema


PARAMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Run settings and strategy parameters, all optional (null = the default). "
                   "Fractions, not percentages: commissionPct 0.001 is 0.1 %. An unknown "
                   "member is a 400; a member the chosen strategy does not read is ignored "
                   "and named in `diagnostics`.",
    "properties": {p.name: _param_schema(p) for p in RUN_PARAMS + STRATEGY_PARAMS},
    "additionalProperties": False,
}


@extend_schema_field(PARAMS_SCHEMA)
class ParamsField(serializers.Field):
    """``params``: checked member by member against the engine's table (each bad or
    unknown member named as ``params.<name>``)."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise serializers.ValidationError("Input should be a valid dictionary")
        try:
            return parse_params(data)
        except InvalidParameters as exc:
            raise serializers.ValidationError(_by_param(exc)) from None


_STRATEGY_TEXT = "; ".join(f"`{name}`: {cls.summary}" for name, cls in STRATEGIES.items())


class BacktestRequest(serializers.Serializer):
    """The JSON body (the spec's BacktestRequest)."""

    strategy = choice(tuple(STRATEGIES), help_text=f"Strategy (required). {_STRATEGY_TEXT}")
    interval = choice(INTERVALS, required=False, default=DEFAULT_INTERVAL,
                      help_text=f"Bar interval (Interval); default {DEFAULT_INTERVAL}")
    range = choice(TIME_RANGES, required=False, default=DEFAULT_RANGE,
                   help_text=f"History window back from now (TimeRange); default "
                             f"{DEFAULT_RANGE}. The candles are exactly those of "
                             "`/v2/chart/{symbol}` for this interval and range")
    fields = BodyString(required=False, allow_blank=True,
                          help_text="Comma-separated top-level members of the result to "
                                    "include (the query's `fields` when absent)")
    equityLimit = BodyInteger(  # noqa: N815
        required=False, min_value=0, max_value=MAX_LIMIT,
        help_text=f"Page size of `equityCurve`, 0..{MAX_LIMIT}; with it or `equityCursor` "
                  "the curve is a connection")
    equityCursor = BodyCursor(  # noqa: N815
        required=False, help_text="`equityCurve.pageInfo.endCursor` of the previous page")
    tradesLimit = BodyInteger(  # noqa: N815
        required=False, min_value=0, max_value=MAX_LIMIT,
        help_text=f"Page size of `trades`, 0..{MAX_LIMIT}; with it or `tradesCursor` the "
                  "trades are a connection")
    tradesCursor = BodyCursor(  # noqa: N815
        required=False, help_text="`trades.pageInfo.endCursor` of the previous page")
    params = ParamsField(required=False, default=dict)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Relations between parameters (fastPeriod < slowPeriod, oversold < overbought):
        known only once the strategy is."""
        try:
            attrs["setup"] = setup(attrs["strategy"], attrs.get("params") or {})
        except InvalidParameters as exc:
            raise serializers.ValidationError({"params": _by_param(exc)}) from None
        check_range_interval(attrs["range"], attrs["interval"])  # the spec's table: a 400
        return attrs


EXAMPLE_PARAMS: dict[str, dict[str, Any]] = {
    "sma_crossover": {"fastPeriod": 10, "slowPeriod": 20},
    "ema_crossover": {"fastPeriod": 12, "slowPeriod": 26, "allowShort": True},
    "rsi_reversal": {"period": 14, "oversold": 30, "overbought": 70, "stopLossPct": 0.05},
    "macd_signal": {"fastPeriod": 12, "slowPeriod": 26, "signalPeriod": 9},
    "bollinger_mean_reversion": {"period": 20, "stdDev": 2.0, "exitAtMiddle": True,
                                 "takeProfitPct": 0.1},
    "supertrend_follow": {"period": 10, "multiplier": 3.0, "allowShort": True,
                          "shortBorrowRate": 0.02},
    "donchian_breakout": {"period": 20, "exitAtMiddle": False, "maxLeverage": 2.0,
                          "marginInterestRate": 0.06},
    "buy_and_hold": {"initialCapital": 25000, "commissionPct": 0.0005, "slippagePct": 0.0},
}
EXAMPLES = [
    OpenApiExample(name, summary=f"{STRATEGIES[name].title}", request_only=True,
                   value={"strategy": name, "interval": "1d", "range": "2y",
                          "equityLimit": 50, "tradesLimit": 20, "params": params})
    for name, params in EXAMPLE_PARAMS.items()
]

# ---- the 200 body: the members are declared on the records (apps.backtest.services, the
# engine's Signal and BacktestMetrics); a member holding a list of records is paged here.
BACKTEST_RESPONSE = record_schema(
    BacktestAnswer, "GqlBacktestResult; `fields` selects these members", required=False,
    nested={"equityCurve": connection_schema(record_schema(EquityPoint, "Equity at one close"),
                                             "equity points (one per bar)"),
            "trades": connection_schema(record_schema(RoundTrip, "One round trip"), "trades")})
