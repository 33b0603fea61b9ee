from dataclasses import replace

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.schema import error_responses
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView, connection_schema
from apps.core.views import ApiView
from apps.quotes.views import SIMPLE_QUOTE
from apps.similar.serializers import (
    SimilarQuery,
    V2RecommendationsBatchQuery,
    V2RecommendationsQuery,
)
from apps.similar.services import (
    SimilarSymbols,
    SimilarSymbolsBatch,
    recommendations_batch,
    recommendations_for,
    similar_quotes,
)
from marketdata.records.market import Peer


@route("v1/similar", name="similar")
class SimilarView(ApiView):
    query_serializer = SimilarQuery

    @extend_schema(
        operation_id="get_similar_quotes", tags=["Quotes"], summary="Similar stocks",
        description=("Simple quotes of the symbols Yahoo Finance recommends for `symbol` "
                     "(its \"people also watch\" peers), best match first, at most `limit` "
                     "(default 10). The symbol itself is never included; fewer than `limit` "
                     "items when Yahoo knows fewer peers. 404 when the symbol is unknown or "
                     "malformed or has no peers; 422 when `symbol` is missing or `limit` is "
                     "not an integer from 1 to 20."),
        parameters=[SimilarQuery],
        responses={200: SIMPLE_QUOTE(many=True), **error_responses(404, 422, upstream=True)})
    def get(self, request: Request) -> Response:
        q = self.query(request)
        return Response(similar_quotes(q["symbol"], q["limit"]))


RECOMMENDATIONS_SCHEMA = record_schema(
    SimilarSymbols,
    "Symbols similar to `symbol` (\"people also watch\"); `fields` selects these members",
    required=False, nested={"recommendations": {
        "type": "array", "description": "Yahoo's best match first", "items": record_schema(Peer)}},
    example={"symbol": "AAPL", "recommendations": [{"symbol": "AMZN", "score": 0.297723}],
             "providerId": "Yahoo"})


@route("v2/recommendations/<str:symbol>", name="v2-recommendations")
class V2RecommendationsView(V2ApiView):
    """Symbols similar to one symbol (Yahoo's \"people also watch\"): `{symbol,
    recommendations: [{symbol, score}], providerId}`, Yahoo's best match first, at most
    `limit` (default 5), scores as Yahoo sends them. Yahoo answers an unknown symbol as one
    without peers: `recommendations: []`; a malformed symbol is a 404. `fields` selects
    members."""

    query_serializer = V2RecommendationsQuery
    response_schema = RECOMMENDATIONS_SCHEMA
    output = record_output(SimilarSymbols)
    operation_id, tag = "get_recommendations", "Similar symbols (v2)"
    summary = "Similar symbols of one symbol"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(recommendations_for(symbol, self.params["limit"]))


@route("v2/recommendations", name="v2-recommendations-batch")
class V2RecommendationsBatchView(V2ApiView):
    """Similar symbols of many symbols: `{recommendations: [{symbol, recommendations,
    providerId}], errors}`, in request order (duplicates removed), each with at most `limit`
    (default 10) peers. Symbols that cannot be served are listed in `errors`; when none can
    be served because of an upstream failure, that failure's status is returned. `limit` is
    the count per symbol, so `pageCursor`/`pageLimit` page over the symbols; `fields`
    selects the members of each item (`symbol` is always present)."""

    query_serializer = V2RecommendationsBatchQuery
    response_schema = record_schema(SimilarSymbolsBatch, nested={
        "recommendations": connection_schema(RECOMMENDATIONS_SCHEMA, "one item per served "
                                                                     "symbol, request order")})
    # An item's symbol stays whatever `fields` says: it names the item.
    output = replace(record_output(SimilarSymbols, at=("recommendations",),
                                   paged=("recommendations",),
                                   page_params=("pageCursor", "pageLimit")),
                     always=("symbol",))
    operation_id, tag = "get_recommendations_batch", "Similar symbols (v2)"
    summary = "Similar symbols of many symbols"

    def get(self, request: Request) -> Response:
        return self.answer(recommendations_batch(self.params["symbols"], self.params["limit"]))
