import re
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.params import QuerySerializer, SymbolListParam
from apps.core.shapes import record_schema
from apps.core.v2 import FieldsQuery, PageQuery, SymbolsParam, format_param
from marketdata.records.quotes import GqlQuote


class SymbolsQuery(QuerySerializer):
    # Documentation only: the views read ``symbols`` with symbol_list().
    symbols = SymbolListParam(
        help_text="Comma-separated symbols (at most 50 after removing empty items and "
                  "duplicates); order is kept. Empty, blank or only commas: 422")


# -- v2 -----------------------------------------------------------------------------------------
# A loose BCP 47 tag: a 2-3 letter language, then up to four 1-8 character subtags (script,
# region, variants), at most MAX_LANG_LENGTH characters.
MAX_LANG_LENGTH = 35
_LANG_TAG = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,4}", re.ASCII)


def normalize_lang(tag: str) -> str | None:
    """A BCP 47 tag in its usual case (``en-us`` -> ``en-US``, ``zh-hant-tw`` ->
    ``zh-Hant-TW``), or None when it does not look like one."""
    tag = tag.strip()
    if len(tag) > MAX_LANG_LENGTH or not _LANG_TAG.fullmatch(tag):
        return None
    language, *rest = tag.split("-")
    parts = [language.lower()]
    for part in rest:
        if len(part) == 4 and part.isalpha():
            parts.append(part.title())
        elif (len(part) == 2 and part.isalpha()) or (len(part) == 3 and part.isdigit()):
            parts.append(part.upper())
        else:
            parts.append(part.lower())
    return "-".join(parts)


def region_of(lang: str | None) -> str | None:
    """The region subtag of a normalised tag (``fr-CA`` -> ``CA``), None when it has none."""
    if not lang:
        return None
    return next((p for p in lang.split("-")[1:] if len(p) == 2 and p.isalpha()), None)


def accept_language(header: str | None) -> str | None:
    """The preferred tag of an ``Accept-Language`` header: highest q first (earliest on a
    tie); ``*``, q=0 and malformed entries are ignored."""
    best: tuple[float, str] | None = None
    for entry in (header or "").split(",")[:32]:
        tag, _, params = entry.partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = -1.0
        lang = normalize_lang(tag) if tag.strip() != "*" else None
        if lang is None or not 0 < q <= 1:
            continue
        if best is None or q > best[0]:
            best = (q, lang)
    return best[1] if best else None


@extend_schema_field({"type": "string", "minLength": 2, "maxLength": MAX_LANG_LENGTH,
                      "pattern": r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,4}$"})
class LangParam(serializers.CharField):
    """``lang``: a BCP 47 tag (loosely checked), normalised; anything else is a 400."""

    default_error_messages = {"invalid": "Input should be a BCP 47 language tag such as "
                                         "'en-US' (at most 35 characters)"}

    def to_internal_value(self, data: Any) -> str:
        lang = normalize_lang(super().to_internal_value(data))
        if lang is None:
            self.fail("invalid")
        return lang


class QuoteOptions(serializers.Serializer):
    """The query members the single and batch quotes share."""

    format = format_param()
    lang = LangParam(required=False, help_text=(
        "BCP 47 language tag (e.g. `fr-FR`) for Yahoo's translated text members; without it "
        "the `Accept-Language` header's preferred tag is used (`*` ignored)"))
    logo = serializers.BooleanField(required=False, default=False, help_text=(
        "Also look up the 50x50 logo images (`logoUrl`, `companyLogoUrl`), in parallel with "
        "the quote; a failed lookup leaves them null; default false"))


class V2QuoteQuery(QuoteOptions, FieldsQuery):
    pass


class V2QuotesQuery(QuoteOptions, PageQuery):
    symbols = SymbolsParam(help_text="Comma-separated symbols (at most 50 after removing "
                                        "empty items and duplicates); order is kept")


# -- v2 response schemas --------------------------------------------------------------------
# One quote's object (the members of GqlQuote; the single quote, each of the batch's quotes
# and each index of /v2/indices).
GQL_QUOTE_SCHEMA = record_schema(
    GqlQuote, "GqlQuote: every member may be null (Yahoo does not carry it for the "
              "instrument); `fields` selects members", required=False)
