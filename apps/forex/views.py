"""GET /v2/forex/{from}/{to}: one currency pair's quote."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView
from apps.forex.currencies import currency_pair
from apps.forex.serializers import CURRENCIES_EXAMPLE, V2ForexQuery
from apps.forex.services import currencies, forex_quote
from marketdata.records.market import CurrencyInfo
from marketdata.records.quotes import ForexQuote

_CODE = ("ISO 4217 currency code, 3 letters, any case (e.g. {example}); not 3 ASCII letters: "
         "400; not an active ISO 4217 code: 404")


@route("v2/forex/<str:from>/<str:to>", name="v2-forex")
class V2ForexView(V2ApiView):
    """The quote of one currency pair (GqlForexQuote): units of `to` per unit of `from`.

    Sources, in order:
    1. Yahoo Finance, the quote of `{FROM}{TO}=X` (the same cached quote `/v2/quotes`
       serves): live `price`, `bid` and `ask`; `change` and `changePercent` against the
       previous close; `timestamp` is Yahoo's regularMarketTime.
    2. The ECB euro reference rates through Frankfurter, when Yahoo fails (5xx, timeout,
       circuit open) or does not list the pair (Yahoo lacks some crosses): `price` is the
       last daily fix of the last ten days, `change` and `changePercent` are against the
       fix before it (null when there is none), `bid` and `ask` are null (a reference rate
       is no market), `timestamp` is the fix date at 00:00 UTC.

    `symbol` is `{FROM}{TO}` (e.g. `EURUSD`, no `=X`); `baseCurrency`/`quoteCurrency` are
    the codes, upper-cased. `changePercent` is in percent units (0.5 is 0.5%), as Yahoo's
    regularMarketChangePercent. A zero bid or ask from Yahoo (no book) is null.

    A currency against itself (`/v2/forex/usd/USD`) makes no upstream call: `price`, `bid`
    and `ask` 1.0, `change` and `changePercent` 0, `timestamp` now.

    Errors: a code that is not 3 ASCII letters is a 400 (both segments are checked before
    any upstream call); 3 letters that are no active ISO 4217 code (fund and test codes,
    withdrawn codes such as BGN, and CNH are not) is a 404; a pair neither source has is a
    404. When Yahoo fails and the ECB has no rate for the pair, Yahoo's failure is returned
    (502/503/504/429, `provider: yahoo`), since nobody said the pair does not exist; when
    both fail, Yahoo's failure too; when Yahoo does not list the pair and the ECB fails, the
    ECB's failure (`provider: frankfurter`)."""

    query_serializer = V2ForexQuery
    path_descriptions = {
        name: {"description": f"{what} currency: " + _CODE.format(example=example),
               "pattern": "^[A-Za-z]{3}$"}
        for name, what, example in (("from", "Base", "EUR"), ("to", "Quote", "usd"))}
    response_schema = record_schema(ForexQuote, "GqlForexQuote; `fields` selects these members")
    operation_id, tag = "get_forex", "Forex (v2)"
    summary = "Quote of a currency pair"

    output = record_output(ForexQuote)

    def get(self, request: Request, **path: Any) -> Response:
        return self.answer(forex_quote(*currency_pair(path["from"], path["to"])))


@route("v2/currencies", name="v2-currencies")
class V2CurrenciesView(V2ApiView):
    """The currencies Yahoo Finance quotes: `[{symbol, shortName, longName,
    localLongName}]`, in Yahoo's order, names as Yahoo sends them (null where it sends
    none). Cached a day. `fields` applies to each item."""

    query_serializer = V2ForexQuery
    response_schema = {"type": "array",
                       "description": "The currencies Yahoo Finance quotes, in its order",
                       "items": record_schema(CurrencyInfo), "example": CURRENCIES_EXAMPLE}
    csv_table = ""
    output = record_output(CurrencyInfo)
    operation_id, tag = "get_currencies", "Forex (v2)"
    summary = "Currencies"

    def get(self, request: Request) -> Response:
        return self.answer(currencies())
