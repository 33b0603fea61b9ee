"""GET /v2/exchanges: the exchanges Yahoo Finance covers, from the maintained table
:data:`marketdata.records.exchanges.EXCHANGES` (no upstream call)."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.v2 import FieldsQuery, Output, V2ApiView, object_schema
from marketdata.records.exchanges import EXCHANGES, Exchange

EXCHANGE_MEMBERS = ("country", "market", "suffix", "delay", "dataProvider")

EXCHANGE_SCHEMA = object_schema({
    "country": {"type": "string", "description": "Country, or `Europe` for a market of "
                                                 "several countries"},
    "market": {"type": "string", "description": "Exchange or market, e.g. `Toronto Stock "
                                                "Exchange (TSX)`"},
    "suffix": {"type": "string", "description": "Yahoo's symbol suffix, dot included "
                                                "(`.TO`: `SHOP.TO`); `N/A` where the market "
                                                "has none (US listings, indices)"},
    "delay": {"type": "string", "description": "Quote delay: `Real-time` or `<n> min`"},
    "dataProvider": {"type": "string", "description": "Who supplies Yahoo the data"},
}, "One market; `fields` selects these members", required=EXCHANGE_MEMBERS)
EXCHANGES_RESPONSE: dict[str, Any] = {
    "type": "array", "items": EXCHANGE_SCHEMA,
    "description": "Every market, the United States first, then by country"}


def exchange_json(exchange: Exchange) -> dict[str, Any]:
    return {"country": exchange.country, "market": exchange.market,
            "suffix": exchange.suffix, "delay": exchange.delay,
            "dataProvider": exchange.data_provider}


@route("v2/exchanges", name="v2-exchanges")
class V2ExchangesView(V2ApiView):
    """The exchanges and markets Yahoo Finance covers, with the symbol suffix Yahoo uses
    for each (`.L`, `.DE`, `.T`...), its quote delay and data provider, as Yahoo publishes
    them on its help page "Exchanges and data providers on Yahoo Finance". Served from a
    table maintained in this service (no upstream call; the answer is the same for every
    request of a release). `fields` selects members of each item."""

    query_serializer = FieldsQuery
    response_schema = EXCHANGES_RESPONSE
    output = Output(EXCHANGE_MEMBERS)
    operation_id, tag = "get_exchanges", "Market hours (v2)"
    summary = "Exchanges and symbol suffixes"

    def get(self, request: Request) -> Response:
        return self.answer([exchange_json(exchange) for exchange in EXCHANGES])
