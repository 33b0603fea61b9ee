"""The backtest's parameters: one table for validation, engine defaults and the API schema.

Every member of the spec's ``params`` object is declared here once: its JSON type, its
bounds and what it means. The run-wide ones (capital, costs, sizing, risk, financing) have
their default here; the strategy ones (periods, levels, multipliers) have theirs on each
strategy (:mod:`marketdata.backtest.strategies`), because ``period`` is 14 for the RSI and
20 for the Bollinger bands.

Fractions, not percentages: ``commissionPct=0.001`` is 0.1 % of a fill's value and
``positionSizePct=1`` the whole cash (the names are the spec's; the upstream library uses
the same fractions). Rates (``marginInterestRate``, ``shortBorrowRate``) are annual
fractions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from marketdata.errors import FieldError, InvalidParameters

INTEGER, NUMBER, BOOLEAN = "integer", "number", "boolean"


@dataclass(frozen=True)
class Param:
    """One member of ``params``: JSON type, bounds (None: unbounded on that side; the
    ``exclusive_*`` flags make a bound strict), the run-wide default (None for strategy
    parameters, whose defaults are per strategy) and the documentation line."""

    name: str
    kind: str
    description: str
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False

    def check(self, value: Any) -> tuple[Any, str | None, str]:
        """``(value, None, "")`` when valid (ints as int, numbers as float), else
        ``(None, message, pydantic-style kind)``."""
        if self.kind == BOOLEAN:
            if isinstance(value, bool):
                return value, None, ""
            return None, "Input should be a valid boolean", "bool_type"
        if isinstance(value, bool) or not isinstance(value, int | float):
            if self.kind == INTEGER:
                return None, "Input should be a valid integer", "int_type"
            return None, "Input should be a valid number", "float_type"
        if isinstance(value, float) and not math.isfinite(value):
            return None, "Input should be a finite number", "finite_number"
        if self.kind == INTEGER:
            if isinstance(value, float):
                if not value.is_integer():
                    return None, "Input should be a valid integer, got a number with a " \
                                 "fractional part", "int_from_float"
                value = int(value)
        else:
            value = float(value)
        if self.minimum is not None and (value <= self.minimum if self.exclusive_minimum
                                         else value < self.minimum):
            word = "greater than" if self.exclusive_minimum else "greater than or equal to"
            return None, f"Input should be {word} {_plain(self.minimum)}", \
                "greater_than" if self.exclusive_minimum else "greater_than_equal"
        if self.maximum is not None and (value >= self.maximum if self.exclusive_maximum
                                         else value > self.maximum):
            word = "less than" if self.exclusive_maximum else "less than or equal to"
            return None, f"Input should be {word} {_plain(self.maximum)}", \
                "less_than" if self.exclusive_maximum else "less_than_equal"
        return value, None, ""


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else repr(float(number))


MAX_PERIOD = 1000

# Run-wide parameters, in the order the documentation lists them.
RUN_PARAMS: tuple[Param, ...] = (
    Param("initialCapital", NUMBER, "Starting cash (the chart's currency)", 10_000.0,
          0.0, 1e12, exclusive_minimum=True),
    Param("commissionPct", NUMBER, "Commission per fill, a fraction of the fill's value "
          "(0.001 = 0.1 %)", 0.001, 0.0, 0.1),
    Param("slippagePct", NUMBER, "Slippage per fill, a fraction of the price, always against "
          "the trader (buys fill higher, sells lower)", 0.001, 0.0, 0.1),
    Param("positionSizePct", NUMBER, "Fraction (0-1] of the cash committed at each entry, "
          "after reserving the entry commission", 1.0, 0.0, 1.0, exclusive_minimum=True),
    Param("allowShort", BOOLEAN, "Open short positions on short signals (otherwise short "
          "signals only close longs)", False),
    Param("stopLossPct", NUMBER, "Stop-loss distance from the entry price, a fraction "
          "(0.05 = 5 %); checked intrabar; null or absent: no stop", None, 0.0, 1.0,
          exclusive_minimum=True, exclusive_maximum=True),
    Param("takeProfitPct", NUMBER, "Take-profit distance from the entry price, a fraction "
          "(0.1 = 10 %); checked intrabar; null or absent: none", None, 0.0, 10.0,
          exclusive_minimum=True),
    Param("maxLeverage", NUMBER, "Multiplies the sizing: an entry's notional is "
          "positionSizePct x maxLeverage x cash; above 1 a long borrows cash", 1.0, 1.0, 10.0),
    Param("maintenanceMarginPct", NUMBER, "A fraction (0.25 = 25 %): a position is "
          "force-closed at the first close where equity < maintenanceMarginPct x position "
          "value (0 = only when equity <= 0)",
          0.25, 0.0, 1.0, exclusive_maximum=True),
    Param("marginInterestRate", NUMBER, "Annual interest on borrowed cash (a negative cash "
          "balance), accrued at each close", 0.0, 0.0, 1.0),
    Param("shortBorrowRate", NUMBER, "Annual fee on the value of a short position, accrued "
          "at each close", 0.0, 0.0, 1.0),
)

# Strategy parameters: bounds only; each strategy declares which it reads and its defaults.
STRATEGY_PARAMS: tuple[Param, ...] = (
    Param("fastPeriod", INTEGER, "Fast average period (bars); below slowPeriod", None,
          1, MAX_PERIOD),
    Param("slowPeriod", INTEGER, "Slow average period (bars)", None, 2, MAX_PERIOD),
    Param("signalPeriod", INTEGER, "MACD signal line EMA period (bars)", None, 1, MAX_PERIOD),
    Param("period", INTEGER, "Indicator period (bars)", None, 1, MAX_PERIOD),
    Param("oversold", NUMBER, "RSI level whose upward crossing is a long signal", None,
          0.0, 100.0, exclusive_minimum=True, exclusive_maximum=True),
    Param("overbought", NUMBER, "RSI level whose downward crossing is a short signal; above "
          "oversold", None, 0.0, 100.0, exclusive_minimum=True, exclusive_maximum=True),
    Param("stdDev", NUMBER, "Bollinger band width in population standard deviations", None,
          0.0, 10.0, exclusive_minimum=True),
    Param("multiplier", NUMBER, "SuperTrend ATR multiplier", None, 0.0, 100.0,
          exclusive_minimum=True),
    Param("exitAtMiddle", BOOLEAN, "Bollinger/Donchian: exit at the middle line instead of "
          "the opposite band", None),
)

PARAMS: dict[str, Param] = {p.name: p for p in RUN_PARAMS + STRATEGY_PARAMS}
RUN_DEFAULTS: dict[str, Any] = {p.name: p.default for p in RUN_PARAMS}


def parse_params(raw: Any) -> dict[str, Any]:
    """The given ``params`` object checked member by member: ``{name: value}`` of the
    members given (a null member counts as not given). Raises InvalidParameters naming
    every bad or unknown member (an unknown one lists the valid names)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise InvalidParameters([FieldError("params", "Input should be a valid dictionary",
                                            "dict_type", raw, location="body")])
    out: dict[str, Any] = {}
    errors: list[FieldError] = []
    for name, value in raw.items():
        param = PARAMS.get(name)
        if param is None:
            errors.append(FieldError(str(name), "Unknown parameter; valid names: "
                                     + ", ".join(PARAMS), "extra_forbidden", value,
                                     location="body"))
            continue
        if value is None:
            continue
        checked, message, kind = param.check(value)
        if message is not None:
            errors.append(FieldError(name, message, kind, value, location="body"))
        else:
            out[name] = checked
    if errors:
        raise InvalidParameters(errors)
    return out


