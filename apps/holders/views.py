from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.analysis.modules import V2ModuleView
from apps.core import v2
from apps.core.errors import ERRORS
from apps.core.routing import route
from apps.core.schema import error_responses
from apps.core.shapes import v1_component
from apps.core.views import ApiView, sub_route_choice
from apps.holders.serializers import (
    ALIAS_NAMES,
    HOLDERS_ALIAS_RESPONSE,
    HOLDERS_EXAMPLE,
    V2_HOLDERS_RESPONSE,
    HoldersQuery,
    V2HoldersQuery,
)
from apps.holders.services import (
    ALIASES,
    HOLDER_TYPES,
    HOLDERS,
    HoldersData,
    holders_data,
    reference_body,
)
from marketdata.records.members import as_json

_SOURCES = (
    "Sources (Yahoo Finance quoteSummary modules): major <- majorHoldersBreakdown; "
    "institutional <- institutionOwnership; mutualfund <- fundOwnership (top holders, "
    "largest first); insider_transactions <- insiderTransactions (newest first); "
    "insider_purchases <- netSharePurchaseActivity (the last six months); insider_roster <- "
    "insiderHolders.")
_RULES = (
    " Percentages are fractions (0.0929 = 9.29%). Dates are ISO 8601 in UTC; a date Yahoo "
    "does not give is null. Text fields are passed through as Yahoo sends them (an empty "
    "transaction text stays \"\"); a missing field is null. 404 when the symbol is "
    "malformed or unknown, or when there is no data of that type (funds, indices, crypto, "
    "an empty list). 422 (`{errors: {holder_type: [...]}}`) when the type is missing or not "
    "one of the listed values.")
_SYMBOL = OpenApiParameter("symbol", OpenApiTypes.STR, OpenApiParameter.PATH,
                           description="Stock symbol, e.g. AAPL, BRK-B, OCDO.L")


