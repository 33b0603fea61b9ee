from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.schema import error_responses
from apps.core.views import ApiView
from apps.quotes.serializers import SimpleQuote
from apps.similar.serializers import SimilarQuery
from apps.similar.services import similar_quotes


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
        responses={200: SimpleQuote(many=True), **error_responses(404, 422, upstream=True)})
    def get(self, request: Request) -> Response:
        q = self.query(request)
        return Response(similar_quotes(q["symbol"], q["limit"]))
