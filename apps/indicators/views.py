from typing import Any, get_type_hints

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.params import validate_query
from apps.core.routing import route
from apps.core.schema import error_responses
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView, connection_schema
from apps.core.views import ApiView
from apps.indicators.serializers import (
    IndicatorBaseQuery,
    IndicatorQuery,
    LatestQuery,
    V2IndicatorQuery,
    V2IndicatorsQuery,
    function_list,
    latest_response_schema,
    period_params,
)
from apps.indicators.services import (
    LATEST_RANGE,
    TRENDS,
    IndicatorsBatch,
    SymbolIndicators,
    TechnicalIndicator,
    indicator_history,
    indicator_set_for,
    indicator_sets,
    indicators_json,
    latest_indicators,
)
from marketdata.errors import FieldError, InvalidParameters
from marketdata.indicators.functions import FUNCTIONS
from marketdata.indicators.indicator_set import IndicatorSet
from marketdata.records.bars import check_range_interval
from marketdata.records.members import described, members_of, record_in
from marketdata.symbols import upper_if_ascii

_COMPAT = ("Interval/range compatibility: 1m: 1d, 5d; 5m/15m/30m: 1d, 5d, 1mo; 1h: 1d, 5d, "
           "1mo, 3mo, 6mo, ytd, 1y; range max needs interval 1mo. Other combinations: 400.")


def _function_table() -> str:
    rows = ["| function | parameters (default) | members |", "|---|---|---|"]
    for f in FUNCTIONS.values():
        params = ", ".join(f"`{p.alias}` ({p.default if p.default is not None else 'none'})"
                           for p in f.params)
        rows.append(f"| {f.name} ({f.title}) | {params} | {', '.join(f.members)} |")
    return "\n".join(rows)


def _set_schema() -> dict[str, Any]:
    """The indicator set's object: its numbers, and its objects (each its lines' record,
    null when none of its lines is defined)."""
    hints = get_type_hints(IndicatorSet)
    objects: dict[str, Any] = {}
    for member in members_of(IndicatorSet):
        lines, _ = record_in(hints[member.attribute])
        if lines is not None:
            objects[member.name] = {
                **record_schema(lines, described(member.description or ""), required=False),
                "type": ["object", "null"]}
    return record_schema(IndicatorSet, "Values at the last bar; null when not defined there",
                         nested=objects)


_SET = _set_schema()


def _history_schema() -> dict[str, Any]:
    """/v1/indicator's answer: a :class:`TechnicalIndicator`, its bars' members those of
    every function of the table (each bar has its function's): numbers, but SUPERTREND's
    trend (text, last); the lines of the functions with a `value` line first (MACD's signal
    beside it), then the others', in the table's order."""
    functions = sorted(FUNCTIONS.values(), key=lambda f: "value" not in f.members)
    names = [name for name in dict.fromkeys(n for f in functions for n in f.members)
             if name != "trend"]
    bar = {"type": "object", "properties": {
        **{name: {"type": "number", "format": "double"} for name in names},
        "trend": {"type": "string", "enum": list(TRENDS)}}}
    bars = next(m for m in members_of(TechnicalIndicator) if m.name == "Technical Analysis")
    return record_schema(TechnicalIndicator, nested={"Technical Analysis": {
        "type": "object", "description": described(bars.description or ""),
        "additionalProperties": bar}}, example={
        "type": "SMA", "Technical Analysis": {"2025-03-14": {"value": 113.93},
                                              "2025-03-13": {"value": 114.52}}})


