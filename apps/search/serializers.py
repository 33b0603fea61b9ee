from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.params import BLANK, IntegerParam, QuerySerializer, choice
from apps.core.v2 import REGIONS, PageQuery
from apps.quotes.serializers import LangParam
from marketdata.records.search import LOOKUP_TYPES, SECURITY_TYPES

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
