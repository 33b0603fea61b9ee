from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.schema import error_responses
from apps.core.views import ApiView
from apps.news.serializers import News, NewsQuery
from apps.news.services import market_news, news_for_symbol


class NewsView(ApiView):
    query_serializer = NewsQuery

    @extend_schema(
        operation_id="get_news",
        tags=["News"],
        summary="News for a symbol, or general market news",
        description=(
            "With `symbol`: Yahoo Finance articles tagged with that symbol, in Yahoo's "
            "relevance order; 404 `{\"detail\": \"No news found for SYMBOL\"}` when there are "
            "none or the symbol is malformed. Without `symbol`: general market news (the "
            "articles for the S&P 500, Dow Jones and Nasdaq Composite, merged, newest first; "
            "`[]` when there are none). Articles without an image are left out. `time` is "
            "relative to the response time ('just now', 'N minutes ago', 'N hours ago', "
            "'N days ago', 'N months ago', 'N years ago'; floored). An empty `symbol=` is a "
            "422."),
        parameters=[NewsQuery],
        responses={200: News(many=True), **error_responses(404, 422, upstream=True)},
    )
    def get(self, request: Request) -> Response:
        q = self.query(request)
        if "symbol" in q:
            return Response(news_for_symbol(q["symbol"]))
        return Response(market_news())
