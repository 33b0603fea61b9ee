"""GET /v2/index-constituents/{symbol}."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.constituents.services import index_constituents
from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import FieldsQuery, V2ApiView
from marketdata.records.companies import Constituent


@route("v2/index-constituents/<str:symbol>", name="v2-index-constituents")
class V2IndexConstituentsView(V2ApiView):
    """The members of a major US index: `[{symbol, name, sector, subSector,
    headquarters, dateFirstAdded, cik, founded}]`, sorted by symbol.

    Indices (the symbol is matched case-insensitively): `^GSPC`, `SPX`, `GSPC`, `SP500`
    (S&P 500); `^NDX`, `NDX`, `NASDAQ100` (Nasdaq-100); `^DJI`, `DJI`, `DJIA`, `DOWJONES`
    (Dow Jones Industrial Average). Any other symbol is a 404 naming these, before any
    upstream call. (Encode `^` as `%5E` in a URL.)

    Sources: Financial Modeling Prep when `FMP_API_KEY` is set (a refused key or an FMP
    failure falls back); else the public constituent tables on Wikipedia (the articles
    "List of S&P 500 companies", "Nasdaq-100" and "Dow Jones Industrial Average"), found
    by their column headers and read a day at a time. From Wikipedia: `sector` and
    `subSector` are the GICS sector and sub-industry (the Dow's table has an Industry
    column, given as `sector`, and no sub-industry); `headquarters`, `cik` and `founded`
    exist for the S&P 500 only, `dateFirstAdded` for the S&P 500 and the Dow; a member a
    table has no column for is null.

    `symbol` is in Yahoo's spelling (`BRK-B`, not Wikipedia's `BRK.B`), so it can be passed
    to `/v2/quote` as it is; `cik` has ten digits; `dateFirstAdded` is `YYYY-MM-DD` when
    the source's date is readable. Not paged. `fields` applies to each member."""

    query_serializer = FieldsQuery
    response_schema = {
        "type": "array", "items": record_schema(Constituent, "Index constituent"),
        "description": "The index's members, sorted by symbol (`fields` applies to each)"}
    operation_id, tag = "get_index_constituents", "Index constituents (v2)"
    summary = "Members of a major US index"

    csv_table = ""
    output = record_output(Constituent)

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(index_constituents(symbol))
