"""Query declarations and response schemas of the v2 analyst endpoints (grading actions,
price target consensus and summary)."""

from __future__ import annotations

from typing import Any

from apps.core.v2 import (
    INTEGER,
    NUMBER,
    FieldsQuery,
    OrderedPageQuery,
    OrderedQuery,
    connection_schema,
    object_schema,
    order_param,
)
from marketdata.records.analysts import SUMMARY_PERIODS

GRADING_ACTION_MEMBERS = ("date", "symbol", "gradingCompany", "newGrade", "previousGrade")
CONSENSUS_MEMBERS = ("symbol", "targetConsensus", "targetHigh", "targetLow", "targetMedian")
SUMMARY_MEMBERS = ("symbol", *(f"{period}{what}" for period in SUMMARY_PERIODS
                               for what in ("Count", "Avg")))


class V2GradingActionsQuery(OrderedPageQuery):
    """``fields`` (of each action), ``cursor``/``limit`` (actions per page), ``order``."""

    order = order_param("desc", "grading actions (by `date`)")


class V2PriceTargetQuery(FieldsQuery):
    """``fields`` only."""


class V2EarningsSurprisesQuery(OrderedQuery):
    """``fields`` and ``order`` of the reported quarters (not paged)."""

    order = order_param("desc", "reported quarters (by `date`)")


_STRING = {"type": "string"}
_NULLABLE_STRING: dict[str, Any] = {"type": ["string", "null"]}

GRADING_ACTION_SCHEMA = object_schema({
    "date": {**_NULLABLE_STRING, "format": "date",
             "description": "Day of the action (YYYY-MM-DD, UTC); null when the source "
                            "gives the action no date"},
    "symbol": _STRING,
    "gradingCompany": {**_NULLABLE_STRING, "description": "The firm that graded"},
    "newGrade": {**_NULLABLE_STRING, "description": "The grade after the action"},
    "previousGrade": {**_NULLABLE_STRING, "description": "The grade before it; null when "
                                                         "there was none (an initiation)"},
}, "One analyst rating action (GqlGradingAction)", required=GRADING_ACTION_MEMBERS)

GRADING_ACTIONS_RESPONSE = connection_schema(
    GRADING_ACTION_SCHEMA, "grading actions, newest first (`order=desc`, the default) or "
                           "oldest first (`order=asc`)")

PRICE_TARGET_CONSENSUS_RESPONSE = object_schema({
    "symbol": _STRING,
    "targetConsensus": {**NUMBER, "description": "Mean analyst price target"},
    "targetHigh": {**NUMBER, "description": "Highest analyst price target"},
    "targetLow": {**NUMBER, "description": "Lowest analyst price target"},
    "targetMedian": {**NUMBER, "description": "Median analyst price target"},
}, "Price target consensus, in the stock's trading currency", required=CONSENSUS_MEMBERS)

_WINDOWS = {"lastMonth": "the last 30 days", "lastQuarter": "the last 90 days",
            "lastYear": "the last 365 days", "allTime": "all time"}
PRICE_TARGET_SUMMARY_RESPONSE = object_schema({
    "symbol": _STRING,
    **{f"{period}Count": {**INTEGER, "description": f"Price targets published in {text}"}
       for period, text in _WINDOWS.items()},
    **{f"{period}Avg": {**NUMBER, "description": f"Mean of the price targets published in "
                                                 f"{text}; null when there are none"}
       for period, text in _WINDOWS.items()},
}, "Counts and averages of published analyst price targets", required=SUMMARY_MEMBERS)


SURPRISE_MEMBERS = ("symbol", "date", "actualEps", "estimatedEps", "surprise",
                    "surprisePercent")
EARNINGS_SURPRISES_RESPONSE = object_schema({
    "surprises": {"type": "array", "description": "Reported quarters, newest first "
                                                  "(`order=desc`, the default) or oldest "
                                                  "first (`order=asc`)",
                  "items": object_schema({
                      "symbol": _STRING,
                      "date": {**_STRING, "format": "date",
                               "description": "End of the quarter reported, "
                                              "`YYYY-MM-DD`"},
                      "actualEps": NUMBER, "estimatedEps": NUMBER,
                      "surprise": {**NUMBER, "description": "actualEps - estimatedEps, as "
                                                            "the source rounds it (derived "
                                                            "when it sends none)"},
                      "surprisePercent": {**NUMBER, "description": "Percent units: 2.05 "
                                                                   "is 2.05 %"},
                  }, required=SURPRISE_MEMBERS)},
}, "`fields` selects `surprises`")
