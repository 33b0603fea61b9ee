"""Query declaration and response schema of ``GET /v2/press-releases/{symbol}``."""

from __future__ import annotations

from typing import Any

from apps.core.params import IntegerParam
from apps.core.v2 import STRING, OrderedQuery, object_schema, order_param

DEFAULT_LIMIT = 10
MAX_LIMIT = 100
MEMBERS = ("date", "symbol", "title", "text")


class V2PressReleasesQuery(OrderedQuery):
    order = order_param("desc", "releases (by `date`; the latest `limit` releases either way)")
    limit = IntegerParam(
        required=False, default=DEFAULT_LIMIT, min_value=1, max_value=MAX_LIMIT,
        help_text=f"Maximum releases, 1..{MAX_LIMIT}; default {DEFAULT_LIMIT}. Not paging: "
                  "the answer is always a bare array of at most this many releases")


PRESS_RELEASE_SCHEMA = object_schema({
    "date": {**STRING, "description": "SEC EDGAR: the 8-K's filing date (`YYYY-MM-DD`); "
                                      "Financial Modeling Prep: the publication time "
                                      "(`YYYY-MM-DDTHH:MM:SS`)"},
    "symbol": {**STRING, "description": "The company's symbol"},
    "title": {**STRING, "description": "Headline"},
    "text": {**STRING, "description": "Plain text of the release (EDGAR: lines separated "
                                      "by newlines, at most 20,000 characters)"},
}, "GqlPressRelease", required=MEMBERS)

PRESS_RELEASES_RESPONSE: dict[str, Any] = {
    "type": "array", "items": PRESS_RELEASE_SCHEMA,
    "description": "Press releases, newest first (`order=desc`, the default) or oldest first "
                   "(`order=asc`); `fields` applies to each"}
