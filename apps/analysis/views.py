from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.analysis.modules import V2ModuleView
from apps.analysis.serializers import (
    ALIAS_NAMES,
    ANALYSIS_EXAMPLE,
    V2_ANALYSIS_RESPONSE,
    AnalysisQuery,
    V2AnalysisQuery,
)
from apps.analysis.services import (
    ALIASES,
    ANALYSIS,
    ANALYSIS_TYPES,
    AnalysisData,
    analysis_data,
)
from apps.core import v2
from apps.core.errors import DETAIL_LIST
from apps.core.routing import route
from apps.core.schema import error_responses
from apps.core.shapes import v1_component
from apps.core.views import ApiView, sub_route_choice
from marketdata.records.members import as_json

_SOURCES = (
    "Sources (Yahoo Finance quoteSummary modules): recommendations <- recommendationTrend "
    "(analyst counts per month, `0m` = current); upgrades_downgrades <- "
    "upgradeDowngradeHistory (newest first; action is upgrade or downgrade, null for a "
    "maintained, initiated or reiterated rating); price_targets <- financialData; "
    "earnings_estimate and revenue_estimate "
    "<- earningsTrend (keyed by period end date; periods without an end date or without "
    "analysts are left out; when a quarter and a fiscal year end on the same day the quarter "
    "is kept; growth is a fraction); earnings_history <- earningsHistory (oldest first; "
    "surprise_percent is a fraction); sustainability <- esgScores.")
_RULES = (
    " The body always has all seven members: the requested one is filled, the others are "
    "null. A missing field inside the data is null. Dates are ISO 8601 in UTC. 404 when the "
    "symbol is malformed or unknown, or when there is no data of that type (funds, indices, "
    "crypto and thinly covered stocks). 422 (`{detail: [{type, loc, msg, input}]}`) when "
    "the type is missing or not one of the listed values.")
_SYMBOL = OpenApiParameter("symbol", OpenApiTypes.STR, OpenApiParameter.PATH,
                           description="Stock symbol, e.g. AAPL, BRK-B, 0700.HK")
_EXAMPLE = OpenApiExample("AAPL recommendations (abridged)", value=ANALYSIS_EXAMPLE,
                          response_only=True)


@route("v1/analysis/<str:symbol>", name="analysis")
class AnalysisView(ApiView):
    query_serializer = AnalysisQuery
    error_style = DETAIL_LIST

    @extend_schema(
        operation_id="get_analysis",
        tags=["Analysis"],
        summary="Analyst data for a stock",
        description="Analyst recommendations, rating changes, price targets, estimates, "
                    "earnings history or ESG scores. `analysis_type` is required. "
                    + _SOURCES + _RULES,
        parameters=[_SYMBOL, AnalysisQuery],
        responses={200: v1_component(AnalysisData),
                   **error_responses(404, 422, upstream=True, style=DETAIL_LIST)},
        examples=[_EXAMPLE],
    )
    def get(self, request: Request, symbol: str) -> Response:
        q = self.query(request)
        return Response(as_json(analysis_data(symbol, q["analysis_type"])))