@route("v1/indicator", name="indicator")
class IndicatorView(ApiView):
    query_serializer = IndicatorQuery

    @extend_schema(
        operation_id="get_technical_indicator", tags=["Technical indicators"],
        summary="Historical technical indicator",
        description=(
            "One indicator over the symbol's history, keyed by date (as `/v1/historical`), "
            "newest first. Bars before the indicator's warm-up ends are left out; a member "
            "not defined yet on a bar is omitted. Values are rounded to the instrument's "
            "price precision (at least 2 places). Integer parameters are 1..1000 (`stdDev` "
            "1..10, `multiplier` 1..100); a parameter the function does not take, or a "
            "non-integer or out-of-range value, is a 422 keyed by its python name "
            "(`period`, `stoch_period`, ...). A period longer than the history is a 400. "
            + _COMPAT + "\n\n" + _function_table()),
        parameters=[IndicatorQuery],
        responses={200: _history_schema(),
                   **error_responses(400, 404, 422, upstream=True, notes={
                       400: "Also when a period is longer than the history (`Not enough "
                            "data to compute SMA: ...`)",
                       422: "Also a period parameter the function does not take, and MACD's "
                            "`fastPeriod` not below `slowPeriod`: rules between parameters "
                            "that the parameter schemas cannot express"})},
    )
    def get(self, request: Request) -> Response:
        query = request.query_params.copy()
        if "function" in query:
            query["function"] = upper_if_ascii(query["function"])
        errors: list[FieldError] = []
        try:
            base = validate_query(IndicatorBaseQuery, query)
        except InvalidParameters as exc:
            errors.extend(exc.errors)
            base = {}
        function = FUNCTIONS.get(base.get("function", query.get("function", "")))
        params, param_errors = period_params(function, query)
        errors.extend(param_errors)
        if errors:
            raise InvalidParameters(errors)
        check_range_interval(base["range"], base["interval"])
        return Response(indicators_json(indicator_history(
            base["symbol"], function, params, base["range"], base["interval"], base["epoch"])))


@route("v1/indicators", name="indicators")
class LatestIndicatorsView(ApiView):
    query_serializer = LatestQuery

    @extend_schema(
        operation_id="get_latest_indicators", tags=["Technical indicators"],
        summary="Latest values of many indicators",
        description=(
            "The latest value of each indicator label. `functions` selects functions by "
            "name (each brings all its labels, e.g. SMA -> SMA(10)..SMA(200)); without it "
            "every label of the table is returned (OBV, which has no label there, only when "
            "asked for). Unknown names are a 422 naming them. History fetched per interval: "
            + ", ".join(f"{i}: {r}" for i, r in LATEST_RANGE.items())
            + " (enough for the 200-bar windows); a label whose window the history cannot "
              "fill is null."),
        parameters=[LatestQuery],
        responses={200: latest_response_schema(),
                   **error_responses(400, 404, 422, upstream=True, notes={
                       400: "Listed by the spec but not produced here: the history range is "
                            "chosen per interval, so it always fits"})},
    )
    def get(self, request: Request) -> Response:
        q = self.query(request)
        functions = function_list(q.get("functions"))
        return Response(latest_indicators(q["symbol"], q["interval"], functions))


@route("v2/indicators", name="v2-indicators")
class V2IndicatorsView(V2ApiView):
    """The indicator set (values at the last bar) of each symbol, alphabetical; symbols
    that cannot be served are listed in `errors` with a message. `fields` filters the
    members of each set (`symbol` and `indicators` are always present). `cursor`/`limit`
    page over symbols. When no symbol can be served because of an upstream failure, that
    failure's status is returned."""

    query_serializer = V2IndicatorsQuery
    response_schema = record_schema(IndicatorsBatch, nested={
        "indicators": connection_schema(
            record_schema(SymbolIndicators, required=False, nested={"indicators": _SET}),
            "symbol sets (alphabetical)")})
    output = record_output(IndicatorSet, at=("indicators", "indicators"), paged=("indicators",))
    operation_id, tag = "get_indicators_batch", "Technical indicators (v2)"
    summary = "Indicator sets for many symbols"

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(indicators_json(indicator_sets(q["symbols"], q["interval"],
                                                          q["range"])))


@route("v2/indicators/<str:symbol>", name="v2-indicator")
class V2IndicatorView(V2ApiView):
    """The indicator set of one symbol (values at the last bar; null where not defined).
    `fields` selects members."""

    query_serializer = V2IndicatorQuery
    response_schema = _SET
    output = record_output(IndicatorSet)
    operation_id, tag = "get_indicators", "Technical indicators (v2)"
    summary = "Indicator set for one symbol"

    def get(self, request: Request, symbol: str) -> Response:
        q = self.params
        return self.answer(indicators_json(indicator_set_for(symbol, q["interval"],
                                                             q["range"])))
