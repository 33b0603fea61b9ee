"""Query declaration of GET /v2/risk/{symbol}."""

from __future__ import annotations

from apps.core.params import SymbolParam
from apps.core.v2 import FieldsQuery, IntervalRangeRule, interval_param, range_param


class V2RiskQuery(IntervalRangeRule, FieldsQuery):
    interval = interval_param("1d")
    range = range_param("1y", "History window the returns are taken over")
    benchmark = SymbolParam(
        required=False,
        help_text="Symbol to measure `beta`, `alpha`, `trackingError` and "
                  "`informationRatio` against (e.g. `^GSPC`, `SPY`); fetched with the same "
                  "interval and range. Omitted: none, and those four are null. Blank is a "
                  "400; an unknown (or malformed) benchmark a 404 naming it")
