"""v2 risk metrics of one symbol."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView
from apps.risk.serializers import V2RiskQuery
from apps.risk.services import RiskAnswer, risk_for


@route("v2/risk/<str:symbol>", name="v2-risk")
class V2RiskView(V2ApiView):
    """Risk metrics of one symbol's returns over `range` at `interval`, optionally against
    a `benchmark`.

    Returns are simple returns between consecutive bars of the chart `/v2/chart` serves for
    the same interval and range: of the adjusted close for daily and longer bars (splits and
    dividends folded in), of the close for intraday bars, or when either series lacks
    adjusted closes. Metrics are annualised with `periodsPerYear` bars a year: 252 sessions
    for 1d (365 for crypto), 252/5 for 5d, 52 for 1wk, 12 for 1mo, 4 for 3mo; intraday bars
    count sessions x ceil(regular-session minutes / bar minutes), the session being that of
    the listing's main exchange (US 390 minutes; 24 hours for crypto and currency pairs).

    Against a benchmark, the two series are matched bar by bar (the same session date in
    each exchange's time zone for daily and longer bars, the same timestamp intraday) and
    the relative metrics use the returns between consecutive common bars only.

    Units: every metric is a fraction (0.05 = 5 %) or a plain ratio, except `ulcerIndex`
    (percent) and `maxDrawdownRecoveryPeriods` (bars). VaR and CVaR are 1-period losses,
    positive for a loss. A metric with a zero denominator (no losing return for `omega`,
    no drawdown for `calmar`) is null: JSON has no infinity.

    Errors: fewer than 2 returns in the window is a 400; an unknown symbol a 404, an unknown
    benchmark a 404 naming the benchmark; interval/range combinations as `/v2/chart` (range
    max needs interval 1mo or 3mo; intraday intervals only for the ranges Yahoo keeps)."""

    query_serializer = V2RiskQuery
    response_schema = record_schema(
        RiskAnswer, "Risk metrics of one symbol over `range` at `interval` (formulas: README, "
        "\"Risk metrics\"); `fields` selects these members")
    output = record_output(RiskAnswer)
    operation_id, tag = "get_risk", "Risk (v2)"
    summary = "Risk metrics of one symbol"

    def get(self, request: Request, symbol: str) -> Response:
        q = self.params
        return self.answer(risk_for(symbol, q["interval"], q["range"], q.get("benchmark")))
