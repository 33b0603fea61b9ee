"""Query declaration of the v2 world news endpoint; its answer is the records
:class:`~marketdata.records.news.WorldNewsItem`."""

from __future__ import annotations

from apps.core.v2 import OrderedPageQuery, order_param


class V2WorldNewsQuery(OrderedPageQuery):
    """`cursor`/`limit` page over the articles; `fields` picks members of each article."""

    order = order_param("desc", "articles (by the time GDELT saw them)")
