"""Macro and positioning data: an economic series, the Treasury's par yield curve of a
year, a futures contract's weekly Commitments of Traders, the economic release calendar.

Sources: the FRED API with its key, else (or when it fails) FRED's keyless CSV download;
the Treasury's yearly CSV; the CFTC's public reporting. Each query is validated here (or by
its record's lookup), before any source is asked.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

from marketdata.capabilities.table import Source, declare
from marketdata.errors import BadRequest, NotFound
from marketdata.records.macro import (
    FIRST_YEAR,
    Commitments,
    CotLookup,
    MacroSeries,
    Observation,
    YieldCurveRow,
    normalize_series_id,
)
from marketdata.records.releases import ReleaseDate, major_releases
from marketdata.symbols import display_symbol

# How far ahead release dates are asked for (FRED's calendar reaches about a year).
RELEASE_HORIZON_DAYS = 400
FRED = "marketdata.providers.fred"


@declare("macro_series", "Macro series (/v2/macro/series/{id})",
         Source("fred_api", "the FRED API", "FRED_API_KEY", fetcher=f"{FRED}:series_from_api"),
         Source("fred_graph", "FRED's keyless fredgraph.csv download",
                fetcher=f"{FRED}:series_from_graph"))
def _observations(series_id: str) -> list[Observation]:
    """The observations of a canonical series id, oldest first (:func:`series`)."""


@declare("economic_releases", "Economic release calendar (/v2/calendar)",
         Source("fred_api", "FRED's release calendar (the FRED API)", "FRED_API_KEY",
                fetcher=f"{FRED}:release_dates"),
         Source("release_rules", "the schedule the service computes (weekly claims, "
                "the Employment Situation, FOMC statements)",
                fetcher="marketdata.records.releases:scheduled_release_dates"))
def _release_dates(start: str, end: str) -> list[ReleaseDate]:
    """Every release dated from ``start`` to ``end`` (ISO dates; :func:`economic_releases`)."""


@declare("treasury_yields", "Treasury yields (/v2/macro/treasury-yields)",
         Source("treasury", "the U.S. Treasury's daily par yield curve CSV",
                fetcher="marketdata.providers.treasury:yield_curve"))
def _yield_curve(year: int, current_year: int) -> list[YieldCurveRow]:
    """The par yield curve rows of a checked year (:func:`treasury_yields`)."""


@declare("cot", "Weekly positioning (/v2/positioning/cot/{symbol})",
         Source("cftc", "CFTC Commitments of Traders (Socrata public reporting)",
                fetcher="marketdata.providers.cftc:commitments"))
def _commitments(found: CotLookup) -> Commitments:
    """The reports' rows of a looked-up contract, as the source names them (:func:`cot`)."""


def require_series_id(text: str) -> str:
    """The canonical series id, or NotFound: a malformed id can never exist upstream (the
    project's rule "invalid symbols are unknown symbols"), so it is never sent there."""
    series_id = normalize_series_id(text)
    if series_id is None:
        raise NotFound(f"Series not found: '{display_symbol(text)}'")
    return series_id


def series(series_text: str) -> MacroSeries:
    """The observations of the series ``series_text`` names, oldest first; NotFound for a
    malformed id (no upstream call) or an unknown series."""
    series_id = require_series_id(series_text)
    return MacroSeries(series_id, _observations(series_id))


def economic_releases(start: date, end: date) -> list[ReleaseDate]:
    """The major US economic releases scheduled from ``start`` to ``end`` (inclusive; at
    most :data:`RELEASE_HORIZON_DAYS` after ``start``: no agency schedules further), by
    date: from FRED's release calendar with its key, else (or when it fails) the schedule
    the service computes (:mod:`marketdata.records.releases`)."""
    end = min(end, start + timedelta(days=RELEASE_HORIZON_DAYS))
    return major_releases(_release_dates(start.isoformat(), end.isoformat()))


def treasury_yields(year: int, current_year: int) -> list[YieldCurveRow]:
    """The par yield curve rows of ``year``, newest first; a year outside
    :data:`FIRST_YEAR`..``current_year`` is a BadRequest."""
    if not FIRST_YEAR <= year <= current_year:
        raise BadRequest(f"year must be between {FIRST_YEAR} and {current_year}")
    return _yield_curve(year, current_year)


def cot(found: CotLookup) -> Commitments:
    """The weekly positioning of a looked-up contract
    (:func:`marketdata.records.macro.cot_lookup`), oldest first, under the symbol asked for
    (with the looked-up code when the newest row has none); NotFound when no report has
    rows for it."""
    result = _commitments(found)
    return replace(result, symbol=found.symbol,
                   contract_market_code=result.contract_market_code or found.code)
