"""GET /resource-center/data-chart-center/interest-rates/daily-treasury-rates.csv/{year}/all
?type=daily_treasury_yield_curve&field_tdr_date_value={year}: one year of the daily par
yield curve as Treasury's CSV, newest day first.

The header is ``Date`` plus the maturities published at some point of that year, quoted
and in Treasury's order (``Date,"1 Mo","1.5 Month","2 Mo",...,"30 Yr"``); a maturity not
published on a day is an empty cell; dates are ``MM/DD/YYYY``; values have 2 decimals.
Only days whose curve is out at the sandbox clock are listed, so a future year (and any
year before 1990) is the header alone, as Treasury answers 1989. Other ``type`` values
(bill rates, real yields...) are not simulated: their answer is the header ``Date`` alone.
A ``field_tdr_date_value`` that differs from the path's year filters everything out.
"""

from __future__ import annotations

import csv
import io
import math
from datetime import date

import numpy as np

from marketdata.sandbox.common import Request, text_response
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.treasury import curve

CURVE_TYPE = "daily_treasury_yield_curve"
CSV_TYPE = "text/csv; charset=utf-8"


def not_found_page() -> SandboxResponse:
    """Treasury's answer to a path it does not have: an HTML page, 404."""
    return text_response("<!DOCTYPE html><html><head><title>Page Not Found | U.S. Department "
                         "of the Treasury</title></head><body><h1>Page Not Found</h1>"
                         "</body></html>", 404, "text/html; charset=UTF-8")


def _published_in(tenor: curve.Tenor, year: int) -> bool:
    start, end = date(year, 1, 1), date(year, 12, 31)
    if tenor.first > end:
        return False
    if tenor.gap is not None and tenor.gap[0] <= max(start, tenor.first) and tenor.gap[1] >= end:
        return False
    return True


def year_csv(year: int, through: date) -> str:
    """The CSV of ``year`` listing the days up to ``through``, newest first."""
    tenors = [t for t in curve.TENORS if _published_in(t, year)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    out.write("Date," + ",".join(f'"{t.header}"' for t in tenors) + "\r\n")
    days = curve.business_days()
    table = curve.curve_table()
    first = max(date(year, 1, 1), curve.FIRST_DAY)
    last = min(date(year, 12, 31), through, curve.LAST_DAY)
    if first <= last:
        lo = int(days.searchsorted(np.datetime64(first, "D")))
        hi = int(days.searchsorted(np.datetime64(last, "D"), side="right"))
        columns = [curve.TENOR_INDEX[t.header] for t in tenors]
        for i in range(hi - 1, lo - 1, -1):
            day = days[i].item()
            row = table[i]
            writer.writerow([day.strftime("%m/%d/%Y"),
                             *("" if math.isnan(row[j]) else f"{row[j]:.2f}" for j in columns)])
    return out.getvalue()


def handle_rates_csv(req: Request) -> SandboxResponse:
    year = int(req.params["year"])
    kind = req.arg("type")
    asked = req.arg("field_tdr_date_value")
    if kind != CURVE_TYPE or (asked not in (None, "") and asked != str(year)):
        body = "Date\r\n"
    else:
        body = year_csv(year, curve.published_through(req.clock()))
    return text_response(body, 200, CSV_TYPE, headers={
        "Content-Disposition": "attachment; filename=daily-treasury-rates.csv"})
