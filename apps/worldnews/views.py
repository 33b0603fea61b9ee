"""v2 world news: GET /v2/worldnews/news/{symbol}."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView, connection_schema, order_note
from apps.worldnews.serializers import V2WorldNewsQuery
from apps.worldnews.services import world_news
from marketdata.records.news import WORLD_NEWS_MAX_ARTICLES as MAX_RECORDS
from marketdata.records.news import WORLD_NEWS_TIMESPAN as TIMESPAN
from marketdata.records.news import WorldNewsItem


@route("v2/worldnews/news/<str:symbol>", name="v2-world-news")
class V2WorldNewsView(V2ApiView):
    __doc__ = f"""Recent articles about a company from the world's news, each with a
    sentiment: `[{{title, link, source, img, time, sentiment: {{label, score, confidence}}}}]`.

    Source: the GDELT DOC 2.0 API (keyless), the {MAX_RECORDS} most recent English-language
    articles of the last {TIMESPAN.replace('w', ' weeks')} that mention the company. Every
    symbol works: the search is for the company's name from its quote (legal suffixes such
    as Inc., Corp., Ltd, plc dropped: "Apple Inc." is searched as "Apple"), with a ticker of
    five or more letters OR-ed in. `link` is the article URL, `source` the publisher's
    domain, `img` its social image (null when none), `time` when GDELT first saw the
    article, ISO 8601 UTC (`2024-01-15T16:30:00Z`; an absolute time, so a cached answer
    never goes stale; null when unreadable). Newest first. No articles: `[]`.

    Sentiment is scored here on the headline, English only: VADER (the vaderSentiment
    package) blended with a short finance term list written for this service. `score` in
    [-1, 1] is `(1 - w) * vader + w * finance`, where `vader` is VADER's compound, `finance`
    = (P - N) / (P + N) over the finance terms found (positive P, negative N; a negated term
    counts for the other side) and w = k / (k + 1) for k = P + N terms (none: VADER alone).
    `label` is positive when score >= 0.05, negative when score <= -0.05, neutral
    otherwise. `confidence` in [0, 1] is |score| for positive and negative; for neutral it
    is (1 - |score| / 0.05) times the share of the headline's words that carry no sentiment
    (0 for a headline without words). The words of the company's own name are left out.

    Answers are cached 15 minutes per symbol (GDELT asks for one request every 5 seconds;
    this server sends at most one at a time and spaces them). `cursor`/`limit` page over the
    articles (a connection `{{edges, nodes, pageInfo}}`; bare array without either);
    `fields` selects members of each article (a requested member is present even when
    null).

    Errors: 400 for a bad `cursor`/`limit`/`order`, before any upstream call; 404 for a
    malformed symbol (no upstream call), one the quote provider does not know, one without
    a name of at least five letters to search for, or one whose query GDELT refuses (a
    refusal of its grammar, which retrying does not cure); 429 when GDELT asks us to slow
    down; 502/503/504 when GDELT or the quote provider fails (the body names the provider).

    """ + order_note("desc", "articles (by the time GDELT saw them)")

    query_serializer = V2WorldNewsQuery
    # The item lists no `required` members (its members are all present all the same): the
    # published document as it has always been.
    response_schema = connection_schema(
        record_schema(WorldNewsItem, "News item (GqlNews); `fields` selects these members",
                      required=False),
        "articles, newest first (`order=desc`, the default) or oldest first (`order=asc`)")
    operation_id, tag = "get_world_news", "World news (v2)"
    summary = "World news about a company, with sentiment"

    output = record_output(WorldNewsItem, paged=("",))

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(world_news(symbol))
