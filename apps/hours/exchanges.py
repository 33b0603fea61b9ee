"""GET /v2/exchanges: the exchanges Yahoo Finance covers, from the maintained table
:data:`marketdata.records.exchanges.EXCHANGES` (no upstream call); each row's members are
declared on :class:`~marketdata.records.exchanges.Exchange`."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import FieldsQuery, V2ApiView
from marketdata.records.exchanges import EXCHANGES, Exchange


@route("v2/exchanges", name="v2-exchanges")
class V2ExchangesView(V2ApiView):
    """The exchanges and markets Yahoo Finance covers, with the symbol suffix Yahoo uses
    for each (`.L`, `.DE`, `.T`...), its quote delay and data provider, as Yahoo publishes
    them on its help page "Exchanges and data providers on Yahoo Finance". Served from a
    table maintained in this service (no upstream call; the answer is the same for every
    request of a release). `fields` selects members of each item."""

    query_serializer = FieldsQuery
    response_schema = {
        "type": "array",
        "items": record_schema(Exchange, "One market; `fields` selects these members"),
        "description": "Every market, the United States first, then by country"}
    output = record_output(Exchange)
    operation_id, tag = "get_exchanges", "Market hours (v2)"
    summary = "Exchanges and symbol suffixes"

    def get(self, request: Request) -> Response:
        return self.answer(list(EXCHANGES))
