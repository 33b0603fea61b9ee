"""v1 indices; v2 indices, market summary and trending symbols."""

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.schema import error_responses
from apps.core.shapes import record_output, record_schema, v1_component
from apps.core.v2 import V2ApiView
from apps.core.views import ApiView
from apps.indices.serializers import (
    V2_INDICES_RESPONSE,
    IndicesQuery,
    V2IndicesQuery,
    V2MarketSummaryQuery,
    V2TrendingQuery,
)
from apps.indices.services import (
    MarketIndex,
    market_indices,
    v2_indices,
    v2_market_summary,
    v2_trending,
)
from apps.quotes.services import quote_json
from marketdata.records.market import MarketSummaryItem, SummarySpark, TrendingSymbol
from marketdata.records.members import as_json, members_of
from marketdata.records.quotes import GqlQuote


@route("v1/indices", name="indices")
class IndicesView(ApiView):
    query_serializer = IndicesQuery

    @extend_schema(
        operation_id="get_indices", tags=["Indices"], summary="Market indices",
        description=(
            "Level, day change and period returns of major world indices. The selection is "
            "the union of the `index` values and the `region`'s indices (region NA includes "
            "the US); all 73 when neither is given. The response is always in the order of "
            "the identifier list, whatever the request order. An index Yahoo cannot serve is "
            "left out; the request fails (502/503/504) only when none can be served. 422 "
            "when an `index` item (keyed `index.<position>`) or `region` is invalid."),
        parameters=[IndicesQuery],
        responses={200: v1_component(MarketIndex)(many=True),
                   **error_responses(422, upstream=True)},
    )
    def get(self, request: Request) -> Response:
        q = self.query(request)
        return Response(as_json(market_indices(q.get("index"), q.get("region"))))


# -- v2 -----------------------------------------------------------------------------------------
V2_TAG = "Market (v2)"
# A market-summary item's spark line (null when Yahoo sends none), described by the member.
_SPARK = record_schema(SummarySpark, next(m.description for m in members_of(MarketSummaryItem)
                                          if m.name == "spark"))


@route("v2/indices", name="v2-indices")
class V2IndicesView(V2ApiView):
    """Quotes of the world's main indices, by group (`region`), from one Yahoo quote batch:
    each a GqlQuote with the members the batch carries (prices, day range, volume, market
    state...; the others null), in the groups' order. `format` as for the market summary
    (`raw`, `pretty`/`fmt`, `both`/`full`, any case; anything else raw). An index Yahoo does
    not return is left out; an upstream failure is the answer's status. `fields` selects
    quote members."""

    query_serializer = V2IndicesQuery
    response_schema = V2_INDICES_RESPONSE
    output = record_output(GqlQuote)
    operation_id, tag = "get_indices_v2", V2_TAG
    summary = "World indices"

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(quote_json(v2_indices(q.get("region")), q["format"]))


@route("v2/market-summary", name="v2-market-summary")
class V2MarketSummaryView(V2ApiView):
    """A region's market summary: the instruments Yahoo shows atop its pages (main indices,
    futures, the 10-year yield, currencies, crypto), in Yahoo's order, each with the day's
    5-minute `spark` line (null closes kept where Yahoo has none, so `timestamp` and
    `close` line up).

    `format`: `raw` (default) numbers, `pretty` (alias `fmt`) Yahoo's formatted strings,
    `both` (alias `full`) the `{raw, fmt, longFmt}` objects; any case, anything else raw.
    `regularMarketChangePercent` is in percent units; `regularMarketTime` in Unix seconds.
    `region` (default US, `UK` = GB; exact upper case) chooses Yahoo's list, `lang` (a BCP
    47 tag; default the region's own language, e.g. `ja-JP` for JP) its texts. `fields`
    selects members."""

    query_serializer = V2MarketSummaryQuery
    response_schema: dict[str, Any] = {
        "type": "array", "items": record_schema(
            MarketSummaryItem, "One instrument of the market summary; `fields` selects these "
            "members", required=False, nested={"spark": {**_SPARK, "type": ["object", "null"]}}),
        "description": "The region's headline instruments, in Yahoo's order"}
    output = record_output(MarketSummaryItem)
    operation_id, tag = "get_market_summary", V2_TAG
    summary = "Market summary of a region"

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(v2_market_summary(q["region"], q.get("lang"), q["format"]))


@route("v2/trending", name="v2-trending")
class V2TrendingView(V2ApiView):
    """The symbols trending on Yahoo in a region (default US, `UK` = GB; exact upper case),
    in Yahoo's order, each with `shortName`, `regularMarketPrice` and
    `regularMarketChangePercent` (percent units) from one Yahoo quote batch; null where the
    batch has no quote for a symbol. A failure of either call is the answer's status.
    `fields` selects members."""

    query_serializer = V2TrendingQuery
    response_schema: dict[str, Any] = {
        "type": "array", "items": record_schema(
            TrendingSymbol, "One trending symbol (null members: the quote batch has no quote "
            "for it); `fields` selects these members"),
        "description": "The region's trending symbols, in Yahoo's order"}
    csv_table = ""
    output = record_output(TrendingSymbol)
    operation_id, tag = "get_trending", V2_TAG
    summary = "Trending symbols of a region"

    def get(self, request: Request) -> Response:
        return self.answer(v2_trending(self.params["region"]))
