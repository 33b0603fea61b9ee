"""Query declaration of the v2 weekly positioning endpoint; its answer is
:class:`marketdata.records.macro.Commitments`."""

from __future__ import annotations

from apps.core.v2 import OrderedPageQuery, order_param


class V2CotQuery(OrderedPageQuery):
    """`cursor`/`limit` page the weekly observations; `fields` selects top-level members."""

    order = order_param("asc", "weekly observations")
