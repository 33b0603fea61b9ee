from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.schema import error_responses
from apps.core.views import ApiView
from apps.indices.serializers import IndicesQuery, MarketIndex
from apps.indices.services import market_indices


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
        responses={200: MarketIndex(many=True), **error_responses(422, upstream=True)},
    )
    def get(self, request: Request) -> Response:
        q = self.query(request)
        return Response(market_indices(q.get("index"), q.get("region")))
