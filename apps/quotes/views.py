from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.params import symbol_list
from apps.core.schema import error_responses
from apps.core.views import ApiView
from apps.quotes.serializers import Quote, SimpleQuote, SymbolsQuery
from apps.quotes.services import full_quotes, simple_quotes

_LIST_RULES = (" Symbols are upper-cased; order is kept and duplicates are removed. Unknown "
               "or malformed symbols are left out; 404 when none resolve. 422 when `symbols` "
               "is missing, empty or lists more than 50 symbols.")


class QuotesView(ApiView):
    query_serializer = SymbolsQuery

    @extend_schema(operation_id="get_quotes", tags=["Quotes"], summary="Full quotes",
                   description="Detailed quotes with formatted strings." + _LIST_RULES,
                   parameters=[SymbolsQuery],
                   responses={200: Quote(many=True), **error_responses(404, 422, upstream=True)})
    def get(self, request: Request) -> Response:
        symbols = symbol_list(request.query_params.get("symbols"),
                              max_items=settings.QUOTES_MAX_SYMBOLS)
        return Response(full_quotes(symbols))


class SimpleQuotesView(ApiView):
    query_serializer = SymbolsQuery

    @extend_schema(operation_id="get_simple_quotes", tags=["Quotes"], summary="Simple quotes",
                   description="Price, change and percent change." + _LIST_RULES,
                   parameters=[SymbolsQuery],
                   responses={200: SimpleQuote(many=True),
                              **error_responses(404, 422, upstream=True)})
    def get(self, request: Request) -> Response:
        symbols = symbol_list(request.query_params.get("symbols"),
                              max_items=settings.QUOTES_MAX_SYMBOLS)
        return Response(simple_quotes(symbols))
