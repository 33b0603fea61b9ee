"""Query declarations of the indicator endpoints, and the response schema of /v1/indicators
(/v1/indicator's and v2's are derived from the records and the function table:
apps.indicators.views)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.params import (
    BLANK,
    IntegerParam,
    QuerySerializer,
    SymbolParam,
    choice,
    choices_message,
    parse_integer,
)
from apps.core.v2 import FieldsQuery, IntervalRangeRule, PageQuery, SymbolsParam
from marketdata.errors import FieldError, InvalidParameters
from marketdata.indicators.functions import ALL_PARAMS, FUNCTIONS, Function
from marketdata.records.bars import INTERVALS, RANGES, V2_INTERVALS, V2_RANGES
from marketdata.symbols import upper_if_ascii

FUNCTION_NAMES = tuple(FUNCTIONS)


class IndicatorBaseQuery(QuerySerializer):
    function = choice(FUNCTION_NAMES, help_text="Indicator function (case-insensitive)")
    symbol = SymbolParam(help_text="Ticker symbol, e.g. AAPL, BRK-B, ^GSPC; a malformed "
                                   "one is an unknown symbol (404)")
    range = choice(RANGES, required=False, default="2y", help_text="History fetched")
    interval = choice(INTERVALS, required=False, default="1d", help_text="Bar interval")
    epoch = serializers.BooleanField(required=False, default=False,
                                     help_text="Key bars by epoch seconds instead of dates")


def _takers(name: str) -> str:
    return ", ".join(f.name for f in FUNCTIONS.values() if any(p.name == name for p in f.params))


# The documented query: the base parameters plus every period parameter under its alias.
IndicatorQuery = type("IndicatorQuery", (IndicatorBaseQuery,), {
    param.alias: IntegerParam(
        required=False, min_value=param.minimum, max_value=param.maximum,
        help_text=f"{param.description}. Taken by: {_takers(param.name)}. Errors are keyed "
                  f"`{param.name}`.")
    for param in ALL_PARAMS.values()
})

_INT_MESSAGE = "Input should be a valid integer, unable to parse string as an integer"


def _given(query: Mapping[str, Any], names: tuple[str, ...]) -> str | None:
    for name in names:
        if name in query:
            return query.get(name)
    return None


def period_params(function: Function | None,
                  query: Mapping[str, Any]) -> tuple[dict[str, int], list[FieldError]]:
    """The function's integer parameters from the query (alias or python name), over its
    defaults; errors keyed by python name: not an integer, out of bounds, or not taken."""
    values: dict[str, int] = {} if function is None else function.defaults()
    errors: list[FieldError] = []
    own = {} if function is None else {p.name: p for p in function.params}
    for generic in ALL_PARAMS.values():
        raw = _given(query, (generic.alias, generic.name))
        if raw is None:
            continue
        param = own.get(generic.name)
        if function is not None and param is None:
            takes = ", ".join(p.alias for p in function.params) or "no parameters"
            errors.append(FieldError(generic.name, f"Not a parameter of {function.name} "
                                     f"(it takes {takes})", "extra_forbidden", raw))
            continue
        param = param or generic
        number = parse_integer(raw)
        if number is None:
            errors.append(FieldError(param.name, _INT_MESSAGE, "int_parsing", raw))
            continue
        if number < param.minimum:
            errors.append(FieldError(param.name, f"Input should be greater than or equal to "
                                     f"{param.minimum}", "greater_than_equal", raw))
        elif number > param.maximum:
            errors.append(FieldError(param.name, f"Input should be less than or equal to "
                                     f"{param.maximum}", "less_than_equal", raw))
        else:
            values[param.name] = number
    if function is not None and function.name == "MACD" and not errors and \
            values["fast_period"] >= values["slow_period"]:
        errors.append(FieldError("fast_period", f"Input should be less than slow_period "
                                 f"({values['slow_period']})", "less_than",
                                 values["fast_period"]))
    return values, errors


# The reference's enum spelling, accepted so its clients work unchanged.
_FUNCTION_ALIASES = {"SUPER_TREND": "SUPERTREND"}


def _any_case(name: str) -> str:
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in name)


_NAME = "(" + "|".join(_any_case(name) for name in sorted(
    (*FUNCTION_NAMES, *_FUNCTION_ALIASES), key=len, reverse=True)) + ")"
# What function_list() accepts: comma-separated names in any case, blank items ignored, at
# least one name.
_SPACE = f"[{BLANK}]*"
FUNCTIONS_PATTERN = rf"^({_SPACE},)*{_SPACE}{_NAME}{_SPACE}(,{_SPACE}({_NAME}{_SPACE})?)*$"


@extend_schema_field({"type": "string", "minLength": 1, "pattern": FUNCTIONS_PATTERN})
class FunctionListParam(serializers.CharField):
    """``functions``: documented with the pattern of the names function_list() accepts."""


class LatestQuery(QuerySerializer):
    symbol = SymbolParam(help_text="Ticker symbol; a malformed one is an unknown symbol (404)")
    interval = choice(INTERVALS, required=False, default="1d", help_text="Bar interval")
    functions = FunctionListParam(
        required=False,
        help_text="Comma-separated function names (" + ", ".join(FUNCTION_NAMES) + "; "
                  "case-insensitive; SUPER_TREND is SUPERTREND). Default: every label of the "
                  "table except OBV. Empty, blank or an unknown name: 422.")


def function_list(text: str | None) -> list[str] | None:
    """Requested function names in request order without repeats; None when omitted."""
    if text is None:
        return None
    names = [upper_if_ascii(t) for t in (t.strip() for t in text.split(",")) if t]
    if not names:
        raise InvalidParameters([FieldError("functions", "String should have at least 1 "
                                            "character", "string_too_short", text)])
    resolved: list[str] = []
    errors: list[FieldError] = []
    for name in names:
        name = _FUNCTION_ALIASES.get(name, name)
        if name not in FUNCTIONS:
            errors.append(FieldError("functions", f"Unknown indicator '{name}': "
                                     + choices_message(FUNCTION_NAMES), "enum", name))
        elif name not in resolved:
            resolved.append(name)
    if errors:
        raise InvalidParameters(errors)
    return resolved


class V2IndicatorsQuery(IntervalRangeRule, PageQuery):
    symbols = SymbolsParam(help_text="Comma-separated symbols (at most 50)")
    interval = choice(V2_INTERVALS, required=False, default="1d", help_text="Bar interval")
    range = choice(V2_RANGES, required=False, default="1y", help_text="History fetched")


class V2IndicatorQuery(IntervalRangeRule, FieldsQuery):
    interval = choice(V2_INTERVALS, required=False, default="1d", help_text="Bar interval")
    range = choice(V2_RANGES, required=False, default="1y", help_text="History fetched")


# ---- v1 /v1/indicators' response schema: the labels' members (services.LATEST_LABELS) ----
_NULLABLE = {"type": "number", "format": "double", "nullable": True}


def latest_response_schema() -> dict[str, Any]:
    from apps.indicators.services import LATEST_LABELS, OBV_LABEL

    properties: dict[str, Any] = {}
    for label in (*LATEST_LABELS, OBV_LABEL):
        members = {name: ({"type": "string", "enum": ["UP", "DOWN", "NEUTRAL"],
                           "nullable": True} if member == "trend" else _NULLABLE)
                   for member, name in label.members.items()}
        properties[label.label] = {"type": "object", "properties": members}
    return {"type": "object", "properties": properties,
            "description": "Label -> latest values (null where the history is too short)"}
