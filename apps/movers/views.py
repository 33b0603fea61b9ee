"""v1 movers (actives, gainers, losers) and v2 screeners (predefined and custom)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.schema import error_responses
from apps.core.shapes import record_output, record_schema, v1_component
from apps.core.v2 import PageQuery, V2ApiView, connection_schema, requested_fields
from apps.core.views import ApiView
from apps.movers.serializers import (
    CUSTOM_EXAMPLES,
    CustomScreenerRequest,
    MoversQuery,
    V2ScreenerQuery,
)
from apps.movers.services import (
    MarketMover,
    custom_screener,
    market_movers,
    predefined_screener,
)
from marketdata.records.members import as_json, member_names
from marketdata.records.screeners import (
    DEFAULT_SIZE,
    EQUITY,
    MAX_FILTERS,
    MAX_OFFSET,
    MAX_SIZE,
    PREDEFINED,
    SCREENER_NAMES,
    ScreenerResult,
    ScreenerRow,
)

_NOTES = (" At most `count` rows (fewer when Yahoo lists fewer). Prices use the "
          "instrument's precision with thousands separators; `change` and `percentChange` "
          "always carry a sign ('+1.23', '-0.45%'). 422 when `count` is not 25, 50 or 100 "
          "(an empty `count=` too: leave the parameter out for the default).")


class _MoversView(ApiView):
    query_serializer = MoversQuery
    screener = ""

    def get(self, request: Request) -> Response:
        q = self.query(request)
        return Response(as_json(market_movers(self.screener, int(q["count"]))))


def _schema(name: str, summary: str, description: str) -> Any:
    """The OpenAPI description shared by the three movers endpoints."""
    return extend_schema(operation_id=f"get_{name}", tags=["Market movers"], summary=summary,
                         description=description + _NOTES, parameters=[MoversQuery],
                         responses={200: v1_component(MarketMover)(many=True),
                                    **error_responses(422, upstream=True)})


@route("v1/actives", name="actives")
class ActivesView(_MoversView):
    screener = "actives"

    @_schema("actives", "Most active stocks",
             "US stocks with the highest trading volume today (Yahoo's MOST_ACTIVES screener).")
    def get(self, request: Request) -> Response:
        return super().get(request)


@route("v1/gainers", name="gainers")
class GainersView(_MoversView):
    screener = "gainers"

    @_schema("gainers", "Top gainers",
             "US stocks with the highest percent price increase today (DAY_GAINERS).")
    def get(self, request: Request) -> Response:
        return super().get(request)


@route("v1/losers", name="losers")
class LosersView(_MoversView):
    screener = "losers"

    @_schema("losers", "Top losers",
             "US stocks with the highest percent price decrease today (DAY_LOSERS).")
    def get(self, request: Request) -> Response:
        return super().get(request)


# -- v2 screeners --------------------------------------------------------------------------------
TAG = "Screeners (v2)"
_EQUITY_NAMES = ", ".join(f"`{s.slug}`" + (f" ({', '.join(f'`{a}`' for a in s.aliases)})"
                                           if s.aliases else "")
                          for s in PREDEFINED if s.quote_type == EQUITY)
_FUND_NAMES = ", ".join(f"`{s.slug}`" for s in PREDEFINED if s.quote_type != EQUITY)
# `fields` names top-level members and/or a row's: those select the rows' members.
ROW_MEMBERS = member_names(ScreenerRow)
SCREENER_RESPONSE = record_schema(
    ScreenerResult, "A screener's rows; `fields` selects these members and/or ScreenerQuote "
                    "members", required=False, nested={
        "quotes": connection_schema(record_schema(
            ScreenerRow, "ScreenerQuote: every member present (null without a value) unless "
                         "`fields` names some", required=False),
            "rows (the screener's ranking)")})
SCREENER_OUTPUT = record_output(ScreenerResult, paged=("quotes",))
_OUTPUT_TEXT = """
    Each row is a ScreenerQuote: every member present, null where Yahoo sends no value
    (`fiftyTwoWeekChange` is one Yahoo's screeners do not send). `format` chooses numbers
    (`raw`), Yahoo's display strings (`pretty`/`fmt`) or both (`both`/`full`); `fields`
    names top-level members and/or ScreenerQuote members (`symbol` stays in every row);
    `cursor`/`limit` page `quotes` (a bare array without them, a connection with either)."""


@route("v2/screeners/<str:screener>", name="v2-screener")
class V2ScreenerView(V2ApiView):
    __doc__ = f"""Rows of one of Yahoo's predefined screeners: `{{quotes, type, description,
    lastUpdated, total}}`.

    Screeners (path, aliases in brackets): equities {_EQUITY_NAMES}; mutual funds
    {_FUND_NAMES}. Any other name is a 400. `count` (1..{MAX_SIZE}, default {DEFAULT_SIZE})
    rows are asked for, in Yahoo's ranking; `type` is Yahoo's canonical name (`DAY_GAINERS`),
    `total` how many instruments match in all, `lastUpdated` milliseconds since the epoch.
    Cached for the movers' time (15 s while the US market is open, 1 h when it is closed).
    {_OUTPUT_TEXT}"""

    query_serializer = V2ScreenerQuery
    path_choices = {"screener": SCREENER_NAMES}
    path_descriptions = {"screener": "A predefined screener's name or alias"}
    response_schema = SCREENER_RESPONSE
    csv_table = "quotes"
    output = SCREENER_OUTPUT
    operation_id, tag = "get_screener", TAG
    summary = "A predefined screener (gainers, losers, actives, funds...)"

    def get(self, request: Request, screener: str) -> Response:
        q = self.params
        return self.answer(predefined_screener(screener, q["count"], q.get("format"),
                                               self.fields(ROW_MEMBERS)))


@route("v2/screeners/custom", name="v2-screeners-custom")
@extend_schema(examples=CUSTOM_EXAMPLES)
class V2CustomScreenerView(V2ApiView):
    __doc__ = f"""Run a custom screen: the instruments whose screen fields meet every
    condition of `filters`, sorted on `sortField`: `{{quotes, type: "custom", description,
    lastUpdated: null, total}}`.

    The JSON body is checked member by member before any upstream call; each bad member is
    a 400 naming it (`size`, `sortField`, `filters[2].operator`, `filters[0].value`...):
    `quoteType` EQUITY or MUTUALFUND (aliases: stock, fund...; anything else is a 400);
    `size` 1..{MAX_SIZE} (more is a 400, not capped); `offset` 0..{MAX_OFFSET};
    `sortType` ASC/DESC; `sortField` and each filter's `field` a screen field of the quote
    type (equity: 92, fund: 11; the `field` enum lists both); at most {MAX_FILTERS}
    filters, each `{{field, operator, value}}` with `operator` eq/gt/gte/lt/lte/btwn (or =,
    ==, >, >=, <, <=, between): gt/gte/lt/lte take a number and a numeric field, btwn
    `[min, max]` (min <= max), eq a string on a text field (ticker, companyshortname,
    region, sector, peer_group, industry, exchange, categoryname) or a number on a numeric
    one. `offset`/`size` page the upstream's matches (`total` says how many there are).
    The screen goes to Yahoo's screener query (`POST /v1/finance/screener`); its answer is
    cached for the movers' time by the screen (the validated body, hashed), so the same
    screen twice within that time makes one upstream call. Rows carry the ScreenerQuote
    members the screen's columns give (symbol, shortName, price, change, percent change,
    market cap, volume, 3-month average volume, trailing P/E, 52-week change, exchange,
    quoteType); the others are null. GET: 405.
    {_OUTPUT_TEXT}"""

    query_serializer = PageQuery
    body_serializer = CustomScreenerRequest
    response_schema = SCREENER_RESPONSE
    output = SCREENER_OUTPUT
    operation_id, tag = "run_custom_screener", TAG
    summary = "Run a custom screen"

    def post(self, request: Request) -> Response:
        body = self.body
        fields = body.get("fields") or self.params.get("fields")
        data = custom_screener(body["screen"], body.get("format"),
                               requested_fields(fields, ROW_MEMBERS))
        return Response(self.output.apply(data, {**self.params, "fields": fields}))
