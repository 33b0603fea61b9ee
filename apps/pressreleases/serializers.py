"""Query declaration of ``GET /v2/press-releases/{symbol}``; its answer is the records of
:class:`marketdata.records.companies.PressRelease`."""

from __future__ import annotations

from apps.core.params import IntegerParam
from apps.core.v2 import OrderedQuery, order_param

DEFAULT_LIMIT = 10
MAX_LIMIT = 100


class V2PressReleasesQuery(OrderedQuery):
    order = order_param("desc", "releases (by `date`; the latest `limit` releases either way)")
    limit = IntegerParam(
        required=False, default=DEFAULT_LIMIT, min_value=1, max_value=MAX_LIMIT,
        help_text=f"Maximum releases, 1..{MAX_LIMIT}; default {DEFAULT_LIMIT}. Not paging: "
                  "the answer is always a bare array of at most this many releases")
