from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.schema import error_responses
from apps.core.views import ApiView
from apps.search.serializers import SearchQuery, SearchResult
from apps.search.services import search_securities

PROVIDER_HEADER = "X-Search-Provider"


class SearchView(ApiView):
    query_serializer = SearchQuery

    @extend_schema(
        operation_id="search",
        tags=["Search"],
        summary="Search securities by name or symbol",
        description=(
            "Stocks, ETFs and trusts (mutual funds) whose name or symbol matches `query`, "
            "best match first, at most `hits` of them; `[]` when nothing matches. Results "
            "come from the primary search provider (an Algolia index) unless "
            "`use_primary_provider=false`; when the primary provider fails (unreachable, "
            "timeout, rejected key, unusable answer) the secondary provider (Yahoo Finance "
            "search) answers automatically. The `X-Search-Provider` header says which one "
            "answered (`algolia` or `yahoo`). With Yahoo, `exchange` is Yahoo's exchange "
            "code (e.g. NMS) and other instrument kinds (options, indices, crypto) are left "
            "out, so fewer than `hits` results can come back. When both providers fail the "
            "secondary provider's error is returned (502/503/504/429)."),
        parameters=[
            SearchQuery,
            OpenApiParameter(PROVIDER_HEADER, OpenApiTypes.STR, OpenApiParameter.HEADER,
                             response=[200], enum=["algolia", "yahoo"],
                             description="Which search provider answered"),
        ],
        responses={200: SearchResult(many=True), **error_responses(422, upstream=True)},
    )
    def get(self, request: Request) -> Response:
        q = self.query(request)
        results, provider = search_securities(q["query"], q["hits"], q.get("type"),
                                              q["use_primary_provider"])
        response = Response(results)
        response[PROVIDER_HEADER] = provider
        return response
