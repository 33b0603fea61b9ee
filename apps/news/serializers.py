"""Query declarations of the news endpoints and the example of a v2 article (whose members are
:class:`marketdata.records.news.ScoredNewsItem`'s; v1's are
:class:`apps.news.services.News`')."""


from apps.core.params import IntegerParam, QuerySerializer, SymbolParam
from apps.core.v2 import OrderedPageQuery, PageQuery, order_param


class NewsQuery(QuerySerializer):
    # An empty or blank ``symbol=`` is a 422 (like every empty value), never silently
    # general news.
    symbol = SymbolParam(
        required=False,
        help_text="Ticker symbol, e.g. AAPL, BRK-B, BTC-USD; general market news when omitted "
                  "(an empty or blank value is a 422; a malformed symbol is a 404)")


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


# The example of one article (its members are the record's: marketdata.records.news).
V2_NEWS_EXAMPLE = {
    "title": "Why Trump could 'move fast' on Apple's $500B US investment plan",
    "link": "https://finance.yahoo.com/video/why-trump-could-move-fast-002000706.html",
    "source": "Yahoo Finance Video", "img": "https://s.yimg.com/uu/api/res/1.2/.../original",
    "time": "2025-02-25T00:20:00Z", "providerPublishTime": 1740442800,
    "sentiment": {"label": "Neutral", "score": 0.0, "confidence": 1.0}}
