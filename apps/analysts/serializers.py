"""Query declarations of the v2 analyst endpoints (grading actions, price target consensus
and summary, earnings surprises); their answers are the records of
:mod:`marketdata.records.analysts` and :mod:`apps.analysts.services`."""

from __future__ import annotations

from apps.core.v2 import FieldsQuery, OrderedPageQuery, OrderedQuery, order_param


class V2GradingActionsQuery(OrderedPageQuery):
    """``fields`` (of each action), ``cursor``/``limit`` (actions per page), ``order``."""

    order = order_param("desc", "grading actions (by `date`)")


class V2PriceTargetQuery(FieldsQuery):
    """``fields`` only."""


class V2EarningsSurprisesQuery(OrderedQuery):
    """``fields`` and ``order`` of the reported quarters (not paged)."""

    order = order_param("desc", "reported quarters (by `date`)")
