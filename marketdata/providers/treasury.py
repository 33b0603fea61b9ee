"""The U.S. Treasury's daily par yield curve rates, one calendar year per call.

``GET https://home.treasury.gov/resource-center/data-chart-center/interest-rates/
daily-treasury-rates.csv/{YEAR}/all?type=daily_treasury_yield_curve&
field_tdr_date_value={YEAR}&submit=time+series+1`` (keyless) answers a CSV, newest day first:

    Date,"1 Mo","1.5 Month","2 Mo","3 Mo","4 Mo","6 Mo","1 Yr","2 Yr",...,"30 Yr"
    10/07/2024,5.00,,4.87,4.77,...

Columns come and go over the years (1990 has nine maturities; 20 Yr is back from October
1993, 1 Mo from 2001, 2 Mo from 2018, 4 Mo from 2022, 1.5 Month from 2025; 30 Yr is blank
2002-2006), so columns are mapped **by header name**: a maturity the year lacks is null,
a maturity the spec's row has no member for (1.5 Month) is left out, and a blank or
``N/A`` cell is null. Dates ``MM/DD/YYYY`` become ISO ``YYYY-MM-DD``; Treasury's order
(newest first) is kept. A year without data yet answers the header alone: ``[]``.

Any 4xx is a 502 here (the year is validated before the call, so a 404 means Treasury
moved the file, not that the year is unknown); 5xx, timeouts and 429 are the client's.
:func:`yield_curve` is the fetcher of the ``treasury_yields`` capability; its rows are
:class:`marketdata.records.macro.YieldCurveRow`.
"""

from __future__ import annotations

import csv
import io
import re
from datetime import date

from marketdata.cache import TTLPolicy
from marketdata.errors import MarketDataError
from marketdata.http import ProviderConfig, UpstreamResponse
from marketdata.providers.base import Provider
from marketdata.providers.fred import parse_value
from marketdata.providers.registry import get_provider
from marketdata.records.macro import (  # noqa: F401 - the year, re-exported
    FIELD_BY_MATURITY,
    FIRST_YEAR,
    YieldCurveRow,
)

PROVIDER = ProviderConfig(name="treasury", display_name="U.S. Treasury",
                          connect_timeout=3.0, read_timeout=15.0,
                          hosts=("home.treasury.gov",))

CSV_URL = ("https://home.treasury.gov/resource-center/data-chart-center/interest-rates/"
           "daily-treasury-rates.csv/{year}/all")
CURVE_TYPE = "daily_treasury_yield_curve"
ENDPOINT = "daily_treasury_yield_curve_csv"

# The current year changes every business day; a past year practically never.
CURRENT_YEAR_TTL = TTLPolicy("treasury_yields_current", open=3600, extended=3600,
                             closed=3600, market_aware=False)
PAST_YEAR_TTL = TTLPolicy("treasury_yields_past", open=86400, extended=86400, closed=86400,
                          market_aware=False)

# "1 Mo", "1.5 Month", "10 Yr", "30 Year", "6 Months"...
_MATURITY = re.compile(r"(\d+(?:\.\d+)?)\s*(mo|mos|month|months|yr|yrs|year|years)",
                       re.IGNORECASE | re.ASCII)
_US_DATE = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})", re.ASCII)
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)


def csv_params(year: int) -> dict[str, str]:
    """The query string of the yearly CSV, as the reference implementation sends it (the
    path alone selects the CSV: Treasury's own download link sends ``page&_format=csv``
    instead, and the same file comes back)."""
    return {"type": CURVE_TYPE, "field_tdr_date_value": str(year), "submit": "time series 1"}


def field_for_header(header: str) -> str | None:
    """The row field a CSV column feeds (``"10 Yr"`` -> ``y10``, ``"1 Mo"`` -> ``y1m``),
    ``date`` for the date column, None for a column the row has no field for."""
    text = header.strip().strip('"').lstrip("\ufeff").strip()
    if text.lower() == "date":
        return "date"
    match = _MATURITY.fullmatch(text)
    if not match:
        return None
    number = float(match.group(1))
    unit = "mo" if match.group(2).lower().startswith("mo") else "yr"
    return FIELD_BY_MATURITY.get((int(number) if number.is_integer() else number, unit))


def iso_date(text: str) -> str | None:
    """Treasury's ``MM/DD/YYYY`` (or an ISO date) as ``YYYY-MM-DD``; None if it is no date."""
    text = text.strip()
    us = _US_DATE.fullmatch(text)
    parts: tuple[str, ...] | None = (us.group(3), us.group(1), us.group(2)) if us else None
    if parts is None:
        iso = _ISO_DATE.fullmatch(text)
        parts = iso.groups() if iso else None
    if parts is None:
        return None
    try:
        return date(int(parts[0]), int(parts[1]), int(parts[2])).isoformat()
    except ValueError:
        return None


def parse_yield_csv(text: str) -> list[YieldCurveRow]:
    """The yearly CSV -> rows in Treasury's order (newest first).

    A yield is None where the year has no such column or the cell is blank or not a
    number. Rows without a date are left out; a body without a ``Date`` column is a 502."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    header = next(reader, None)
    names = [field_for_header(name) for name in header or ()]
    if "date" not in names:
        raise PROVIDER.bad_answer("returned a body that is not the yield curve CSV")
    date_at = names.index("date")
    feeds = [(i, name) for i, name in enumerate(names) if name and name != "date"]
    rows: list[YieldCurveRow] = []
    for cells in reader:
        day = iso_date(cells[date_at]) if len(cells) > date_at else None
        if day is not None:
            rows.append(YieldCurveRow(day, **{name: parse_value(cells[i])
                                              for i, name in feeds if i < len(cells)}))
    return rows


class TreasuryProvider(Provider):
    """Keyless; every 4xx is a bad answer (502), see the module doc."""

    config = PROVIDER

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        if response.status >= 400:
            return self.status_error(response, endpoint)
        return None

    def yield_curve(self, year: int) -> list[YieldCurveRow]:
        response = self.get(ENDPOINT, CSV_URL.format(year=year), csv_params(year))
        return parse_yield_csv(response.text)


def yield_curve(year: int, current_year: int) -> list[YieldCurveRow]:
    """The daily par yield curve rows of ``year`` (already validated), newest first,
    through the cache: an hour for the current year, a day for past years."""
    provider: TreasuryProvider = get_provider(PROVIDER.name)
    policy = CURRENT_YEAR_TTL if year >= current_year else PAST_YEAR_TTL
    return provider.cached("yield_curve", {"year": year},
                           lambda: provider.yield_curve(year), policy, group="treasury")
