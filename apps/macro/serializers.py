"""Query declarations and response schemas of the v2 macro endpoints."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.core.validators import MaxValueValidator

from apps.core.params import IntegerParam
from apps.core.v2 import NUMBER, OrderedPageQuery, connection_schema, object_schema, order_param
from marketdata.records.macro import FIRST_YEAR, YIELD_MEMBERS


def current_year() -> int:
    """The current UTC year: the default and the upper bound of ``year`` (tests patch it)."""
    return datetime.now(UTC).year


class MacroSeriesQuery(OrderedPageQuery):
    """``cursor``/``limit`` page the observations; ``fields`` selects ``id``/``observations``."""

    order = order_param("asc", "observations")


class TreasuryYieldsQuery(OrderedPageQuery):
    order = order_param("desc", "rows")
    year = IntegerParam(
        required=False, min_value=FIRST_YEAR,
        help_text=f"Calendar year, {FIRST_YEAR}..the current UTC year (its default)")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The bound moves with the calendar, so it is set per validation, not at import:
        # the message and error kind are IntegerParam's own "less than or equal to N".
        year = self.fields["year"]
        year.max_value = current_year()
        year.validators.append(MaxValueValidator(
            year.max_value, message=year.error_messages["max_value"].format(
                max_value=year.max_value)))

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs.setdefault("year", self.fields["year"].max_value)
        return super().validate(attrs)


# ---- response schemas -----------------------------------------------------------------------
_STR = {"type": "string"}
_DATE = {"type": "string", "format": "date"}

OBSERVATION_SCHEMA = object_schema(
    {"date": {**_DATE, "description": "Observation date (YYYY-MM-DD)"},
     "value": {**NUMBER, "description": "The value in the series' units; null where FRED "
                                        "has none (`.` or blank)"}},
    "One observation", required=("date", "value"))

MACRO_SERIES_RESPONSE = object_schema({
    "id": {**_STR, "description": "The FRED series id, upper-cased"},
    "observations": connection_schema(
        OBSERVATION_SCHEMA, "observations, oldest first (`order=asc`, the default) or newest "
                            "first (`order=desc`)"),
}, "GqlMacroSeries; `fields` selects these members")

TREASURY_ROW_SCHEMA = object_schema(
    {"date": {**_DATE, "description": "Business day (YYYY-MM-DD)"},
     **{name: {**NUMBER, "description": "Par yield, percent; null where Treasury has no "
                                        "value for this maturity that day"}
        for name in YIELD_MEMBERS}},
    "Treasury yield row: the daily par yield curve of one day (`fields` selects members)")

TREASURY_YIELDS_RESPONSE = connection_schema(TREASURY_ROW_SCHEMA, "rows, newest first "
                                             "(`order=desc`, the default) or oldest first "
                                             "(`order=asc`)")