@dataclass(frozen=True)
class RunConfig:
    """The run-wide settings of one backtest (fractions and annual rates as in
    :data:`RUN_PARAMS`; a stop or take-profit of 0 means none)."""

    initial_capital: float = 10_000.0
    commission_pct: float = 0.001
    slippage_pct: float = 0.001
    position_size_pct: float = 1.0
    allow_short: bool = False
    stop_loss_pct: float = 0.0
    take_profit_pct: float = 0.0
    max_leverage: float = 1.0
    maintenance_margin_pct: float = 0.25
    margin_interest_rate: float = 0.0
    short_borrow_rate: float = 0.0

    @classmethod
    def from_params(cls, given: Mapping[str, Any]) -> RunConfig:
        """From checked ``params`` (as :func:`parse_params` returns them); members that are
        not run-wide are ignored here (the strategy reads them)."""
        merged = {**RUN_DEFAULTS, **{k: v for k, v in given.items() if k in RUN_DEFAULTS}}
        return cls(
            initial_capital=float(merged["initialCapital"]),
            commission_pct=float(merged["commissionPct"]),
            slippage_pct=float(merged["slippagePct"]),
            position_size_pct=float(merged["positionSizePct"]),
            allow_short=bool(merged["allowShort"]),
            stop_loss_pct=float(merged["stopLossPct"] or 0.0),
            take_profit_pct=float(merged["takeProfitPct"] or 0.0),
            max_leverage=float(merged["maxLeverage"]),
            maintenance_margin_pct=float(merged["maintenanceMarginPct"]),
            margin_interest_rate=float(merged["marginInterestRate"]),
            short_borrow_rate=float(merged["shortBorrowRate"]),
        )
