from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView, connection_schema, order_note
from apps.feeds.serializers import (
    FEED_ERRORS_HEADER,
    FearAndGreedQuery,
    FeedsQuery,
    MarketNewsQuery,
)
from apps.feeds.services import crypto_news, fear_and_greed, forex_news, merged_feeds
from marketdata.records.feeds import FeedItem, MarketNewsItem
from marketdata.records.gauges import FearAndGreed

_SENTIMENT_DOC = """`sentiment` is the headline's, scored here as /v2/news and /v2/worldnews
    score it (VADER blended with a finance term list; English only): `label` Bullish,
    Bearish or Neutral, `score` in [-1, 1], `confidence` in [0, 1]."""


@route("v2/feeds", name="v2-feeds")
class V2FeedsView(V2ApiView):
    __doc__ = f"""Entries of publishers' RSS and Atom feeds, merged, newest first.

    The feeds named by `sources` (default: federal-reserve, sec, marketwatch, bloomberg)
    are fetched concurrently (each cached 15 minutes) and read as RSS or Atom. Entries are
    `{{title, url, published, summary, source}}`: `published` in ISO 8601 with the feed's
    own offset (null when the feed gave none), `summary` as sent with its HTML, `source`
    the publisher's name (`SEC EDGAR (8-K)` for the filings feed with `formType=8-K`).
    Duplicates (the same URL) are dropped; order is by the publication moment (offsets
    compared as times), undated entries last.

    {_SENTIMENT_DOC}

    A source that fails is left out and named in the `{FEED_ERRORS_HEADER}` response
    header (`slug: message; slug: message`); when every source fails, the answer is that
    failure (502/503/504/429 naming the provider). `cursor`/`limit` page the entries (a
    connection `{{edges, nodes, pageInfo}}`; a bare array without either); `fields`
    selects members of each entry.

    Errors: 400 for an unknown source (naming it and listing the valid slugs), a bad
    `formType`, `cursor`, `limit` or `order`, before any upstream call.

    """ + order_note("desc", "entries (undated entries last with `desc`, first with `asc`)")

    query_serializer = FeedsQuery
    response_schema = connection_schema(
        record_schema(FeedItem, "Feed entry; `fields` selects these members"),
        "feed entries, newest first (`order=desc`, the default) or oldest first (`order=asc`)")
    output = record_output(FeedItem, paged=("",))
    operation_id, tag = "get_feeds", "Feeds (v2)"
    summary = "Publishers' RSS/Atom feeds, merged newest first, with sentiment"

    def get(self, request: Request) -> Response:
        found = merged_feeds(self.params.get("sources"), self.params.get("formType"))
        response = self.answer(found.entries)
        if found.errors:
            response[FEED_ERRORS_HEADER] = "; ".join(
                f"{slug}: {message}" for slug, message in found.errors)
        return response


_MARKET_NEWS_DOC = f"""Items `{{title, link, source, img, time, sentiment}}`: `time` in
    ISO 8601 (FMP's wall time without a zone, as FMP does not say which; a feed's time with
    its offset), `img` null when the source sent none.

    {_SENTIMENT_DOC}

    `limit` (default 20) caps the articles; `pageCursor`/`pageLimit` page over them (a
    connection `{{edges, nodes, pageInfo}}`; a bare array without either); `fields`
    selects members of each article.

    Errors: 400 for a bad `limit`, `pageCursor`, `pageLimit` or `order`, before any
    upstream call; 502/503/504/429 when the sources fail (the body names the provider).

    """ + order_note("desc", "articles (the latest `limit` either way)")


MARKET_NEWS_RESPONSE = connection_schema(
    record_schema(MarketNewsItem, "News item; `fields` selects these members"),
    "articles, newest first (`order=desc`, the default) or oldest first (`order=asc`)")
MARKET_NEWS_OUTPUT = record_output(MarketNewsItem, paged=("",),
                                   page_params=("pageCursor", "pageLimit"))


@route("v2/crypto/news", name="v2-crypto-news")
class V2CryptoNewsView(V2ApiView):
    __doc__ = f"""The latest crypto news, newest first.

    Sources, in order: Financial Modeling Prep's latest crypto articles when `FMP_API_KEY`
    is set; otherwise (or when FMP refuses the key or fails) the CoinDesk and CoinTelegraph
    feeds, merged. Cached 5 minutes (FMP) or 15 minutes (feeds).

    {_MARKET_NEWS_DOC}"""

    query_serializer = MarketNewsQuery
    response_schema = MARKET_NEWS_RESPONSE
    output = MARKET_NEWS_OUTPUT
    operation_id, tag = "get_crypto_news", "Feeds (v2)"
    summary = "Latest crypto news, with sentiment"

    def get(self, request: Request) -> Response:
        return self.answer(crypto_news(self.params["limit"]))


@route("v2/forex/news", name="v2-forex-news")
class V2ForexNewsView(V2ApiView):
    __doc__ = f"""The latest forex news, newest first.

    Sources, in order: Financial Modeling Prep's latest forex articles when `FMP_API_KEY`
    is set; otherwise (or when FMP refuses the key or fails) the Federal Reserve's, the
    ECB's and the Bank of England's press feeds and Investing.com's news, merged. Cached 5
    minutes (FMP) or 15 minutes (feeds).

    {_MARKET_NEWS_DOC}"""

    query_serializer = MarketNewsQuery
    response_schema = MARKET_NEWS_RESPONSE
    output = MARKET_NEWS_OUTPUT
    operation_id, tag = "get_forex_news", "Feeds (v2)"
    summary = "Latest forex and central-bank news, with sentiment"

    def get(self, request: Request) -> Response:
        return self.answer(forex_news(self.params["limit"]))


@route("v2/fear-and-greed", name="v2-fear-and-greed")
class V2FearAndGreedView(V2ApiView):
    """The crypto market's Fear & Greed Index, latest reading.

    Source: alternative.me's index (keyless, cached 15 minutes), which measures Bitcoin and
    the large coins (volatility, momentum, social media, dominance, search trends); it is
    not CNN's stock-market index, so the answer says `market: "crypto"`. `value` is a whole
    number from 0 (extreme fear) to 100 (extreme greed), `classification` one of Extreme
    Fear, Fear, Neutral, Greed, Extreme Greed, `timestamp` the reading's time in Unix
    seconds. `fields` selects members.

    Errors: 502 naming alternative.me when its answer is unusable (a value outside 0-100, a
    classification other than the five, no reading); 503/504/429 when it fails."""

    query_serializer = FearAndGreedQuery
    response_schema = record_schema(FearAndGreed, "The crypto market's Fear & Greed Index; "
                                    "`fields` selects these members")
    output = record_output(FearAndGreed)
    operation_id, tag = "get_fear_and_greed", "Feeds (v2)"
    summary = "The crypto market's Fear & Greed Index"

    def get(self, request: Request) -> Response:
        return self.answer(fear_and_greed())
