"""GET https://api.stlouisfed.org/fred/releases/dates: FRED's release calendar (keyed).

Parameters honoured: ``api_key`` (required, checked as ``observations.py`` does),
``realtime_start``/``realtime_end`` (``YYYY-MM-DD``, default the sandbox clock's date: the
dates listed), ``include_release_dates_with_no_data`` (``true``/``false``, default false: as
on FRED, without it only dates up to today, which have data, are listed),
``order_by`` (``release_date``, ``release_id``, ``release_name``; default
``release_date``), ``sort_order`` (asc, desc), ``limit`` (1..1000, default 1000),
``offset``; ``file_type`` must be ``json`` here (FRED's default XML is not simulated: 400).

Answer: ``{realtime_start, realtime_end, order_by, sort_order, count, offset, limit,
release_dates: [{release_id, release_name, date}]}``.

The schedule is synthetic and deterministic (rules of thumb close to the real ones, not
the agencies' calendars): every month the Employment Situation (50) on the first Friday,
JOLTS (192) on the first Tuesday, CPI (10) on the first Wednesday on or after the 10th,
PPI (46) the day after, retail sales (9) on the first Friday on or after the 14th,
industrial production (13) on the first Tuesday on or after the 15th, GDP (53) on the
last Thursday and personal income and outlays (54) on the last Friday; jobless claims
(180) every Thursday; FOMC statements (101) on the third Wednesday of Jan, Mar, May, Jun,
Jul, Sep, Oct and Dec; H.15 selected interest rates (18) every weekday. With
``include_release_dates_with_no_data=true`` the Commercial Paper release (86) is also
listed on every day, as FRED fills releases without scheduled dates.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from marketdata.records.releases import MAJOR_RELEASES, weekday_on_or_after
from marketdata.sandbox.common import Request, json_response
from marketdata.sandbox.fred.observations import JSON_TYPE, KEY_HELP, error
from marketdata.sandbox.response import SandboxResponse

MAX_LIMIT = 1000
# FRED's names: the major releases the service keeps, and two it leaves out.
NAMES = {**MAJOR_RELEASES, 18: "H.15 Selected Interest Rates", 86: "Commercial Paper"}
FOMC_MONTHS = (1, 3, 5, 6, 7, 9, 10, 12)
# Longest window served at once (FRED's own calendar reaches about a year ahead).
MAX_DAYS = 800


def _last(year: int, month: int, weekday: int) -> date:
    nxt = date(year + month // 12, month % 12 + 1, 1)
    end = nxt - timedelta(days=1)
    return end - timedelta(days=(end.weekday() - weekday) % 7)


def _month_rows(year: int, month: int) -> list[tuple[int, date]]:
    first = date(year, month, 1)
    cpi = weekday_on_or_after(date(year, month, 10), 2)
    rows = [(50, weekday_on_or_after(first, 4)), (192, weekday_on_or_after(first, 1)), (10, cpi),
            (46, cpi + timedelta(days=1)), (9, weekday_on_or_after(date(year, month, 14), 4)),
            (13, weekday_on_or_after(date(year, month, 15), 1)), (53, _last(year, month, 3)),
            (54, _last(year, month, 4))]
    if month in FOMC_MONTHS:
        rows.append((101, weekday_on_or_after(first, 2) + timedelta(days=14)))
    return rows


def schedule(start: date, end: date, with_no_data: bool) -> list[tuple[int, date]]:
    """``(release id, date)`` of the window, by date then id."""
    out: list[tuple[int, date]] = []
    year, month = start.year, start.month
    while date(year, month, 1) <= end:
        out += _month_rows(year, month)
        year, month = year + month // 12, month % 12 + 1
    day = start
    while day <= end:
        if day.weekday() == 3:
            out.append((180, day))
        if day.weekday() < 5:
            out.append((18, day))
        if with_no_data:
            out.append((86, day))
        day += timedelta(days=1)
    return sorted((r for r in out if start <= r[1] <= end), key=lambda r: (r[1], r[0]))


def handle_release_dates(req: Request) -> SandboxResponse:
    if (req.arg("file_type") or "xml") != "json":
        return error("Bad Request.  This sandbox answers file_type=json only.")
    key = req.arg("api_key")
    if not key:
        return error("Bad Request.  Variable api_key has not been set.")
    if "INVALID" in key.upper():
        return error(f"Bad Request.  The value for variable api_key is not registered.  "
                     f"{KEY_HELP}")
    today = req.clock().date()
    try:
        start = date.fromisoformat(req.arg("realtime_start") or today.isoformat())
        end = date.fromisoformat(req.arg("realtime_end") or today.isoformat())
    except ValueError:
        return error("Bad Request.  Variable realtime_start or realtime_end is not a valid "
                     "date in the format YYYY-MM-DD.")
    if end < start:
        return error("Bad Request.  The real-time start date must be on or before the "
                     "real-time end date.")
    order_by = req.arg("order_by") or "release_date"
    order = req.arg("sort_order") or "asc"
    if order_by not in ("release_date", "release_id", "release_name"):
        return error("Bad Request.  Variable order_by is not one of the values: "
                     "'release_date', 'release_id', 'release_name'.")
    if order not in ("asc", "desc"):
        return error("Bad Request.  Variable sort_order is not one of the values: 'asc', "
                     "'desc'.")
    limit = req.int_arg("limit", MAX_LIMIT)
    offset = req.int_arg("offset", 0)
    if limit is None or not 1 <= limit <= MAX_LIMIT:
        return error("Bad Request.  Variable limit is not between 1 and 1000.")
    if offset is None or offset < 0:
        return error("Bad Request.  Variable offset is not a non-negative integer.")
    with_no_data = (req.arg("include_release_dates_with_no_data") or "false") == "true"
    last = min(end, start + timedelta(days=MAX_DAYS))
    if not with_no_data:
        last = min(last, today)
    rows = schedule(start, last, with_no_data) if start <= last else []
    if order_by == "release_id":
        rows.sort(key=lambda r: (r[0], r[1]))
    elif order_by == "release_name":
        rows.sort(key=lambda r: (NAMES[r[0]], r[1]))
    if order == "desc":
        rows.reverse()
    payload: dict[str, Any] = {
        "realtime_start": start.isoformat(), "realtime_end": end.isoformat(),
        "order_by": order_by, "sort_order": order, "count": len(rows), "offset": offset,
        "limit": limit,
        "release_dates": [{"release_id": rid, "release_name": NAMES[rid],
                           "date": day.isoformat()}
                          for rid, day in rows[offset:offset + limit]],
    }
    return json_response(payload, headers={"Content-Type": JSON_TYPE})

