"""Build an ``exchange_calendars`` calendar evaluating its holiday rules only near its window.

Why: ``exchange_calendars.get_calendar(name, start=..., end=...)`` spends nearly all of its
time evaluating holiday rules over far more years than ``start``/``end`` (measured with
exchange-calendars 4.13.2 and pandas 3.1.1 on the project's 2-core VM, a window of 408
days, in a process that had already built one calendar):

- The session offset (``ExchangeCalendar.day``, a ``CustomBusinessDay``) asks the calendar's
  ``regular_holidays`` for ``holidays()`` with no bounds, which pandas evaluates from
  1970-01-01 to 2200-12-31: 231 years of every rule.
- pandas' ``Holiday._reference_dates`` replaces the requested start (end) by the rule's own
  ``start_date`` (``end_date``) when it has one, so even a bounded ``holidays(start, end)``
  (special closes, special opens, XKRX's special offsets) evaluates a rule from the year it
  took effect (1990s for many) to ``end``.
- XKRX's lunar holidays convert each date with ``korean_lunar_calendar`` (~4 ms a date, it
  counts days from the year 1000): 508 conversions over 1970-2200, 1.65 s of its 1.75 s.
  XMOS: 0.75 s, its observance functions mapped over 231 years per rule. The others take
  45-210 ms, 4.3 s for the 26 calendars /v2/hours uses.

What this module changes: nothing in the package. :func:`windowed_calendar` constructs the
package's own calendar class through a subclass whose holiday calendars (regular holidays,
special opens and closes, special offsets) hold copies of the package's rules with
``start_date``/``end_date`` clamped to the calendar's window widened by a year on each side
(:data:`HOLIDAY_MARGIN`), each clamped once per calendar. A rule then evaluates only ~3
years, and an unbounded ``holidays()`` only the clamped years. Every session, open, close,
break and early close in the window is the same as the package's: pandas evaluates each
rule a year beyond the years it is asked for (offsets and observances that cross a year
end included) and filters to the requested dates after the observance, and a clamped bound
is never inside the window. ``tests/marketdata/test_calendar_window.py`` compares the two
for every calendar /v2/hours uses; ``bench/hours_cold.py --verify`` for 40 windows from
2024 to 2030, each mode in a fresh process (XKRX's alternative holidays depend on a
process-wide registry of the Korean holidays computed so far: the order of builds does not
change them). The 26 calendars build in 0.55 s of CPU instead of 4.3 s: XKRX 0.15 s (its
~40 lunar conversions), XMOS 0.045 s, XTAE and XHKG 0.035 s, the others 6-28 ms.

Thread safety: the package's rules are module-level objects shared by every calendar and
never modified here (a clamped rule is a copy); a calendar's clamped holiday calendars
belong to that calendar. The one process-wide state a build writes is the package's own
(XKRX's Korean holiday registry), as ``get_calendar`` does; marketdata.exchange_hours
builds a region under its lock, so one XKRX build runs at a time.

The package's classes are looked up by name in its calendar dispatcher (a private
mapping); when that lookup fails (a future release), :func:`windowed_calendar` falls back
to ``exchange_calendars.get_calendar``: slower, the same answers.
"""

from __future__ import annotations

import copy
import functools
from datetime import timedelta
from typing import Any

# How far past each end of the calendar's window the holiday rules are evaluated.
HOLIDAY_MARGIN = timedelta(days=366)


def _clamped_rule(rule: Any, low: Any, high: Any) -> Any:
    """A copy of a pandas ``Holiday`` that takes effect no earlier than ``low`` and ends no
    later than ``high`` (naive Timestamps). A one-off date (``year``) and a rule with a
    time zone (none in the calendars /v2/hours uses) are kept as they are."""
    start, end = rule.start_date, rule.end_date
    if (getattr(rule, "year", None) is not None or getattr(rule, "tz", None) is not None
            or any(bound is not None and bound.tz is not None for bound in (start, end))):
        return rule
    if start is not None and start >= low and end is not None and end <= high:
        return rule
    clamped = copy.copy(rule)
    clamped.start_date = low if start is None else max(start, low)
    clamped.end_date = high if end is None else min(end, high)
    return clamped


