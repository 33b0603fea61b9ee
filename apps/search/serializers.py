from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.params import BLANK, IntegerParam, QuerySerializer, choice
from marketdata.records.search import SECURITY_TYPES

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
