"""Query declarations and response schemas of the v2 chart and capital-gains endpoints."""

from __future__ import annotations

import time
from typing import Any

from rest_framework import serializers

from apps.core.params import IntegerParam
from apps.core.v2 import (
    FieldsQuery,
    IntervalRangeRule,
    OrderedPageQuery,
    OrderedQuery,
    PageQuery,
    SymbolsParam,
    interval_param,
    order_param,
    range_param,
)
from marketdata.errors import BadRequest
from marketdata.records.bars import check_range_interval

# Unix seconds up to the end of year 9999: larger values are no date.
MAX_EPOCH = 253402300799


def _epoch(text: str) -> IntegerParam:
    return IntegerParam(required=False, min_value=0, max_value=MAX_EPOCH, help_text=text)


def check_absolute_window(start: int | None, end: int | None, now: int) -> None:
    """The absolute window's own rules (400 before any upstream call)."""
    if start is None:
        if end is not None:
            raise BadRequest("`end` requires `start` to be set")
        return
    if start >= (now if end is None else end):
        raise BadRequest("`start` must be before `end` (which defaults to now)")


class V2ChartQuery(OrderedPageQuery):
    order = order_param("asc", "candles (and `patterns` with them)")
    interval = interval_param("1d")
    range = range_param("1mo", "History window; ignored when `start` is given")
    start = _epoch("Unix seconds: the window starts here (Yahoo's absolute window) instead "
                   "of `range`")
    end = _epoch("Unix seconds: the window ends here (exclusive); defaults to now when "
                 "`start` is given, and needs `start`")
    events = serializers.BooleanField(
        required=False, default=False,
        help_text="Add `events`: the dividends, splits and capital gains of the window")
    patterns = serializers.BooleanField(
        required=False, default=False,
        help_text="Add `patterns`: the candlestick pattern of each candle (null for none)")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        start = attrs.get("start")
        if start is None:  # with `start`, `range` is ignored
            check_range_interval(attrs["range"], attrs["interval"])
        check_absolute_window(start, attrs.get("end"), int(time.time()))
        return super().validate(attrs)


class V2ChartsQuery(IntervalRangeRule, PageQuery):
    symbols = SymbolsParam(help_text="Comma-separated symbols (at most 50)")
    interval = interval_param("1d")
    range = range_param("1mo")
    patterns = serializers.BooleanField(
        required=False, default=False,
        help_text="Add `patterns` to each chart (aligned with its candles)")


class V2CapitalGainsQuery(OrderedQuery):
    range = range_param("max", "Only capital gains within this window back from now")
    order = order_param("asc", "capital gains (by distribution date)")


class V2CapitalGainsBatchQuery(FieldsQuery):
    range = range_param("max", "Only capital gains within this window back from now")
    symbols = SymbolsParam(help_text="Comma-separated symbols (at most 50)")


class V2DividendsQuery(OrderedPageQuery):
    range = range_param("max", "Only dividends within this window back from now")
    order = order_param("asc", "dividends (by ex-date)")


class V2DividendsBatchQuery(PageQuery):
    # No `order`: the batch pages over symbols, not over time.
    range = range_param("max", "Only dividends within this window back from now")
    symbols = SymbolsParam(help_text="Comma-separated symbols (at most 50); `cursor`/`limit` "
                                     "page over them")


class V2SplitsQuery(OrderedQuery):
    range = range_param("max", "Only splits within this window back from now")
    order = order_param("asc", "splits (by ex-date)")


class V2SplitsBatchQuery(FieldsQuery):
    range = range_param("max", "Only splits within this window back from now")
    symbols = SymbolsParam(help_text="Comma-separated symbols (at most 50)")


class V2SparkQuery(IntervalRangeRule, FieldsQuery):
    symbols = SymbolsParam(help_text="Comma-separated symbols (at most 50); answered in "
                                     "request order")
    interval = interval_param("1d")
    range = range_param("1mo")
