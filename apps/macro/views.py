"""v2 macro endpoints: one FRED series, the Treasury's daily par yield curve of a year."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView, connection_schema, order_note
from apps.macro import serializers as macro
from apps.macro.services import macro_series, treasury_yields
from marketdata.records.macro import (
    FIRST_YEAR,
    MAX_SERIES_ID_LENGTH,
    MacroSeries,
    Observation,
    YieldCurveRow,
)

TAG = "Macro (v2)"
_SERIES_ID = OpenApiParameter(
    "id", OpenApiTypes.STR, OpenApiParameter.PATH,
    description=f"FRED series id, e.g. DGS10, GDP, CPIAUCSL, UNRATE: letters, digits and "
                f"underscores, at most {MAX_SERIES_ID_LENGTH}; case-insensitive. A malformed "
                "id is an unknown series (404, never sent upstream)")


@route("v2/macro/series/<str:id>", name="v2-macro-series")
class V2MacroSeriesView(V2ApiView):
    __doc__ = """One economic time series from FRED (St. Louis Fed): `{id, observations}`.

    `id` is the series id upper-cased; `observations` are `{date, value}` oldest first, the
    series' whole history, `date` as `YYYY-MM-DD` (FRED's observation date: the start of
    the period for monthly or quarterly series), `value` a number in the series' own units
    (percent for DGS10 and UNRATE, billions of dollars for GDP, an index for CPIAUCSL...)
    or null where FRED has no value (`.` in the API, a blank cell in the CSV: holidays of
    daily series, gaps).

    Sources: the FRED API (`api.stlouisfed.org/fred/series/observations`) when
    `FRED_API_KEY` is set; otherwise, or when the API fails or refuses the key (logged
    once as a warning), FRED's keyless download (`fred.stlouisfed.org/graph/fredgraph.csv`),
    the same numbers. Cached for an hour.

    `cursor`/`limit` page the observations (a connection `{edges, nodes, pageInfo}`), the
    `id` stays as it is; with neither they are a bare array. `order=desc&limit=5` gives
    the newest five. `fields` selects `id` and/or `observations`. 404 for an unknown series
    or a malformed id (letters, digits and underscores only; checked before any upstream
    call); 400 for a bad `cursor`/`limit`/`order`; 502/503/504/429 when FRED cannot
    answer.

    """ + order_note("asc", "observations")

    query_serializer = macro.MacroSeriesQuery
    response_schema = record_schema(
        MacroSeries, "GqlMacroSeries; `fields` selects these members", required=False,
        nested={"observations": connection_schema(
            record_schema(Observation, "One observation"),
            "observations, oldest first (`order=asc`, the default) or newest first "
            "(`order=desc`)")})
    operation_id, tag = "get_macro_series", TAG
    summary = "Macro series (FRED)"

    csv_table = "observations"
    output = record_output(MacroSeries, paged=("observations",))

    @extend_schema(parameters=[_SERIES_ID])
    def get(self, request: Request, id: str) -> Response:
        return self.answer(macro_series(id))


@route("v2/macro/treasury-yields", name="v2-treasury-yields")
class V2TreasuryYieldsView(V2ApiView):
    __doc__ = f"""The U.S. Treasury's daily par yield curve rates of one calendar year:
    an array of rows `{{date, y1M, y2M, y3M, y4M, y6M, y1, y2, y3, y5, y7, y10, y20, y30}}`.

    One row per business day, **newest first** (Treasury's own order), `date` as
    `YYYY-MM-DD`. The `y…` members are par yields in percent for 1, 2, 3, 4 and 6 months
    and 1, 2, 3, 5, 7, 10, 20 and 30 years; null where Treasury has no value (a maturity
    not yet or no longer published that year: 1 month before 2001, 2 months before 2018, 4
    months before October 2022, 20 years before October 1993, 30 years in 2002-2006).
    Treasury's 1.5-month maturity (since 2025) has no member in this row and is left out.

    Source: `home.treasury.gov` daily treasury rates CSV (`daily_treasury_yield_curve`),
    keyless; columns are read by name, so a new maturity does not shift the others. A year
    without data yet (early January) gives `[]`. Cached for an hour for the current year,
    a day for past years.

    `year` defaults to the current UTC year; anything but an integer in
    {FIRST_YEAR}..current year is a 400 before any upstream call. `cursor`/`limit` page the
    rows; `fields` applies to each row (a requested member is present even when null).
    502/503/504/429 when Treasury cannot answer.

    """ + order_note("desc", "rows")

    query_serializer = macro.TreasuryYieldsQuery
    response_schema = connection_schema(
        record_schema(YieldCurveRow, "Treasury yield row: the daily par yield curve of one day "
                      "(`fields` selects members)", required=False),
        "rows, newest first (`order=desc`, the default) or oldest first (`order=asc`)")
    operation_id, tag = "get_treasury_yields", TAG
    summary = "Treasury par yield curve of a year"

    csv_table = ""
    output = record_output(YieldCurveRow, paged=("",))

    def get(self, request: Request) -> Response:
        return self.answer(treasury_yields(self.params["year"], macro.current_year()))
