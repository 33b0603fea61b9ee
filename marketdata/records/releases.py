"""Scheduled US economic data releases: the calendar's ``ECONOMIC_RELEASE`` events.

Two sources give :class:`ReleaseDate` lists (the ``economic_releases`` capability):

- with ``FRED_API_KEY``, FRED's release calendar (``/fred/releases/dates``,
  :func:`marketdata.providers.fred.release_dates`): every release FRED tracks, of which the
  calendar keeps the market-moving ones of :data:`MAJOR_RELEASES` (the reference's ten),
  after dropping FRED's "no data" fills (:func:`drop_phantom_runs`);
- without it, :func:`scheduled_release_dates`: the releases whose dates follow from a
  published rule or schedule, computed here: the weekly jobless claims (every Thursday; the
  Wednesday before when the Thursday is a holiday), the Employment Situation (the third
  Friday after the week that includes the 12th; the Thursday before when that Friday is a
  holiday; the December report on the following Friday when the third falls on January
  1-3, as the BLS does) and the FOMC statements (the second day of each scheduled meeting,
  as the Federal Reserve published them; years not listed give none). Holidays are the
  NYSE's (:mod:`marketdata.markets`) but Good Friday, on which the agencies publish.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

# FRED release ids of the major market-moving releases, with FRED's names.
MAJOR_RELEASES: dict[int, str] = {
    9: "Advance Monthly Sales for Retail and Food Services",
    10: "Consumer Price Index",
    13: "G.17 Industrial Production and Capacity Utilization",
    46: "Producer Price Index",
    50: "Employment Situation",
    53: "Gross Domestic Product",
    54: "Personal Income and Outlays",
    101: "FOMC Press Release",
    180: "Unemployment Insurance Weekly Claims Report",
    192: "Job Openings and Labor Turnover Survey",
}
EMPLOYMENT_SITUATION, FOMC, JOBLESS_CLAIMS = 50, 101, 180
# A release listed on this many consecutive days is FRED's "no data" fill, not a schedule.
PHANTOM_RUN_DAYS = 3

# The second (statement) day of each scheduled FOMC meeting, as the Federal Reserve
# published the schedules.
FOMC_STATEMENT_DAYS: tuple[date, ...] = tuple(date.fromisoformat(d) for d in (
    "2025-01-29", "2025-03-19", "2025-05-07", "2025-06-18", "2025-07-30", "2025-09-17",
    "2025-10-29", "2025-12-10",
    "2026-01-28", "2026-03-18", "2026-04-29", "2026-06-17", "2026-07-29", "2026-09-16",
    "2026-10-28", "2026-12-09",
))


@dataclass(frozen=True)
class ReleaseDate:
    """One scheduled release: FRED's release id and name, and its date (ISO)."""

    release_id: int
    name: str
    date: str


def drop_phantom_runs(rows: Iterable[ReleaseDate]) -> list[ReleaseDate]:
    """``rows`` without the dates that belong to a run of :data:`PHANTOM_RUN_DAYS` or more
    consecutive days of the same release. With ``include_release_dates_with_no_data`` FRED
    lists releases without scheduled dates on every day (the FOMC press release comes back
    as a month of daily rows); no real release recurs on three consecutive days."""
    rows = list(rows)
    days: dict[int, set[int]] = defaultdict(set)
    for row in rows:
        days[row.release_id].add(date.fromisoformat(row.date).toordinal())

    def in_run(row: ReleaseDate) -> bool:
        have = days[row.release_id]
        day = date.fromisoformat(row.date).toordinal()
        return any(all(day + k + j in have for j in range(PHANTOM_RUN_DAYS))
                   for k in range(1 - PHANTOM_RUN_DAYS, 1))

    return [row for row in rows if not in_run(row)]


def major_releases(rows: Iterable[ReleaseDate]) -> list[ReleaseDate]:
    """The rows of :data:`MAJOR_RELEASES`, phantom fills dropped, by date then id."""
    kept = drop_phantom_runs(row for row in rows if row.release_id in MAJOR_RELEASES)
    return sorted(set(kept), key=lambda r: (r.date, r.release_id))


# ---- the keyless schedule ------------------------------------------------------------------
def _is_holiday(day: date) -> bool:
    """A weekday the NYSE is closed for a federal holiday (Good Friday is not one: the
    agencies publish on it)."""
    from marketdata.markets import session_day

    if day.weekday() >= 5:
        return False
    session = session_day(day)
    return not session.is_session and "good friday" not in (session.holiday or "").lower()


def weekday_on_or_after(day: date, weekday: int) -> date:
    """The first ``weekday`` (Monday 0) on or after ``day``."""
    return day + timedelta(days=(weekday - day.weekday()) % 7)


def employment_situation_day(year: int, month: int) -> date:
    """The release day of the Employment Situation for the reference month ``month``."""
    twelfth = date(year, month, 12)
    week_end = twelfth + timedelta(days=(5 - twelfth.weekday()) % 7)  # the Saturday
    release = weekday_on_or_after(week_end, 4) + timedelta(days=14)  # the third Friday
    if release.month == 1 and release.day <= 3:
        release += timedelta(days=7)
    while _is_holiday(release):
        release -= timedelta(days=1)
    return release


def scheduled_release_dates(start: str, end: str) -> list[ReleaseDate]:
    """The keyless calendar between ``start`` and ``end`` (ISO dates, inclusive): weekly
    claims, the Employment Situation and the FOMC statements (see the module doc)."""
    first, last = date.fromisoformat(start), date.fromisoformat(end)
    out: list[ReleaseDate] = []

    def add(release_id: int, day: date) -> None:
        if first <= day <= last:
            out.append(ReleaseDate(release_id, MAJOR_RELEASES[release_id], day.isoformat()))

    thursday = weekday_on_or_after(first - timedelta(days=1), 3)
    while thursday <= last + timedelta(days=1):
        add(JOBLESS_CLAIMS, thursday - timedelta(days=1) if _is_holiday(thursday)
            else thursday)
        thursday += timedelta(days=7)
    year, month = first.year, first.month - 2  # a report comes out in the month after next
    while date(year + (month - 1) // 12, (month - 1) % 12 + 1, 1) <= last:
        add(EMPLOYMENT_SITUATION,
            employment_situation_day(year + (month - 1) // 12, (month - 1) % 12 + 1))
        month += 1
    for day in FOMC_STATEMENT_DAYS:
        add(FOMC, day)
    return sorted(out, key=lambda r: (r.date, r.release_id))
