"""Query declarations of the v2 short selling endpoints (daily short sale volume, short
interest); their answers are the records of :mod:`marketdata.records.short`.

Both windows are checked here, before any upstream call: ``end`` not before ``start``,
``start`` not after today (New York), at most the route's span apart. An ``end`` after
today is today (no file or settlement can be later). The validated query holds them as
dates, defaults filled, and the instant they were computed at (``at``).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from rest_framework import serializers

from apps.core.params import DayParam, choice
from apps.core.v2 import OrderedPageQuery, order_param
from marketdata.records import short as records
from marketdata.records.short import (
    DEFAULT_INTEREST_WINDOW_DAYS,
    DEFAULT_VENUE,
    DEFAULT_VOLUME_SESSIONS,
    MAX_ALL_VENUES_WINDOW_DAYS,
    MAX_INTEREST_WINDOW_DAYS,
    MAX_VOLUME_WINDOW_DAYS,
    VENUE_CHOICES,
)


def _day(text: str | None) -> date | None:
    return date.fromisoformat(text) if text else None


def _checked(start: date, end: date, today: date, span: int, why: str = "") -> None:
    if start > today:
        raise serializers.ValidationError(
            {"start": [f"start is after today ({today.isoformat()}, New York)"]})
    if end < start:
        raise serializers.ValidationError({"end": ["end is before start"]})
    if (end - start).days > span:
        raise serializers.ValidationError(
            {"end": [f"The window may span at most {span} days (end - start){why}"]})


class V2ShortVolumeQuery(OrderedPageQuery):
    order = order_param("desc", "rows (by trade date)")
    start = DayParam(required=False, help_text=(
        f"First trade date, `YYYY-MM-DD` (inclusive); default the {DEFAULT_VOLUME_SESSIONS}th "
        "trading day back from `end`"))
    end = DayParam(required=False, help_text=(
        f"Last trade date, `YYYY-MM-DD` (inclusive); default today (New York). At most "
        f"{MAX_VOLUME_WINDOW_DAYS} days after `start` ({MAX_ALL_VENUES_WINDOW_DAYS} with "
        "`venue=all`), and not before it"))
    venue = choice(VENUE_CHOICES, required=False, default=DEFAULT_VENUE, help_text=(
        "Which FINRA file: `consolidated` (the TRFs and the ADF together, default), one "
        "facility (`nasdaq-carteret`, `nasdaq-chicago`, `nyse`, `adf`, `orf`), or `all` "
        "(a row per facility and day)"))

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        at: datetime = records.now()
        today = records.today_et(at)
        end = min(_day(attrs.get("end")) or today, today)
        every = attrs["venue"] == "all"
        span = MAX_ALL_VENUES_WINDOW_DAYS if every else MAX_VOLUME_WINDOW_DAYS
        # The default start never makes the default window too long (20 trading days over
        # the year-end holidays span more than 30 days).
        start = _day(attrs.get("start")) or max(records.default_volume_start(end, at),
                                                end - timedelta(days=span))
        _checked(start, end, today, span, " with venue=all" if every else "")
        attrs["start"], attrs["end"], attrs["at"] = start, end, at
        return attrs


class V2ShortInterestQuery(OrderedPageQuery):
    order = order_param("desc", "settlements (by settlement date)")
    start = DayParam(required=False, help_text=(
        f"First settlement date, `YYYY-MM-DD` (inclusive); default `end` - "
        f"{DEFAULT_INTEREST_WINDOW_DAYS} days"))
    end = DayParam(required=False, help_text=(
        f"Last settlement date, `YYYY-MM-DD` (inclusive); default today (New York). At most "
        f"{MAX_INTEREST_WINDOW_DAYS} days after `start`, and not before it"))

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        today = records.today_et()
        end = min(_day(attrs.get("end")) or today, today)
        start = _day(attrs.get("start")) or end - timedelta(days=DEFAULT_INTEREST_WINDOW_DAYS)
        _checked(start, end, today, MAX_INTEREST_WINDOW_DAYS)
        attrs["start"], attrs["end"] = start, end
        return attrs
