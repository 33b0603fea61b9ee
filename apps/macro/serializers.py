"""Query declarations of the v2 macro endpoints; their answers are the records of
:mod:`marketdata.records.macro`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.core.validators import MaxValueValidator

from apps.core.params import IntegerParam
from apps.core.v2 import OrderedPageQuery, order_param
from marketdata.records.macro import FIRST_YEAR


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
