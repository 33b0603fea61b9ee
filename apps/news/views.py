from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.schema import error_responses
from apps.core.shapes import record_output, record_schema, v1_component
from apps.core.v2 import V2ApiView, connection_schema, order_note
from apps.core.views import ApiView
from apps.news.serializers import V2_NEWS_EXAMPLE, NewsQuery, V2MarketNewsQuery, V2NewsQuery
from apps.news.services import (
    News,
    market_news,
    news_for_symbol,
    v2_market_news,
    v2_symbol_news,
)
from marketdata.records.members import as_json
from marketdata.records.news import ScoredNewsItem


@route("v1/news", name="news")
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
        responses={200: v1_component(News)(many=True), **error_responses(404, 422, upstream=True)},
    )
    def get(self, request: Request) -> Response:
        q = self.query(request)
        if "symbol" in q:
            return Response(as_json(news_for_symbol(q["symbol"])))
        return Response(as_json(market_news()))


# -- v2 -------------------------------------------------------------------------------------------
NEWS_ITEM_SCHEMA = record_schema(ScoredNewsItem, "News item (GqlNews); `fields` selects these "
                                 "members", example=V2_NEWS_EXAMPLE)
_ITEM_DOC = """Items `{title, link, source, img, time, providerPublishTime, sentiment: {label,
    score, confidence}}`: `source` is the publisher, `img` the article's image (null when
    Yahoo has none), `time` the publication time in ISO 8601 UTC (`2025-02-25T00:20:00Z`;
    absolute, so a cached answer never goes stale) and `providerPublishTime` the same
    moment in Unix seconds.

    Sentiment is scored here on the headline, as /v2/worldnews scores it (VADER blended with
    a finance term list; English only): `score` in [-1, 1]; `label` Bullish when score >=
    0.05, Bearish when score <= -0.05, else Neutral; `confidence` in [0, 1], |score| for
    Bullish and Bearish, for Neutral (1 - |score| / 0.05) times the share of the
    headline's words that carry no sentiment.

    `count` (default 10) caps the articles; `cursor`/`limit` page over them (a connection
    `{edges, nodes, pageInfo}`; a bare array without either); `fields` selects members of
    each article (a requested member is present even when null)."""


@route("v2/news", name="v2-news")
class V2MarketNewsView(V2ApiView):
    __doc__ = f"""General market news, newest first.

    Source: Yahoo Finance's search news (a documented JSON answer, no page scraping) for
    the S&P 500, the Dow Jones and the Nasdaq Composite (`^GSPC`, `^DJI`, `^IXIC`), merged,
    duplicates removed: the same articles as /v1/news, cached 15 minutes. No articles:
    `[]`.

    {_ITEM_DOC}

    Errors: 400 for a bad `count`, `cursor`, `limit` or `order`, before any upstream call;
    502/503/504/429 when every one of the three searches fails (the body names the
    provider).

    """ + order_note("desc", "articles (the newest `count` either way)")

    query_serializer = V2MarketNewsQuery
    response_schema = connection_schema(
        NEWS_ITEM_SCHEMA, "articles, newest first (`order=desc`, the default) or oldest first "
                          "(`order=asc`)")
    output = record_output(ScoredNewsItem, paged=("",))
    operation_id, tag = "get_market_news", "News (v2)"
    summary = "General market news, with sentiment"

    def get(self, request: Request) -> Response:
        return self.answer(v2_market_news(self.params["count"]))


@route("v2/news/<str:symbol>", name="v2-symbol-news")
class V2SymbolNewsView(V2ApiView):
    __doc__ = f"""News about one symbol, in Yahoo's relevance order.

    Source: one Yahoo Finance search for the symbol (20 articles and a few quotes, cached 5
    minutes); only the articles Yahoo tagged with the symbol are kept (its search is
    full-text, so a rare symbol otherwise gets unrelated headlines). A symbol Yahoo lists
    (an exact match among the search's quotes) but has no tagged article about gives `[]`.

    {_ITEM_DOC} The words of the company's own name are left out of the sentiment.

    Errors: 400 for a bad `count`, `cursor` or `limit`, before any upstream call; 404 for a
    malformed symbol (no upstream call) and for a symbol Yahoo neither lists nor has an
    article about; 502/503/504/429 when Yahoo fails (the body names the provider)."""

    query_serializer = V2NewsQuery
    response_schema = connection_schema(NEWS_ITEM_SCHEMA, "articles")
    output = record_output(ScoredNewsItem, paged=("",))
    operation_id, tag = "get_symbol_news", "News (v2)"
    summary = "News about one symbol, with sentiment"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(v2_symbol_news(symbol, self.params["count"]))
