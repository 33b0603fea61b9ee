"""v2 option chains: one symbol, and a batch."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.v2 import Output, V2ApiView
from apps.options.serializers import (
    OPTIONS_BATCH_RESPONSE,
    OPTIONS_RESPONSE,
    V2OptionsBatchQuery,
    V2OptionsQuery,
)
from apps.options.services import MEMBERS, options_batch, options_for

TAG = "Options (v2)"


class V2OptionsView(V2ApiView):
    """One expiry of a symbol's option chain: `{symbol, expirationDates, expirationDate,
    strikes, calls, puts}`.

    From Yahoo's v7 options: every listed expiry (Unix seconds, 00:00 UTC of the expiry
    day), the expiry served (`date`, else the nearest), its strikes, and its calls and puts
    by strike with every member Yahoo sends, values as sent (`impliedVolatility` a
    fraction). An underlying without listed options (a currency, crypto, most indices) gives
    empty lists and a null `expirationDate`; a `date` that is not listed gives that date
    with empty sides; an unknown or malformed symbol is a 404. `cursor`/`limit` page the
    calls and the puts together (the same positions); `fields` selects members."""

    query_serializer = V2OptionsQuery
    response_schema = OPTIONS_RESPONSE
    output = Output(MEMBERS, paged=("calls", "puts"))
    operation_id, tag = "get_options", TAG
    summary = "Option chain of one symbol"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(options_for(symbol, self.params.get("date")))


class V2OptionsBatchView(V2ApiView):
    """Option chains of many symbols, one expiry each (`date`, else each one's nearest):
    `{options: [{symbol, options}], errors}`.

    Items in request order (duplicates removed), each `options` as `/v2/options/{symbol}`
    gives it, with bare `calls` and `puts`. Symbols that cannot be served are listed in
    `errors`; when none can be served because of an upstream failure, that failure's
    status is returned. `cursor`/`limit` page over the symbols; `fields` selects the
    members of each chain (`symbol` and `options` are always present)."""

    query_serializer = V2OptionsBatchQuery
    response_schema = OPTIONS_BATCH_RESPONSE
    output = Output(MEMBERS, at=("options", "options"), paged=("options",))
    operation_id, tag = "get_options_batch", TAG
    summary = "Option chains of many symbols"

    def get(self, request: Request) -> Response:
        q = self.params
        chains, errors = options_batch(q["symbols"], q.get("date"))
        return self.answer({"options": chains, "errors": errors})
