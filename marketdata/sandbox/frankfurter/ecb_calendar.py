"""When the ECB publishes a reference rate: TARGET business days, after about 16:00 CET.

Why: the service reads the last two fixes of a ten-day window; the sandbox must skip the
same days the ECB skips (weekends and the TARGET holidays: 1 January, Good Friday, Easter
Monday, 1 May, 25 and 26 December) and publish a day's fix only once it is out.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from pandas.tseries.holiday import EasterMonday, GoodFriday

FRANKFURT = ZoneInfo("Europe/Berlin")
PUBLISHED_AT = time(16, 0)  # local time in Frankfurt


@lru_cache(maxsize=128)
def target_holidays(year: int) -> frozenset[date]:
    start, end = f"{year}-01-01", f"{year}-12-31"
    easter = [d.date() for rule in (GoodFriday, EasterMonday) for d in rule.dates(start, end)]
    return frozenset([date(year, 1, 1), date(year, 5, 1), date(year, 12, 25),
                      date(year, 12, 26), *easter])


def is_fix_day(day: date) -> bool:
    return day.weekday() < 5 and day not in target_holidays(day.year)


def previous_fix_day(day: date) -> date:
    """The last fix day on or before ``day``."""
    while not is_fix_day(day):
        day -= timedelta(days=1)
    return day


def last_published(now: datetime) -> date:
    """The newest fix out at ``now`` (aware): today's after 16:00 in Frankfurt, else the
    one before."""
    local = now.astimezone(FRANKFURT)
    today = local.date()
    if is_fix_day(today) and local.time() >= PUBLISHED_AT:
        return today
    return previous_fix_day(today - timedelta(days=1))


def fix_days(first: date, last: date) -> list[date]:
    """Every fix day from ``first`` to ``last``, both included."""
    days, day = [], first
    while day <= last:
        if is_fix_day(day):
            days.append(day)
        day += timedelta(days=1)
    return days
