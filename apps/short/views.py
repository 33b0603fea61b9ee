"""v2 short selling of a symbol: FINRA's daily short sale volume and its short interest."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView, connection_schema, order_note
from apps.short.serializers import V2ShortInterestQuery, V2ShortVolumeQuery
from apps.short.services import short_interest_for, short_volume_for
from marketdata.records.short import (
    DEFAULT_INTEREST_WINDOW_DAYS,
    DEFAULT_VOLUME_SESSIONS,
    MAX_ALL_VENUES_WINDOW_DAYS,
    MAX_INTEREST_WINDOW_DAYS,
    MAX_VOLUME_WINDOW_DAYS,
    ShortInterest,
    ShortInterestRow,
    ShortVolume,
    ShortVolumeRow,
)

TAG = "Short selling (v2)"


@route("v2/short/<str:symbol>/volume", name="v2-short-volume")
class V2ShortVolumeView(V2ApiView):
    __doc__ = f"""Daily short sale volume of a security from FINRA's Reg SHO files:
    `{{symbol, venue, start, end, rows, notices}}`, a row per trading day `{{date, venue,
    shortVolume, shortExemptVolume, totalVolume, ratio, market}}`, newest first.

    Source: FINRA's daily short sale volume files (`cdn.finra.org/equity/regsho/daily`,
    keyless), one per trading day and facility, posted by 6 pm ET the same day. They count
    **off-exchange** trades reported to FINRA's facilities only (its TRFs, the ADF and,
    for OTC equities, the ORF), not exchange volume: `totalVolume` is the volume reported
    to the venue, not the day's consolidated volume. `shortVolume` includes the
    short-exempt volume; `ratio` = shortVolume / totalVolume (a fraction, 4 decimals).
    Volumes are shares (fractional where fractional shares traded).

    `venue`: `consolidated` (default: the TRFs and the ADF together, files since
    2018-08-01), one facility (`nasdaq-carteret`, `nasdaq-chicago`, `nyse`, `adf`, `orf`),
    or `all` (a row per facility that lists the symbol, per day). `start`/`end` (trade
    dates, inclusive): by default the latest {DEFAULT_VOLUME_SESSIONS} trading days; at most
    {MAX_VOLUME_WINDOW_DAYS} days apart ({MAX_ALL_VENUES_WINDOW_DAYS} with `venue=all`),
    else a 400 before any upstream call; an `end` after today is today. Weekends and
    exchange holidays (the NYSE calendar) have no file and are not asked for; today's file
    is asked for once the session has closed.

    `notices` names the days left out: a file FINRA has not published yet, or one that
    could not be read (the answer is then partial and not cached as a whole). When every
    file failed, that failure is the answer (502/503/504/429 naming `finra`). 404 when the
    files of the window were read and none lists the symbol (or the symbol is malformed,
    without an upstream call); a window with no file published yet gives `rows: []` with a
    notice. `fields` selects members of each row (`date` always stays); `cursor`/`limit`
    page the rows (a connection; the other members stay); `format=csv` gives the rows as
    CSV.

    """ + order_note("desc", "rows (by trade date)")

    query_serializer = V2ShortVolumeQuery
    response_schema = record_schema(
        ShortVolume, "A symbol's daily short sale volume over a window", nested={
            "rows": connection_schema(
                record_schema(ShortVolumeRow, "One trading day's short sale volume in one "
                              "venue's file"),
                "rows, newest trade date first (`order=desc`, the default) or oldest first "
                "(`order=asc`)")})
    csv_table = "rows"
    output = record_output(ShortVolumeRow, at=("rows",), paged=("rows",))
    operation_id, tag = "get_short_volume", TAG
    summary = "Daily short sale volume of a security (FINRA)"

    def get(self, request: Request, symbol: str) -> Response:
        q = self.params
        return self.answer(short_volume_for(symbol, q["venue"], q["start"], q["end"],
                                            q["at"]))


@route("v2/short/<str:symbol>/interest", name="v2-short-interest")
class V2ShortInterestView(V2ApiView):
    __doc__ = f"""Short interest of a security at each settlement date: `{{symbol, name,
    start, end, settlements}}`, a settlement `{{settlementDate, sharesShort,
    previousSharesShort, change, changePercent, averageDailyVolume, daysToCover,
    stockSplit, revised, market}}`, newest first.

    Source: FINRA's consolidated short interest (Query API, `api.finra.org`, dataset
    otcMarket/consolidatedShortInterest, keyless): the short positions FINRA member firms
    report (Rule 4560) in every exchange-listed and OTC security as of two settlement dates a
    month (mid-month and month end), published about a week and a half later. Positions and
    volumes are shares; `daysToCover` = sharesShort / averageDailyVolume (FINRA's, capped at
    999.99); `changePercent` is in percent.

    `start`/`end` (settlement dates, inclusive): by default the last
    {DEFAULT_INTEREST_WINDOW_DAYS} days; at most {MAX_INTEREST_WINDOW_DAYS} days apart, else a
    400 before any upstream call; an `end` after today is today. 404 when FINRA has no
    settlement of the symbol in the window (or the symbol is malformed, without an upstream
    call); 502/503/504/429 name `finra` when FINRA cannot answer. `fields` selects members
    of each settlement (`settlementDate` always stays); `cursor`/`limit` page them;
    `format=csv` gives them as CSV.

    """ + order_note("desc", "settlements (by settlement date)")

    query_serializer = V2ShortInterestQuery
    response_schema = record_schema(
        ShortInterest, "A security's short interest at each settlement date of a window",
        nested={"settlements": connection_schema(
            record_schema(ShortInterestRow, "The short position as of one settlement date"),
            "settlements, newest first (`order=desc`, the default) or oldest first "
            "(`order=asc`)")})
    csv_table = "settlements"
    output = record_output(ShortInterestRow, at=("settlements",), paged=("settlements",))
    operation_id, tag = "get_short_interest", TAG
    summary = "Short interest of a security (FINRA)"

    def get(self, request: Request, symbol: str) -> Response:
        q = self.params
        return self.answer(short_interest_for(symbol, q["start"], q["end"]))
