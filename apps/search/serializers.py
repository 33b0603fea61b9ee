from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.params import BLANK, IntegerParam, QuerySerializer, choice
from apps.core.v2 import REGIONS, PageQuery, connection_schema, nullable, object_schema
from apps.quotes.serializers import LangParam
from marketdata.records.search import (
    LOOKUP_MEMBERS,
    LOOKUP_TYPES,
    RESEARCH_REPORT_MEMBERS,
    SEARCH_NEWS_MEMBERS,
    SEARCH_QUOTE_MEMBERS,
    SECURITY_TYPES,
)

MAX_QUERY_LENGTH = 200


# Validation: trimmed, then not blank (422), no NUL character (422), at most 200 characters.
@extend_schema_field({"type": "string", "minLength": 1, "maxLength": MAX_QUERY_LENGTH,
                      "pattern": rf"^[^\x00]*[^{BLANK}\x00][^\x00]*$"})
class SearchText(serializers.CharField):
    """``query``: its schema says what validation does (a non-blank character, no NUL)."""


class SearchQuery(QuerySerializer):
    query = SearchText(
        max_length=MAX_QUERY_LENGTH,
        help_text="Partial or full company name or symbol (whitespace is collapsed; at most "
                  f"{MAX_QUERY_LENGTH} characters). Empty, blank or with a NUL character: 422")
    hits = IntegerParam(required=False, default=50, min_value=1, max_value=100,
                        help_text="Maximum number of results (1-100)")
    type = choice(SECURITY_TYPES, required=False,
                  help_text="Only this kind of security; all kinds when omitted")
    use_primary_provider = serializers.BooleanField(
        required=False, default=True,
        help_text="false: ask the secondary provider (Yahoo Finance) directly")


class SearchResult(serializers.Serializer):
    name = serializers.CharField(help_text="Full company or fund name")
    symbol = serializers.CharField()
    exchange = serializers.CharField(
        help_text="Exchange: short name from the primary provider (NASDAQ), Yahoo's code "
                  "from the secondary one (NMS)")
    type = choice(SECURITY_TYPES, help_text="stock, etf or trust (mutual fund)")


# -- v2 -------------------------------------------------------------------------------------------
MAX_SEARCH_QUOTES = 100
MAX_SEARCH_NEWS = 50
MAX_LOOKUP_COUNT = 100
# The spec's regions, and UK for GB (the spelling Yahoo's own pages use).
SEARCH_REGIONS = (*REGIONS, "UK")


def _q_param() -> SearchText:
    return SearchText(max_length=MAX_QUERY_LENGTH,
                      help_text="Partial or full company name or symbol (whitespace is "
                                f"collapsed; at most {MAX_QUERY_LENGTH} characters). Empty, "
                                "blank or with a NUL character: 400")


class LocaleQuery(serializers.Serializer):
    region = choice(SEARCH_REGIONS, required=False,
                    help_text="Market whose listings Yahoo favours (Region; `UK` is `GB`); "
                              "default: the region of `lang`, else US")
    lang = LangParam(required=False, help_text="BCP 47 language tag Yahoo answers in "
                                               "(e.g. `fr-FR`); default en-US")


class V2SearchQuery(LocaleQuery, PageQuery):
    q = _q_param()
    quotes = IntegerParam(required=False, default=10, min_value=0, max_value=MAX_SEARCH_QUOTES,
                          help_text=f"How many quotes, 0 to {MAX_SEARCH_QUOTES}; default 10. "
                                    "`cursor`/`limit` page over them")
    news = IntegerParam(required=False, default=0, min_value=0, max_value=MAX_SEARCH_NEWS,
                        help_text=f"How many news articles, 0 to {MAX_SEARCH_NEWS}; default 0")
    fuzzy = serializers.BooleanField(required=False, default=False,
                                     help_text="Fuzzy matching (typos); default false")
    logo = serializers.BooleanField(required=False, default=True,
                                    help_text="Ask Yahoo for `logoUrl` on the quotes it has a "
                                              "logo for; default true")
    research = serializers.BooleanField(required=False, default=False,
                                        help_text="Include research reports; default false")
    cultural = serializers.BooleanField(required=False, default=False,
                                        help_text="Include cultural assets; default false")


class V2LookupQuery(LocaleQuery, PageQuery):
    q = _q_param()
    type = choice(LOOKUP_TYPES, required=False, default="all",
                  help_text="Only this kind of instrument; default all")
    count = IntegerParam(required=False, default=25, min_value=1, max_value=MAX_LOOKUP_COUNT,
                         help_text=f"How many instruments, 1 to {MAX_LOOKUP_COUNT}; default "
                                   "25. `cursor`/`limit` page over them")
    logo = serializers.BooleanField(required=False, default=False,
                                    help_text="Also look up the 50x50 logo images (`logoUrl`, "
                                              "`companyLogoUrl`); a failed lookup leaves them "
                                              "null; default false")


def _typed(kinds: dict[str, str], descriptions: dict[str, str]) -> dict[str, Any]:
    return {name: nullable(kind, **({"description": descriptions[name]}
                                    if name in descriptions else {}))
            for name, kind in kinds.items()}


