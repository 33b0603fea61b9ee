"""GET /v2/futures/{symbol}: one futures contract's quote."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView
from apps.futures.serializers import V2FuturesQuery
from apps.futures.services import futures_quote
from marketdata.records.quotes import FuturesQuote


@route("v2/futures/<str:symbol>", name="v2-futures")
class V2FuturesView(V2ApiView):
    """The quote of one futures contract (GqlFuturesQuote), from Yahoo Finance's quote.

    `symbol` is Yahoo's: a continuous front-month symbol (`GC=F`, `ES=F`, `CL=F`) or a
    dated contract (`GCZ26.CMX`). A bare root (letters and digits only: `GC`, `es`, `6E`)
    means `{ROOT}=F`, since this endpoint serves futures only; the answer's `symbol` is
    then `GC=F`.

    Members: `name` is Yahoo's long name, else its short name (`Gold Apr 25`); `exchange`
    Yahoo's exchange code (`CMX`); `underlying` the dated contract a continuous symbol
    stands for now (Yahoo's underlyingSymbol, `GCJ25.CMX`); `expirationDate` that
    contract's expiration as `YYYY-MM-DD` (Yahoo's expireIsoDate, else its expireDate epoch
    in UTC); `price`, `change` (against the previous close), `changePercent` (percent units:
    0.33 is 0.33%, as Yahoo's regularMarketChangePercent); `openInterest` and `volume` in
    contracts; `timestamp` Unix seconds of the last trade (regularMarketTime). A member
    Yahoo does not send is null (one v7 quote call; no quoteSummary call is made for the
    missing ones).

    Errors: a malformed symbol, a symbol Yahoo does not know, or one Yahoo knows as
    something other than a futures contract (an equity, a currency pair) is a 404; Yahoo's
    failures are 502/503/504/429 (`provider: yahoo`)."""

    query_serializer = V2FuturesQuery
    response_schema = record_schema(FuturesQuote,
                                    "GqlFuturesQuote; `fields` selects these members")
    operation_id, tag = "get_futures", "Futures (v2)"
    summary = "Quote of a futures contract"

    output = record_output(FuturesQuote)

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(futures_quote(symbol))