@route("v1/analysis/<str:symbol>/<str:analysis_type>", name="analysis-by-path")
class AnalysisAliasView(ApiView):
    """The reference implementation's sub-routes, kept so its clients work unchanged."""

    error_style = DETAIL_LIST

    @extend_schema(
        operation_id="get_analysis_by_path",
        tags=["Analysis"],
        summary="Analyst data for a stock (sub-route form)",
        description="Alias of `/v1/analysis/{symbol}?analysis_type=` for clients of the "
                    "reference implementation, which served each type as a sub-route with "
                    "hyphenated names (`price-targets`, `upgrades-downgrades`, ...). The "
                    "underscore spellings are accepted too. Same AnalysisData body (a "
                    "superset of the reference's `{symbol, <member>}`), same errors; an "
                    "unknown name is a 422 on `analysis_type`." + _RULES,
        parameters=[_SYMBOL,
                    OpenApiParameter("analysis_type", OpenApiTypes.STR, OpenApiParameter.PATH,
                                     enum=list(ALIAS_NAMES),
                                     description="Analysis type, the reference's hyphenated "
                                                 "names; the underscore spellings "
                                                 "(`price_targets`, ...) are accepted too")],
        responses={200: v1_component(AnalysisData),
                   **error_responses(404, 422, upstream=True, style=DETAIL_LIST)},
        examples=[_EXAMPLE],
    )
    def get(self, request: Request, symbol: str, analysis_type: str) -> Response:
        resolved = sub_route_choice(request, symbol, analysis_type, "analysis_type", ANALYSIS_TYPES,
                                    ALIASES)
        return Response(as_json(analysis_data(symbol, resolved)))


@route("v2/analysis/<str:symbol>/<str:type>", name="analysis-v2")
class V2AnalysisView(V2ModuleView):
    """One analyst data set of a stock: the Yahoo Finance quoteSummary module of the type,
    with its values raw (every `{raw, fmt}` object reduced to its raw number, Yahoo's empty
    `{}` to null; strings as sent) and camel-case member names (Yahoo's `7daysAgo`,
    `upLast7days`, `downLast30days` are `sevenDaysAgo`, `upLast7Days`, `downLast30Days`).
    Every member of a row is present, null where Yahoo sent none; members Yahoo adds later
    are passed on after them.

    Types (type -> Yahoo module: members; the member `cursor`/`limit` page):
    - `recommendations` -> recommendationTrend: `trend` `[{period, strongBuy, buy, hold,
      sell, strongSell}]` (`0m` is this month, `-1m` the one before) newest first, `maxAge`.
      Paged: `trend`.
    - `upgrades-downgrades` -> upgradeDowngradeHistory: `history` `[{epochGradeDate, firm,
      toGrade, fromGrade, action, priceTargetAction, currentPriceTarget, priorPriceTarget}]`
      newest first, `maxAge`. Paged: `history`.
    - `earnings-estimate` -> earningsTrend: `trend` `[{period, endDate, growth,
      earningsEstimate, revenueEstimate, epsTrend, epsRevisions, ...}]`, `maxAge`
      `defaultMethodology` (the EPS basis, e.g. `nongaap`). Paged: `trend`.
    - `earnings-history` -> earningsHistory: `history` `[{quarter, period, currency,
      epsActual, epsEstimate, epsDifference, surprisePercent, maxAge}]` oldest first,
      `maxAge`, `defaultMethodology`. Paged: `history`.

    `fields` selects top-level members (a requested member is present even when null).
    `cursor`/`limit` page the type's list member: it becomes a connection `{edges, nodes,
    pageInfo}` while the other members stay as they are; with neither it is the bare
    array. 404 when the symbol is malformed or unknown, or when Yahoo has no data of that
    type for it (`No ... data found for SYM`: Yahoo's 404 for the module, an empty list, or
    only placeholder rows); 400 for an unknown type or a bad `cursor`/`limit`/`order`,
    before any upstream call.

    `order` (`asc` oldest first, `desc` newest first) orders a time-ordered type's list in
    time: `recommendations` `trend` and `upgrades-downgrades` `history` (without it newest
    first, `order=desc`) and `earnings-history` `history` (without it oldest first,
    `order=asc`); it has no effect on the other types. The other order is the list
    reversed. Cursors carry their walk's order: a cursor used with the other `order` is a
    400."""

    endpoint = ANALYSIS
    query_serializer = V2AnalysisQuery
    path_choices = {"type": v2.ANALYSIS_TYPES}
    response_schema = V2_ANALYSIS_RESPONSE
    operation_id, tag = "get_analysis_v2", "Analysis (v2)"
    summary = "Analyst data for a stock"
