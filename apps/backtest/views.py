"""POST /v2/backtest/{symbol}: a strategy backtested on the symbol's chart."""

from __future__ import annotations

import json

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.backtest.serializers import (
    BACKTEST_RESPONSE,
    DEFAULT_INTERVAL,
    DEFAULT_RANGE,
    EXAMPLES,
    BacktestRequest,
)
from apps.backtest.services import BacktestAnswer, backtest_answer, run_for_symbol
from apps.core.routing import route
from apps.core.shapes import record_output
from apps.core.v2 import FieldsQuery, V2ApiView
from marketdata.backtest.metrics import RATIO_CAP, VALUE_CAP
from marketdata.backtest.strategies import STRATEGIES

ANSWER = record_output(BacktestAnswer)


def _defaults(cls: type) -> str:
    return ", ".join(f"{k} {json.dumps(v)}" for k, v in cls.defaults.items()) or "none"


# Indented like the docstring's other lines, so the description dedents as one block.
_STRATEGIES = "\n".join(f"    - `{name}` ({cls.title}): {cls.summary}; defaults "
                        f"{_defaults(cls)}." for name, cls in STRATEGIES.items())


@route("v2/backtest/<str:symbol>", name="v2-backtest")
@extend_schema(examples=EXAMPLES)
class V2BacktestView(V2ApiView):
    __doc__ = f"""Backtest a prebuilt strategy on one symbol's chart (GqlBacktestResult).

    The candles are exactly those `/v2/chart/{{symbol}}` returns for `interval` (default
    {DEFAULT_INTERVAL}) and `range` (default {DEFAULT_RANGE}): Yahoo's OHLC, split-adjusted as
    Yahoo sends them, through the same cache entry (a backtest after a chart, or a second
    backtest, makes no upstream call). Dividends going ex within the window (the chart's
    events) are credited to the position held over the previous close.

    Strategies (`strategy`, required):

{_STRATEGIES}

    Semantics: a signal is decided on a bar's close and fills at the next bar's open; a
    signal on the last bar is recorded, not executed; a position still open at the end is
    closed at the last close. Crossings: above = `<=` on the previous bar and `>` on this
    one (below: `>=` then `<`). Long only unless `allowShort` (a short signal then closes
    the long only). Quantity is fractional: `positionSizePct` x `maxLeverage` of the cash,
    after reserving the entry commission. Every fill pays `commissionPct` of its value and
    is moved `slippagePct` against the trader. `stopLossPct` / `takeProfitPct` (from the
    entry price) are checked on every bar's low/high, filled at the level or at the open
    when the bar opens beyond it, the stop first when both are hit. Borrowed cash pays
    `marginInterestRate`, a short `shortBorrowRate` (annual rates, a share per bar at each
    close); a position whose equity falls below `maintenanceMarginPct` of its value is
    closed at that close. The full rules: marketdata/backtest/README.md.

    Units: `params` members ending in `Pct` are fractions (0.001 = 0.1 %); result members
    ending in `Pct` are percentages (5.0 = 5 %); `winRate` and `kellyCriterion` are
    fractions; trade durations and `maxIdlePeriod` are seconds, `maxDrawdownDuration` bars.
    Every number is finite: a ratio with nothing below its line (no losses, no downside)
    is {RATIO_CAP:,.0f}, ratios are clipped to +/-{RATIO_CAP:,.0f}, other values to
    +/-{VALUE_CAP:,.0f}.

    `equityCurve` (one point per bar, at its close) and `trades` are bare arrays unless
    their own `equityLimit`/`equityCursor` or `tradesLimit`/`tradesCursor` are given, then
    connections. `fields` (in the body, or the query's) selects top-level members.
    `diagnostics` explains a run without trades (warm-up longer than the chart, conditions
    never met, signals not filled) and names ignored params.

    Errors: a body that is not a JSON object, malformed JSON, an unknown `strategy` (the
    message lists the valid names), a bad, out-of-range or unknown `params` member (named
    `params.<member>`), fastPeriod >= slowPeriod, oversold >= overbought, a bad cursor or
    an incompatible interval and range: 400. GET: 405. Unknown symbol or no candles: 404.
    Upstream failures: 502/503/504/429."""

    query_serializer = FieldsQuery
    body_serializer = BacktestRequest
    response_schema = BACKTEST_RESPONSE
    operation_id, tag = "run_backtest", "Backtest (v2)"
    summary = "Backtest a strategy on one symbol"

    def post(self, request: Request, symbol: str) -> Response:
        body = self.body
        name, result = run_for_symbol(symbol, body["setup"], body["interval"], body["range"])
        # ``fields`` of the body, else the query's, selects among the answer's members. Not
        # the view's declared output: OpenAPI would then let every member be null (the
        # rule for answers that may lack one), and this one has them all.
        self.params = {**self.params, "fields": body.get("fields") or self.params.get("fields")}
        return self.answer(backtest_answer(name, result, body), ANSWER)
