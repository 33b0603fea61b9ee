"""v2 option chains: one symbol, and a batch."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView, connection_schema
from apps.options.serializers import V2OptionsBatchQuery, V2OptionsQuery
from apps.options.services import ChainBatch, SymbolChain, options_batch, options_for
from marketdata.records.options import OptionChain, OptionContract

TAG = "Options (v2)"
CONTRACT_SCHEMA = record_schema(OptionContract, "One option contract, every member Yahoo "
                                "sends (null where it sends none)")


def chain_schema(paged: bool) -> dict[str, Any]:
    """One expiry of a chain, its sides paged (connections) or bare arrays."""

    def side(what: str) -> dict[str, Any]:
        if not paged:
            return {"type": "array", "items": CONTRACT_SCHEMA,
                    "description": f"{what} by strike"}
        listed = connection_schema(CONTRACT_SCHEMA, "contracts by strike")
        return {**listed, "description": f"{what} by strike. {listed['description']}"}

    return record_schema(OptionChain, "One expiry of an option chain; `fields` selects these "
                         "members", required=False,
                         nested={"calls": side("Calls"), "puts": side("Puts")})


@route("v2/options/<str:symbol>", name="v2-options")
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
    response_schema = chain_schema(paged=True)
    output = record_output(OptionChain, paged=("calls", "puts"))
    operation_id, tag = "get_options", TAG
    summary = "Option chain of one symbol"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(options_for(symbol, self.params.get("date")))


@route("v2/options", name="v2-options-batch")
class V2OptionsBatchView(V2ApiView):
    """Option chains of many symbols, one expiry each (`date`, else each one's nearest):
    `{options: [{symbol, options}], errors}`.

    Items in request order (duplicates removed), each `options` as `/v2/options/{symbol}`
    gives it, with bare `calls` and `puts`. Symbols that cannot be served are listed in
    `errors`; when none can be served because of an upstream failure, that failure's
    status is returned. `cursor`/`limit` page over the symbols; `fields` selects the
    members of each chain (`symbol` and `options` are always present)."""

    query_serializer = V2OptionsBatchQuery
    response_schema = record_schema(ChainBatch, nested={
        "options": connection_schema(
            record_schema(SymbolChain, nested={"options": chain_schema(paged=False)}),
            "`{symbol, options}` items (request order)")})
    output = record_output(OptionChain, at=("options", "options"), paged=("options",))
    operation_id, tag = "get_options_batch", TAG
    summary = "Option chains of many symbols"

    def get(self, request: Request) -> Response:
        return self.answer(options_batch(self.params["symbols"], self.params.get("date")))
