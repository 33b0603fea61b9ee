"""Query declarations of the v2 feeds endpoints; their answers are the records
:class:`~marketdata.records.feeds.FeedItem`, :class:`~marketdata.records.feeds.MarketNewsItem`
and :class:`~marketdata.records.gauges.FearAndGreed`."""

import re
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.params import AnyTextParam, IntegerParam
from apps.core.v2 import FieldsQuery, OrderedBatchPageQuery, OrderedPageQuery, order_param
from marketdata.records.feeds import (
    DEFAULT_FORM_TYPE,
    DEFAULT_SLUGS,
    FORM_TYPE_PATTERN,
    PUBLISHERS,
    Publisher,
    find_publisher,
)

# The failing sources of a /v2/feeds answer, as `slug: message; slug: message`.
FEED_ERRORS_HEADER = "X-Feed-Errors"
SLUG_LIST = ", ".join(p.slug for p in PUBLISHERS)
MAX_MARKET_NEWS = 100


def _slugs_doc() -> str:
    return "; ".join(f"`{p.slug}`" + (f" ({', '.join(p.aliases)})" if p.aliases else "")
                     + f" {p.name}" for p in PUBLISHERS)


# The schema's pattern: a comma list of the slugs and aliases as listed (the server also
# takes any case and ignores `-`, `_` and spaces; a schema may be stricter than the server).
_NAMES = "|".join(re.escape(n) for p in PUBLISHERS for n in (p.slug, *p.aliases))
SOURCES_PATTERN = rf"^\s*({_NAMES})\s*(,\s*({_NAMES})\s*)*$"


@extend_schema_field({"type": "string", "pattern": SOURCES_PATTERN})
class SourcesParam(AnyTextParam):
    """A CSV of feed slugs or aliases -> the publishers, in order, without repeats; an
    unknown name is this parameter's 400, naming it and listing the valid slugs."""

    def to_internal_value(self, data: Any) -> list[Publisher]:  # type: ignore[override]
        text = super().to_internal_value(data)
        out: list[Publisher] = []
        for name in (part.strip() for part in text.split(",")):
            if not name:
                continue
            found = find_publisher(name)
            if found is None:
                raise serializers.ValidationError(
                    f"Unknown feed source: '{name}'. Valid sources: {SLUG_LIST}")
            if found not in out:
                out.append(found)
        if not out:
            raise serializers.ValidationError(f"Name at least one source: {SLUG_LIST}")
        return out


class FeedsQuery(OrderedPageQuery):
    order = order_param("desc", "entries (by the publication moment; undated entries last "
                                "with `desc`, first with `asc`)")
    sources = SourcesParam(
        required=False,
        help_text="Comma-separated feed slugs (case-insensitive; `-`, `_` and spaces "
                  f"ignored; aliases in parentheses): {_slugs_doc()}. Default: "
                  f"{', '.join(DEFAULT_SLUGS)}. An unknown name is a 400 listing the valid "
                  "slugs")
    formType = serializers.RegexField(  # noqa: N815
        rf"^{FORM_TYPE_PATTERN.pattern}$", required=False,
        help_text=f"The form type of the `sec-filings` feed (`8-K`, `10-Q`, `S-1`...); "
                  f"default {DEFAULT_FORM_TYPE}; ignored by the other feeds")


class MarketNewsQuery(OrderedBatchPageQuery):
    order = order_param("desc", "articles (by publication time; the latest `limit` "
                                "articles either way)", paging="`pageCursor`/`pageLimit`")
    limit = IntegerParam(
        required=False, default=20, min_value=1, max_value=MAX_MARKET_NEWS,
        help_text=f"How many articles, 1 to {MAX_MARKET_NEWS}; default 20. "
                  "`pageCursor`/`pageLimit` page over these")


class FearAndGreedQuery(FieldsQuery):
    pass
