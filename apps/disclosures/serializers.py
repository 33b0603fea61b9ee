"""Query declarations of the v2 disclosure endpoints (fails-to-deliver, congressional
trades); their answers are the records of :mod:`marketdata.records.disclosures`."""

from __future__ import annotations

from apps.core.params import IntegerParam
from apps.core.v2 import OrderedPageQuery, order_param
from marketdata.records.disclosures import DEFAULT_FTD_MONTHS, MAX_FTD_MONTHS


class V2FailsToDeliverQuery(OrderedPageQuery):
    order = order_param("desc", "balances (by settlement day)")
    months = IntegerParam(
        required=False, default=DEFAULT_FTD_MONTHS, min_value=1, max_value=MAX_FTD_MONTHS,
        help_text=f"Months of published data, 1..{MAX_FTD_MONTHS} (two SEC files a month); "
                  f"default {DEFAULT_FTD_MONTHS}")


class V2CongressionalTradesQuery(OrderedPageQuery):
    order = order_param("desc", "trades (by transaction date)")
