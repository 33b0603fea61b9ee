"""Query declarations of the v2 option chain endpoints."""

from __future__ import annotations

from apps.core.params import IntegerParam
from apps.core.v2 import PageQuery, SymbolsParam

# Unix seconds up to the end of year 9999.
MAX_EPOCH = 253402300799


class V2OptionsQuery(PageQuery):
    date = IntegerParam(
        required=False, min_value=0, max_value=MAX_EPOCH,
        help_text="Expiry to serve, Unix seconds as listed in `expirationDates`; the nearest "
                  "when absent. A date that is not listed gives empty `calls` and `puts`")


class V2OptionsBatchQuery(V2OptionsQuery):
    symbols = SymbolsParam(help_text="Comma-separated symbols (at most 50); `cursor`/`limit` "
                                     "page over them")