def _clamped_calendar(holidays: Any, window: tuple[Any, Any]) -> Any:
    """A copy of a pandas holiday calendar whose rules are clamped to ``window``; anything
    else (None, a weekday number, a calendar without rules) as it is."""
    from pandas.tseries.holiday import AbstractHolidayCalendar

    if not isinstance(holidays, AbstractHolidayCalendar) or not holidays.rules:
        return holidays
    clamped = copy.copy(holidays)
    clamped.rules = [_clamped_rule(rule, *window) for rule in holidays.rules]
    clamped._cache = None  # pandas' memo of the unclamped evaluation
    return clamped


def _clamped_entries(entries: Any, window: tuple[Any, Any]) -> Any:
    """``special_opens``/``special_closes``/``special_offsets``: tuples whose last member
    is a holiday calendar (or a weekday number)."""
    return [tuple(_clamped_calendar(member, window) for member in entry)
            for entry in entries]


class _WindowedHolidays:
    """Mixed in before a package calendar class (see the module docstring). Each holiday
    property is clamped once per calendar: the package builds a new holiday calendar on
    every access, so its rules were evaluated again by each of ``day``, the special opens
    and the special closes."""

    _holiday_window: tuple[Any, Any]
    _clamped_holidays: dict[str, Any]

    def __init__(self, start: Any = None, end: Any = None, side: Any = "left") -> None:
        import pandas as pd

        cls: Any = type(self)
        first = pd.Timestamp(start) if start is not None else cls.default_start()
        last = pd.Timestamp(end) if end is not None else cls.default_end()
        margin = pd.Timedelta(HOLIDAY_MARGIN)
        self._holiday_window = (first.tz_localize(None).normalize() - margin,
                                last.tz_localize(None).normalize() + margin)
        self._clamped_holidays = {}
        super().__init__(start=start, end=end, side=side)  # type: ignore[call-arg]

    def _clamped(self, name: str, entries: bool) -> Any:
        if name not in self._clamped_holidays:
            value = getattr(super(), name)
            self._clamped_holidays[name] = (
                _clamped_entries(value, self._holiday_window) if entries
                else _clamped_calendar(value, self._holiday_window))
        return self._clamped_holidays[name]

    @property
    def regular_holidays(self) -> Any:
        return self._clamped("regular_holidays", entries=False)

    @property
    def special_closes(self) -> Any:
        return self._clamped("special_closes", entries=True)

    @property
    def special_opens(self) -> Any:
        return self._clamped("special_opens", entries=True)

    @property
    def special_offsets(self) -> Any:  # XKRX only: (open, break start, break end, close, calendar)
        return self._clamped("special_offsets", entries=True)


@functools.cache
def windowed_type(name: str) -> type | None:
    """The package's calendar class for ``name`` with :class:`_WindowedHolidays` mixed in;
    None when the package's dispatcher cannot be read (then use ``get_calendar``)."""
    from exchange_calendars import calendar_utils

    try:
        dispatcher = calendar_utils.global_calendar_dispatcher
        base = dispatcher._calendar_factories[dispatcher.resolve_alias(name)]  # private
    except (AttributeError, KeyError, TypeError):
        return None
    if not isinstance(base, type):
        return None
    return type(f"Windowed{base.__name__}", (_WindowedHolidays, base), {})


def windowed_calendar(name: str, start: str | None = None, end: str | None = None) -> Any:
    """The calendar ``exchange_calendars.get_calendar(name, start=start, end=end)`` builds
    (the package's defaults for a missing bound), with its holiday rules evaluated only
    around [start, end]. Raises what the package raises for that calendar and window."""
    import exchange_calendars

    kwargs = {key: value for key, value in (("start", start), ("end", end))
              if value is not None}
    windowed = windowed_type(name)
    if windowed is None:
        return exchange_calendars.get_calendar(name, **kwargs)
    return windowed(**kwargs)