@route("v1/holders/<str:symbol>", name="holders")
class HoldersView(ApiView):
    query_serializer = HoldersQuery
    error_style = ERRORS

    @extend_schema(
        operation_id="get_holders",
        tags=["Holders"],
        summary="Holders of a stock",
        description="Major-holder breakdown, institutional or mutual-fund holders, insider "
                    "transactions, net insider purchases or the insider roster. "
                    "`holder_type` is required. The body always has all six members: the "
                    "requested one is filled, the others are null. " + _SOURCES + _RULES,
        parameters=[_SYMBOL, HoldersQuery],
        responses={200: v1_component(HoldersData),
                   **error_responses(404, 422, upstream=True, style=ERRORS)},
        examples=[OpenApiExample("AAPL institutional holders (abridged)",
                                 value=HOLDERS_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, symbol: str) -> Response:
        q = self.query(request)
        return Response(as_json(holders_data(symbol, q["holder_type"])))


@route("v1/holders/<str:symbol>/<str:holder_type>", name="holders-by-path")
class HoldersAliasView(ApiView):
    """The reference implementation's sub-routes and bodies, so its clients work unchanged."""

    error_style = ERRORS

    @extend_schema(
        operation_id="get_holders_by_path",
        tags=["Holders"],
        summary="Holders of a stock (sub-route form)",
        description="Alias of `/v1/holders/{symbol}?holder_type=` for clients of the "
                    "reference implementation, with its sub-route names (`major`, "
                    "`institutional`, `mutualfund`, `insider-transactions`, "
                    "`insider-purchases`, `insider-roster`; underscores accepted too) and its "
                    "bodies: `{symbol, breakdown: {breakdown_data}}` (major), `{symbol, "
                    "holders: [...]}` (institutional, mutualfund), `{symbol, transactions: "
                    "[...]}`, `{symbol, summary: {...}}` (insider purchases), `{symbol, "
                    "roster: [...]}`. Values are the same as in HoldersData. An unknown name "
                    "is a 422 on `holder_type`." + _RULES,
        parameters=[_SYMBOL,
                    OpenApiParameter("holder_type", OpenApiTypes.STR, OpenApiParameter.PATH,
                                     enum=list(ALIAS_NAMES),
                                     description="Holder type, the reference's hyphenated "
                                                 "names; the underscore spellings "
                                                 "(`insider_roster`, ...) are accepted too")],
        responses={200: HOLDERS_ALIAS_RESPONSE,
                   **error_responses(404, 422, upstream=True, style=ERRORS)},
    )
    def get(self, request: Request, symbol: str, holder_type: str) -> Response:
        resolved = sub_route_choice(request, symbol, holder_type, "holder_type", HOLDER_TYPES,
                                    ALIASES)
        return Response(as_json(reference_body(symbol, resolved)))


@route("v2/holders/<str:symbol>/<str:type>", name="holders-v2")
class V2HoldersView(V2ModuleView):
    """One ownership data set of a stock: the Yahoo Finance quoteSummary module of the type,
    with Yahoo's camelCase member names and its values raw (every `{raw, fmt}` object
    reduced to its raw number, Yahoo's empty `{}` to null; strings as sent, `""` included).
    Percentages are fractions (0.0929 = 9.29%); dates are Unix seconds, as Yahoo sends them.

    Types (type -> Yahoo module: members; the member `cursor`/`limit` page):
    - `major` -> majorHoldersBreakdown: `maxAge`, `insidersPercentHeld`,
      `institutionsPercentHeld`, `institutionsFloatPercentHeld`, `institutionsCount`. Not
      paged: `cursor`/`limit` have no effect.
    - `institutional` -> institutionOwnership: `maxAge`, `ownershipList` `[{maxAge,
      reportDate, organization, pctHeld, position, value, pctChange}]` largest first.
      Paged: `ownershipList`.
    - `mutualfund` -> fundOwnership: same shape as institutional. Paged: `ownershipList`.
    - `insider-transactions` -> insiderTransactions: `transactions` `[{maxAge, shares,
      value, filerUrl, transactionText, filerName, filerRelation, moneyText, startDate,
      ownership}]` newest first, `maxAge`. Paged: `transactions`.
    - `insider-purchases` -> netSharePurchaseActivity: `maxAge`, `period` (e.g. "6m"),
      `buyInfoCount`, `buyInfoShares`, `buyPercentInsiderShares`, `sellInfoCount`,
      `sellInfoShares`, `sellPercentInsiderShares`, `netInfoCount`, `netInfoShares`,
      `netPercentInsiderShares`, `totalInsiderShares` (members Yahoo leaves out are absent
      unless named in `fields`). Not paged: `cursor`/`limit` have no effect.
    - `insider-roster` -> insiderHolders: `holders` `[{maxAge, name, relation, url,
      transactionDescription, latestTransDate, positionDirect, positionDirectDate, ...}]`,
      `maxAge`. Paged: `holders`.

    `fields` selects top-level members (a requested member is present even when null).
    `cursor`/`limit` page the list member of the list types: it becomes a connection
    `{edges, nodes, pageInfo}` while the other members stay as they are; with neither it
    is the bare array. 404 when the symbol is malformed or unknown, or when Yahoo has no
    data of that type for it (`No ... data found for SYM`: Yahoo's 404 for the module, an
    empty list, or no numbers); 400 for an unknown type or a bad `cursor`/`limit`/`order`,
    before any upstream call.

    `order` (`asc` oldest first, `desc` newest first) orders `insider-transactions`'
    `transactions` in time; without it they come newest first (`order=desc`); it has no
    effect on the other types. The other order is the list reversed. Cursors carry their
    walk's order: a cursor used with the other `order` is a 400."""

    endpoint = HOLDERS
    query_serializer = V2HoldersQuery
    path_choices = {"type": v2.HOLDER_TYPES}
    response_schema = V2_HOLDERS_RESPONSE
    operation_id, tag = "get_holders_v2", "Holders (v2)"
    summary = "Holders of a stock"
