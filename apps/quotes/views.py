from dataclasses import replace

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.params import symbol_list
from apps.core.routing import route
from apps.core.schema import error_responses
from apps.core.shapes import record_output, record_schema, v1_component
from apps.core.v2 import FieldsQuery, V2ApiView, connection_schema
from apps.core.views import ApiView
from apps.quotes.serializers import (
    GQL_QUOTE_SCHEMA,
    SymbolsQuery,
    V2QuoteQuery,
    V2QuotesQuery,
    accept_language,
)
from apps.quotes.services import (
    Quote,
    QuotesBatch,
    SimpleQuote,
    full_quotes,
    quote_json,
    simple_quotes,
    v2_quote,
    v2_quote_type,
    v2_quotes,
)
from marketdata.records.quotes import GqlQuote, QuoteTypeRecord

# The v1 components; the v1 document lists their members in the order of the serializers they
# replace (the required ones first; a full quote's counts before its texts).
QUOTE = v1_component(Quote, first=("symbol", "name", "price", "change", "percentChange",
                                   "volume", "avgVolume"))
SIMPLE_QUOTE = v1_component(SimpleQuote, first=("symbol", "name", "price", "preMarketPrice",
                                                "afterHoursPrice"))

_LIST_RULES = (" Symbols are upper-cased; order is kept and duplicates are removed. Unknown "
               "or malformed symbols are left out; 404 when none resolve. 422 when `symbols` "
               "is missing, empty or lists more than 50 symbols.")


@route("v1/quotes", name="quotes")
class QuotesView(ApiView):
    query_serializer = SymbolsQuery

    @extend_schema(operation_id="get_quotes", tags=["Quotes"], summary="Full quotes",
                   description="Detailed quotes with formatted strings." + _LIST_RULES,
                   parameters=[SymbolsQuery],
                   responses={200: QUOTE(many=True), **error_responses(404, 422, upstream=True)})
    def get(self, request: Request) -> Response:
        symbols = symbol_list(request.query_params.get("symbols"),
                              max_items=settings.QUOTES_MAX_SYMBOLS)
        return Response(full_quotes(symbols))


@route("v1/simple-quotes", name="simple-quotes")
class SimpleQuotesView(ApiView):
    query_serializer = SymbolsQuery

    @extend_schema(operation_id="get_simple_quotes", tags=["Quotes"], summary="Simple quotes",
                   description="Price, change and percent change." + _LIST_RULES,
                   parameters=[SymbolsQuery],
                   responses={200: SIMPLE_QUOTE(many=True),
                              **error_responses(404, 422, upstream=True)})
    def get(self, request: Request) -> Response:
        symbols = symbol_list(request.query_params.get("symbols"),
                              max_items=settings.QUOTES_MAX_SYMBOLS)
        return Response(simple_quotes(symbols))


# -- v2 -----------------------------------------------------------------------------------------
def _language(view: V2ApiView, request: Request) -> str | None:
    """``lang`` when given, else the preferred tag of ``Accept-Language`` (None: Yahoo's
    default language)."""
    return view.params.get("lang") or accept_language(request.headers.get("Accept-Language"))


@route("v2/quote/<str:symbol>", name="v2-quote")
class V2QuoteView(V2ApiView):
    """The full quote of one symbol: every GqlQuote member Yahoo's quoteSummary carries for
    the instrument (price, key statistics, financial data, profile, ownership and the module
    objects such as `earnings` or `calendarEvents`), null where it carries none.

    - `format`: `raw` (default) gives numbers; `pretty` Yahoo's formatted strings (`"3.69T"`,
      `"0.41%"`, `"2025-02-10"`; null where Yahoo sends none); `both` the `{raw, fmt,
      longFmt}` objects as Yahoo sends them. It applies inside the object members too.
    - `lang`: BCP 47 tag passed to Yahoo for its translated texts (its region subtag as
      Yahoo's region); without it the `Accept-Language` header's preferred tag is used.
    - `logo`: also fetch the 50x50 logo images (`logoUrl`, `companyLogoUrl`) in parallel; a
      failed logo lookup leaves them null. Without it they are whatever the quote carries
      (usually null).

    Fractions stay fractions (`dividendYield` 0.0041 is 0.41%); dates and times are Unix
    seconds. A malformed symbol is a 404 without an upstream call."""

    query_serializer = V2QuoteQuery
    response_schema = GQL_QUOTE_SCHEMA
    operation_id, tag = "get_quote_v2", "Quotes (v2)"
    summary = "Full quote of one symbol"

    output = record_output(GqlQuote)

    def get(self, request: Request, symbol: str) -> Response:
        q = self.params
        quote = v2_quote(symbol, lang=_language(self, request), logo=q["logo"])
        return self.answer(quote_json(quote, q["format"]))


@route("v2/quotes", name="v2-quotes")
class V2QuotesView(V2ApiView):
    """Quotes of many symbols from one Yahoo batch call, in request order, each a GqlQuote
    with the members the batch source carries (prices, sessions, ranges, market cap,
    P/E, EPS, dividends, bid/ask...; the others null). Note that the batch source sends
    `regularMarketChangePercent`, `preMarketChangePercent`, `postMarketChangePercent` and
    `dividendYield` in percent units (1.27 is 1.27%), where the single quote sends fractions.

    `format`, `lang` and `logo` work as for the single quote (one logo lookup for the whole
    batch). `fields` filters the members of each quote (`symbol` is always kept).
    `cursor`/`limit` page over the served quotes. Symbols that are malformed (never sent
    upstream) or that Yahoo does not know are listed in `errors`. When the upstream call
    fails, its status is the answer."""

    query_serializer = V2QuotesQuery
    response_schema = record_schema(QuotesBatch, nested={
        "quotes": connection_schema(GQL_QUOTE_SCHEMA, "quotes (request order)")})
    operation_id, tag = "get_quotes_v2", "Quotes (v2)"
    summary = "Quotes of many symbols"

    # A quote's symbol stays whatever `fields` says: it names the quote.
    output = replace(record_output(GqlQuote, at=("quotes",), paged=("quotes",)),
                     always=("symbol",))

    def get(self, request: Request) -> Response:
        q = self.params
        batch = v2_quotes(q["symbols"], lang=_language(self, request), logo=q["logo"])
        return self.answer(quote_json(batch, q["format"]))


@route("v2/quote-type/<str:symbol>", name="v2-quote-type")
class V2QuoteTypeView(V2ApiView):
    """The instrument's identity from Yahoo's quoteType module: symbol, names, exchange,
    quote type, time zone, first trade date (Unix seconds) and GMT offset (milliseconds).
    A malformed symbol is a 404 without an upstream call."""

    query_serializer = FieldsQuery
    response_schema = record_schema(QuoteTypeRecord, "GqlQuoteTypeData", required=False)
    operation_id, tag = "get_quote_type_v2", "Quotes (v2)"
    summary = "Quote type of one symbol"

    output = record_output(QuoteTypeRecord)

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(v2_quote_type(symbol))