_QUOTE_KINDS = {**dict.fromkeys(SEARCH_QUOTE_MEMBERS, "string"), "isYahooFinance": "boolean",
                "dispSecIndFlag": "boolean", "score": "number"}
SEARCH_QUOTE_SCHEMA = object_schema(_typed(_QUOTE_KINDS, {
    "symbol": "Yahoo symbol (`AAPL`, `BMW.DE`, `EURUSD=X`)",
    "quoteType": "Yahoo's kind: EQUITY, ETF, MUTUALFUND, INDEX, CURRENCY, CRYPTOCURRENCY, "
                 "FUTURE, OPTION...",
    "exchange": "Yahoo's exchange code (`NMS`)",
    "exchDisp": "Exchange name for display (`NASDAQ`)",
    "logoUrl": "Brand logo URL (with `logo=true`, when Yahoo has one)",
    "score": "Yahoo's relevance score, higher is better"}),
    "One matching instrument; names as Yahoo sends them (null where it sends none)",
    required=SEARCH_QUOTE_MEMBERS)
THUMBNAIL_SCHEMA = nullable("object", properties={"resolutions": {"type": "array", "items":
    object_schema({"url": {"type": "string"}, "width": nullable("integer"),
                   "height": nullable("integer"), "tag": nullable("string")},
                  required=("url", "width", "height", "tag"))}},
    description="The article's images (`tag` `original` is the full size); null when none")
SEARCH_NEWS_SCHEMA = object_schema({
    **_typed({name: "string" for name in SEARCH_NEWS_MEMBERS}, {
        "type": "`STORY` or `VIDEO`", "publisher": "The publisher"}),
    "providerPublishTime": nullable("integer", description="Publication time, Unix seconds"),
    "thumbnail": THUMBNAIL_SCHEMA,
    "relatedTickers": nullable("array", items={"type": "string"},
                               description="Symbols Yahoo tagged the article with"),
}, "One article", required=SEARCH_NEWS_MEMBERS)
RESEARCH_REPORT_SCHEMA = object_schema({
    **_typed({name: "string" for name in RESEARCH_REPORT_MEMBERS}, {}),
    "reportDate": nullable("integer", description="Report date, an integer timestamp as "
                                                  "Yahoo sends it"),
}, "One research report", required=RESEARCH_REPORT_MEMBERS)
SEARCH_RESPONSE = object_schema({
    "count": nullable("integer", description="Yahoo's count of everything it matched"),
    "quotes": connection_schema(SEARCH_QUOTE_SCHEMA, "instruments, best match first"),
    "news": {"type": "array", "items": SEARCH_NEWS_SCHEMA,
             "description": "Articles, in Yahoo's order (`news` of them at most)"},
    "researchReports": {"type": "array", "items": RESEARCH_REPORT_SCHEMA,
                        "description": "With `research=true`: reports on the best match"},
    "totalTime": nullable("integer", description="Yahoo's time to answer, milliseconds"),
}, "A search; `fields` selects these members")
SEARCH_RESPONSE["example"] = {
    "count": 11, "quotes": [{
        "symbol": "AAPL", "shortName": "Apple Inc.", "longName": "Apple Inc.",
        "quoteType": "EQUITY", "exchange": "NMS", "exchDisp": "NASDAQ", "typeDisp": "Equity",
        "industry": "Consumer Electronics", "industryDisp": "Consumer Electronics",
        "sector": "Technology", "sectorDisp": "Technology", "isYahooFinance": True,
        "dispSecIndFlag": True, "logoUrl": None, "score": 3804300}],
    "news": [], "researchReports": [], "totalTime": 83}

_LOOKUP_KINDS = {**dict.fromkeys(LOOKUP_MEMBERS, "string"),
                 **dict.fromkeys(("regularMarketPrice", "regularMarketChange",
                                  "regularMarketChangePercent", "regularMarketPreviousClose"),
                                 "number")}
LOOKUP_QUOTE_SCHEMA = object_schema(_typed(_LOOKUP_KINDS, {
    "quoteType": "Yahoo's kind, upper case (EQUITY, ETF, MUTUALFUND, INDEX, FUTURE, "
                 "CURRENCY, CRYPTOCURRENCY)",
    "longName": "From Yahoo's quote when the lookup has none",
    "industry": "Yahoo's industry name (equities)",
    "regularMarketChangePercent": "Percent units: 1.5 is 1.5 %",
    "regularMarketPreviousClose": "From Yahoo's quote",
    "logoUrl": "With `logo=true`: 50x50 logo",
    "companyLogoUrl": "With `logo=true`: 50x50 company logo"}),
    "One instrument (null where Yahoo has no value)", required=LOOKUP_MEMBERS)
LOOKUP_RESPONSE = object_schema({
    "quotes": connection_schema(LOOKUP_QUOTE_SCHEMA, "instruments, best match first"),
    "start": {"type": "integer", "description": "Position of the first instrument in "
                                                "Yahoo's list (0)"},
    "count": {"type": "integer", "description": "How many instruments came back"},
}, "A lookup; `fields` selects these members")
