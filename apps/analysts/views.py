"""v2 analyst endpoints: grading actions, price target consensus, price target summary,
earnings surprises."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.analysts.serializers import (
    V2EarningsSurprisesQuery,
    V2GradingActionsQuery,
    V2PriceTargetQuery,
)
from apps.analysts.services import (
    EarningsSurprises,
    ReportedQuarter,
    earnings_surprises,
    grading_actions,
    price_target_consensus,
    price_target_summary,
)
from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView, connection_schema, order_note
from marketdata.records.analysts import GradingAction, PriceTargetConsensus, PriceTargetSummary

TAG = "Analysts (v2)"
_SOURCES = ("Source: Financial Modeling Prep when `FMP_API_KEY` is set; when FMP refuses "
            "the key (401/402/403) or fails, and always without a key, Yahoo Finance. ")
_ERRORS = ("404 when the symbol is malformed or unknown, or when the source has no such data "
           "for it (funds, indices, thinly covered stocks); 502/503/504/429 name the "
           "provider that failed.")


@route("v2/grading-actions/<str:symbol>", name="v2-grading-actions")
class V2GradingActionsView(V2ApiView):
    __doc__ = f"""Analyst rating actions on a stock, newest first: `[{{date, symbol,
    gradingCompany, newGrade, previousGrade}}]`.

    {_SOURCES}FMP's `/stable/grades`, or Yahoo's quoteSummary `upgradeDowngradeHistory`
    (the module `/v2/analysis/{{symbol}}/upgrades-downgrades` serves raw). `date` is the
    action's day (YYYY-MM-DD; Yahoo's timestamp read in UTC); grades and firm names are
    the source's own words; `previousGrade` is null when there was none (an initiation).
    Rows of the same day keep the source's order.

    `cursor`/`limit` page the actions (a connection `{{edges, nodes, pageInfo}}`); with
    neither, the bare array of every action. `fields` applies to each action (a requested
    member is present even when null). 400 for a bad `cursor`, `limit` or `order`, before
    any upstream call. {_ERRORS}

    """ + order_note("desc", "actions (`order=asc` is the `desc` list reversed: rows of "
                             "the same day in the reverse of the source's order)")

    query_serializer = V2GradingActionsQuery
    response_schema = connection_schema(
        record_schema(GradingAction, "One analyst rating action (GqlGradingAction)"),
        "grading actions, newest first (`order=desc`, the default) or oldest first "
        "(`order=asc`)")
    operation_id, tag = "get_grading_actions", TAG
    summary = "Analyst grading actions of a stock"

    csv_table = ""
    output = record_output(GradingAction, paged=("",))

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(grading_actions(symbol))


@route("v2/price-target-consensus/<str:symbol>", name="v2-price-target-consensus")
class V2PriceTargetConsensusView(V2ApiView):
    __doc__ = f"""The analysts' price target consensus of a stock: `{{symbol,
    targetConsensus, targetHigh, targetLow, targetMedian}}`, in the stock's trading
    currency.

    {_SOURCES}FMP's `/stable/price-target-consensus` (numbers as FMP sends them), or
    Yahoo's quoteSummary `financialData`: targetMeanPrice -> `targetConsensus`,
    targetHighPrice -> `targetHigh`, targetLowPrice -> `targetLow`, targetMedianPrice ->
    `targetMedian`. A value the source does not have is null. `fields` selects members.
    {_ERRORS}"""

    query_serializer = V2PriceTargetQuery
    response_schema = record_schema(PriceTargetConsensus, "Price target consensus, in the "
                                    "stock's trading currency")
    operation_id, tag = "get_price_target_consensus", TAG
    summary = "Price target consensus of a stock"

    output = record_output(PriceTargetConsensus)

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(price_target_consensus(symbol))


@route("v2/price-target-summary/<str:symbol>", name="v2-price-target-summary")
class V2PriceTargetSummaryView(V2ApiView):
    __doc__ = f"""How many analyst price targets a stock received, and their mean, over the
    last month, quarter, year and all time: `{{symbol, lastMonthCount, lastMonthAvg,
    lastQuarterCount, lastQuarterAvg, lastYearCount, lastYearAvg, allTimeCount,
    allTimeAvg}}`.

    {_SOURCES}FMP's `/stable/price-target-summary` (its `<period>AvgPriceTarget` is
    `<period>Avg`), or computed from Yahoo's rating-change history
    (`upgradeDowngradeHistory`): every entry with a `currentPriceTarget` above 0 and a
    date counts once; the windows are the last 30 (month), 90 (quarter) and 365 (year)
    days back from now (an entry counts when it is at most that many times 24 hours old)
    and all entries (all time); means are rounded half up to 2 decimals. Whatever the
    source, a window without targets has count 0 and a null mean, and a stock without any
    target is a 404. `fields` selects members. {_ERRORS}"""

    query_serializer = V2PriceTargetQuery
    response_schema = record_schema(PriceTargetSummary, "Counts and averages of published "
                                    "analyst price targets")
    operation_id, tag = "get_price_target_summary", TAG
    summary = "Price target summary of a stock"

    output = record_output(PriceTargetSummary)

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(price_target_summary(symbol))


@route("v2/earnings-surprises/<str:symbol>", name="v2-earnings-surprises")
class V2EarningsSurprisesView(V2ApiView):
    __doc__ = """Reported quarters of a stock and how they compared with the analysts' estimate:
    `{surprises: [{symbol, date, actualEps, estimatedEps, surprise, surprisePercent}]}`,
    newest first.

    Sources: Financial Modeling Prep's `/stable/earnings` when `FMP_API_KEY` is set, then
    Alpha Vantage's `EARNINGS` when `ALPHAVANTAGE_API_KEY` is set (each passes on when it
    refuses the key, fails, or has no reported quarter of the symbol), then (keyless)
    Yahoo Finance's quoteSummary `earningsHistory` (the last four reported quarters).
    Whatever the source: `date` is the end of the quarter reported (Yahoo's `quarter`,
    Alpha Vantage's fiscalDateEnding; FMP sends only the report's day, so the calendar
    quarter end before it), `actualEps`/`estimatedEps` the reported and estimated EPS,
    `surprise` the source's own (Yahoo's epsDifference as Yahoo rounds it, Alpha
    Vantage's surprise) or else actualEps - estimatedEps, `surprisePercent` in percent
    units (Yahoo's 0.0205 is 2.05; derived as surprise / |estimatedEps| x 100, null when
    the estimate is missing or 0). Only reported quarters are listed (FMP's and Alpha
    Vantage's future rows without an actual EPS are left out). A symbol without reported
    quarters, an unknown and a malformed one are 404s. `fields` selects `surprises`. Not
    paged. 400 for a bad `order`, before any upstream call.

    """ + order_note("desc", "reported quarters")

    query_serializer = V2EarningsSurprisesQuery
    response_schema = record_schema(
        EarningsSurprises, "`fields` selects `surprises`", required=False, nested={
            "surprises": {"type": "array", "description": "Reported quarters, newest first "
                          "(`order=desc`, the default) or oldest first (`order=asc`)",
                          "items": record_schema(ReportedQuarter)}})
    csv_table = "surprises"
    output = record_output(EarningsSurprises, ordered=("surprises",))
    operation_id, tag = "get_earnings_surprises", TAG
    summary = "Earnings surprises of a stock"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(earnings_surprises(symbol))
