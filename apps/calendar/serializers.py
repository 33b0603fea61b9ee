"""Query declarations of the market-wide calendars by date (``/v2/calendars/...``)."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.calendar import dated
from apps.core.params import DayParam, TextParam, choice
from apps.core.v2 import REGIONS, OrderedPageQuery, SymbolsParam, order_param
from marketdata.records.calendars import DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS

_COUNTRY = re.compile(r"[A-Za-z]{2}", re.ASCII)


@extend_schema_field({"type": "string", "pattern": r"^\s*[A-Za-z]{2}\s*$"})
class CountryParam(TextParam):
    """An ISO 3166 alpha-2 country code, any case (the answer's are upper case)."""

    default_error_messages = {"invalid": "Input should be a two-letter country code"}

    def to_internal_value(self, data: Any) -> str:
        text = super().to_internal_value(data).strip()
        if not _COUNTRY.fullmatch(text):
            self.fail("invalid")
        return text.upper()


class CalendarWindowQuery(OrderedPageQuery):
    """``start``/``end`` (ISO days, inclusive), checked together before any upstream call:
    ``end`` not before ``start``, at most :data:`MAX_WINDOW_DAYS` days apart. The
    validated query holds them as dates, defaults filled."""

    order = order_param("asc", "rows (by date)")
    start = DayParam(required=False, help_text="First day, `YYYY-MM-DD` (inclusive); "
                                               "default today (UTC)")
    end = DayParam(required=False, help_text=f"Last day, `YYYY-MM-DD` (inclusive); default "
                                             f"`start` + {DEFAULT_WINDOW_DAYS} days. At "
                                             f"most {MAX_WINDOW_DAYS} days after `start`, "
                                             "and not before it")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        given_start, given_end = attrs.get("start"), attrs.get("end")
        start, end = dated.default_window(
            date.fromisoformat(given_start) if given_start else None,
            date.fromisoformat(given_end) if given_end else None)
        if end < start:
            raise serializers.ValidationError({"end": ["end is before start"]})
        if end - start > timedelta(days=MAX_WINDOW_DAYS):
            raise serializers.ValidationError(
                {"end": [f"The window may span at most {MAX_WINDOW_DAYS} days (end - "
                         "start)"]})
        attrs["start"], attrs["end"] = start, end
        return attrs


def _symbols(what: str, required: bool = False) -> SymbolsParam:
    return SymbolsParam(required=required, help_text=(
        f"Comma-separated symbols: only their {what}" if not required else
        f"Comma-separated symbols whose {what} to list (required)"))


class EarningsCalendarQuery(CalendarWindowQuery):
    symbols = _symbols("earnings")
    region = choice(REGIONS, required=False, default="US",
                    help_text="Where the companies are listed (Region); default US")


class DividendsCalendarQuery(CalendarWindowQuery):
    symbols = _symbols("dividends", required=True)


class SplitsCalendarQuery(CalendarWindowQuery):
    symbols = _symbols("splits")


class IposCalendarQuery(CalendarWindowQuery):
    symbols = _symbols("IPOs")


class EconomicCalendarQuery(CalendarWindowQuery):
    country = CountryParam(required=False,
                           help_text="ISO 3166 two-letter country code (`US`, `DE`, any "
                                     "case): only that country's events; absent: every "
                                     "country")
