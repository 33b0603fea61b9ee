from typing import Any

from rest_framework import serializers

from apps.core.params import IntegerParam, QuerySerializer, SymbolParam
from apps.core.v2 import (
    OrderedPageQuery,
    PageQuery,
    connection_schema,
    nullable,
    object_schema,
    order_param,
)
from marketdata.sentiment import LABEL_THRESHOLD, NEGATIVE, NEUTRAL, POSITIVE

# The members of a v2 news item, and the reference's words for the sentiment labels
# (this service's scorer says positive/negative/neutral).
V2_NEWS_MEMBERS = ("title", "link", "source", "img", "time", "providerPublishTime",
                   "sentiment")
MARKET_LABELS = {POSITIVE: "Bullish", NEGATIVE: "Bearish", NEUTRAL: "Neutral"}


class NewsQuery(QuerySerializer):
    # An empty or blank ``symbol=`` is a 422 (like every empty value), never silently
    # general news.
    symbol = SymbolParam(
        required=False,
        help_text="Ticker symbol, e.g. AAPL, BRK-B, BTC-USD; general market news when omitted "
                  "(an empty or blank value is a 422; a malformed symbol is a 404)")


class News(serializers.Serializer):
    title = serializers.CharField()
    link = serializers.URLField(help_text="URL of the article")
    source = serializers.CharField(help_text="Publisher")
    img = serializers.URLField(help_text="URL of the article's image")
    time = serializers.CharField(
        help_text="Publication time relative to now: 'just now', '1 minute ago', "
                  "'5 minutes ago', '2 hours ago', '3 days ago', '1 month ago', '2 years ago'")


# -- v2 -------------------------------------------------------------------------------------------
V2_NEWS_MAX_COUNT = 50


class V2NewsQuery(PageQuery):
    count = IntegerParam(
        required=False, default=10, min_value=1, max_value=V2_NEWS_MAX_COUNT,
        help_text=f"How many articles, 1 to {V2_NEWS_MAX_COUNT}; default 10 (a symbol has at "
                  "most 20: the articles of one Yahoo search). `cursor`/`limit` page over "
                  "these")


class V2MarketNewsQuery(OrderedPageQuery, V2NewsQuery):
    """:class:`V2NewsQuery` of the market's news, a time-ordered list: with ``order``."""

    order = order_param("desc", "articles (by publication time; the newest `count` "
                                "articles either way)")


V2_SENTIMENT_SCHEMA = object_schema({
    "label": {"type": "string", "enum": list(MARKET_LABELS.values()),
              "description": f"Bullish when score >= {LABEL_THRESHOLD}, Bearish when score "
                             f"<= -{LABEL_THRESHOLD}, else Neutral"},
    "score": {"type": "number", "minimum": -1, "maximum": 1,
              "description": "VADER compound blended with the finance term polarity"},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1,
                   "description": "|score| for Bullish/Bearish; for Neutral, how flat the "
                                  "score is times the share of plain words"},
}, "Sentiment of the headline, scored by this service (as /v2/worldnews scores it)",
    required=("label", "score", "confidence"))

V2_NEWS_ITEM_SCHEMA = object_schema({
    "title": {"type": "string"},
    "link": {"type": "string", "description": "The article's URL"},
    "source": {"type": "string", "description": "The publisher, as Yahoo names it"},
    "img": nullable("string", description="The article's image URL (Yahoo's original "
                                          "resolution, else its widest); null when none"),
    "time": {"type": "string", "format": "date-time",
             "description": "Publication time, ISO 8601 UTC (`2025-02-25T00:20:00Z`)"},
    "providerPublishTime": {"type": "integer",
                            "description": "Publication time, Unix seconds, as Yahoo sends it"},
    "sentiment": V2_SENTIMENT_SCHEMA,
}, "News item (GqlNews); `fields` selects these members",
    required=V2_NEWS_MEMBERS)
V2_NEWS_ITEM_SCHEMA["example"] = {
    "title": "Why Trump could 'move fast' on Apple's $500B US investment plan",
    "link": "https://finance.yahoo.com/video/why-trump-could-move-fast-002000706.html",
    "source": "Yahoo Finance Video", "img": "https://s.yimg.com/uu/api/res/1.2/.../original",
    "time": "2025-02-25T00:20:00Z", "providerPublishTime": 1740442800,
    "sentiment": {"label": "Neutral", "score": 0.0, "confidence": 1.0}}
V2_NEWS_RESPONSE: dict[str, Any] = connection_schema(V2_NEWS_ITEM_SCHEMA, "articles")
V2_MARKET_NEWS_RESPONSE: dict[str, Any] = connection_schema(
    V2_NEWS_ITEM_SCHEMA, "articles, newest first (`order=desc`, the default) or oldest first "
                         "(`order=asc`)")
