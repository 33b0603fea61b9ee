from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.schema import error_responses
from apps.core.shapes import record_output, record_schema, v1_component
from apps.core.v2 import V2ApiView, connection_schema
from apps.core.views import ApiView
from apps.search.serializers import SearchQuery, V2LookupQuery, V2SearchQuery
from apps.search.services import search_securities, v2_lookup, v2_search
from marketdata.records.members import as_json, described, members_of
from marketdata.records.search import (
    LookupAnswer,
    LookupQuote,
    ResearchReport,
    SearchAnswer,
    SearchArticle,
    SearchQuote,
    Security,
    Thumbnail,
    ThumbnailSize,
)

PROVIDER_HEADER = "X-Search-Provider"


@route("v1/search", name="search")
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
        responses={200: v1_component(Security, "SearchResult")(many=True),
                   **error_responses(422, upstream=True)},
    )
    def get(self, request: Request) -> Response:
        q = self.query(request)
        results, provider = search_securities(q["query"], q["hits"], q.get("type"),
                                              q["use_primary_provider"])
        response = Response(as_json(results))
        response[PROVIDER_HEADER] = provider
        return response


# -- v2 -------------------------------------------------------------------------------------------
_INSTRUMENTS = "instruments, best match first"
# An article's images: null when none, so the record's object may be null.
_THUMBNAIL = {**record_schema(
    Thumbnail, described(next(m.description or "" for m in members_of(SearchArticle)
                              if m.name == "thumbnail")), required=False,
    nested={"resolutions": {"type": "array", "items": record_schema(ThumbnailSize)}}),
    "type": ["object", "null"]}
SEARCH_RESPONSE = record_schema(
    SearchAnswer, "A search; `fields` selects these members", required=False, nested={
        "quotes": connection_schema(record_schema(
            SearchQuote, "One matching instrument; names as Yahoo sends them (null where it "
                         "sends none)"), _INSTRUMENTS),
        "news": {"type": "array", "items": record_schema(
            SearchArticle, "One article", nested={"thumbnail": _THUMBNAIL}),
            "description": "Articles, in Yahoo's order (`news` of them at most)"},
        "researchReports": {"type": "array",
                            "items": record_schema(ResearchReport, "One research report"),
                            "description": "With `research=true`: reports on the best match"}},
    example={
        "count": 11, "quotes": [{
            "symbol": "AAPL", "shortName": "Apple Inc.", "longName": "Apple Inc.",
            "quoteType": "EQUITY", "exchange": "NMS", "exchDisp": "NASDAQ",
            "typeDisp": "Equity", "industry": "Consumer Electronics",
            "industryDisp": "Consumer Electronics", "sector": "Technology",
            "sectorDisp": "Technology", "isYahooFinance": True, "dispSecIndFlag": True,
            "logoUrl": None, "score": 3804300}],
        "news": [], "researchReports": [], "totalTime": 83})
LOOKUP_RESPONSE = record_schema(
    LookupAnswer, "A lookup; `fields` selects these members", required=False, nested={
        "quotes": connection_schema(record_schema(
            LookupQuote, "One instrument (null where Yahoo has no value)"), _INSTRUMENTS)})


@route("v2/search", name="v2-search")
class V2SearchView(V2ApiView):
    """Instruments, news and research reports matching a query: `{count, quotes, news,
    researchReports, totalTime}`, from Yahoo Finance's search.

    `quotes` (at most `quotes`, default 10): every kind of instrument Yahoo matches (equities,
    funds, ETFs, indices, currencies, crypto, futures, options), best match first, with
    Yahoo's members (`shortName`/`longName` as Yahoo writes them; null where it sends none);
    `logo=true` (the default) asks Yahoo for a `logoUrl` where it has a brand logo. `news`
    (at most `news`, default 0): Yahoo's articles for the query, `providerPublishTime` in
    Unix seconds, `thumbnail` the image sizes. `researchReports`: with `research=true`.
    `fuzzy` and `cultural` are Yahoo's own switches. `count` is Yahoo's count of what it
    matched, `totalTime` its time to answer (ms). No match: empty lists.

    `lang` (default en-US) and `region` (`UK` = `GB`; default the region of `lang`, else US)
    are passed to Yahoo. Answers are cached an hour per query (case-insensitive) and every
    parameter above. `cursor`/`limit` page over `quotes` (a connection `{edges, nodes,
    pageInfo}`; a bare array without either); `fields` selects top-level members.

    Errors: 400 for a missing, blank or over-long `q`, an unknown `region`, a bad `lang` or
    any other bad value, before any upstream call; 502/503/504/429 when Yahoo fails (the
    body names the provider)."""

    query_serializer = V2SearchQuery
    response_schema = SEARCH_RESPONSE
    output = record_output(SearchAnswer, paged=("quotes",))
    operation_id, tag = "search_v2", "Search (v2)"
    summary = "Search instruments and news"

    def get(self, request: Request) -> Response:
        return self.answer(v2_search(self.params))


@route("v2/lookup", name="v2-lookup")
class V2LookupView(V2ApiView):
    """Instruments by name or symbol, with prices: `{quotes, start, count}`, from Yahoo
    Finance's lookup.

    At most `count` (default 25) instruments of kind `type` (default all), best match first:
    `{symbol, shortName, longName, quoteType, exchange, exchDisp, typeDisp, industry, sector,
    regularMarketPrice, regularMarketChange, regularMarketChangePercent (percent units),
    regularMarketPreviousClose, logoUrl, companyLogoUrl}`, null where Yahoo has no value.
    The lookup itself leaves `longName` and the previous close out: one quote batch fills
    `longName`, `regularMarketChangePercent` and `regularMarketPreviousClose` where they are
    null; `logo=true` adds the 50x50 logo images. When either of those fails, its members
    stay null (the lookup is still answered). No match: `quotes: []`.

    `lang` (default en-US) and `region` (`UK` = `GB`; default the region of `lang`, else US)
    are passed to Yahoo. Lookups are cached an hour per query (case-insensitive), type,
    count, lang and region. `cursor`/`limit` page over `quotes`; `fields` selects top-level
    members.

    Errors: 400 for a missing, blank or over-long `q`, an unknown `type` or `region`, a bad
    `count` or `lang`, before any upstream call; 502/503/504/429 when Yahoo's lookup fails
    (the body names the provider)."""

    query_serializer = V2LookupQuery
    response_schema = LOOKUP_RESPONSE
    output = record_output(LookupAnswer, paged=("quotes",))
    operation_id, tag = "lookup_v2", "Search (v2)"
    summary = "Look up instruments, with prices"

    def get(self, request: Request) -> Response:
        return self.answer(v2_lookup(self.params))
