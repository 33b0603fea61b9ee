"""Query declarations of the v2 fund endpoints; their answers are the records of
:mod:`marketdata.records.funds`."""

from __future__ import annotations

from apps.core.params import IntegerParam, choice
from apps.core.v2 import ORDERS, OrderedPageQuery
from marketdata.records.funds import DEFAULT_TOP, MAX_TOP

ORDER_HELP = ("Order of the holdings by weight: `desc` largest first (the default), `asc` "
              "smallest first (short positions before the rest). With `cursor`/`limit`, "
              "walking the pages of one order gives exactly the other order's list reversed; "
              "a cursor belongs to the order of the page that gave it (with the other order "
              "it is a 400)")


class V2FundHoldingsQuery(OrderedPageQuery):
    order = choice(ORDERS, required=False, default="desc", help_text=ORDER_HELP)
    top = IntegerParam(
        required=False, default=DEFAULT_TOP, min_value=0, max_value=MAX_TOP,
        help_text=f"How many of the largest holdings `top` lists, 0..{MAX_TOP}; default "
                  f"{DEFAULT_TOP}")
