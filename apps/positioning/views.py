"""v2 weekly positioning: GET /v2/positioning/cot/{symbol}."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView, connection_schema, order_note
from apps.positioning.serializers import V2CotQuery
from apps.positioning.services import cot_for
from marketdata.records.macro import (
    CONTRACTS,
    COT_WEEKS,
    DISAGGREGATED,
    LEGACY,
    LEGACY_NULL_MEMBERS,
    Commitments,
    CommitmentsObservation,
)

TAG = "Positioning (v2)"


def _roots(report_name: str) -> str:
    return ", ".join(f"{c.root} {c.code}" for c in CONTRACTS.values()
                     if c.report.name == report_name)


@route("v2/positioning/cot/<str:symbol>", name="v2-positioning-cot")
class V2CotView(V2ApiView):
    __doc__ = f"""Weekly positioning of one futures contract: the CFTC Commitments of
    Traders, futures only, as `{{symbol, contractMarketCode, marketAndExchangeName,
    observations}}`.

    Source: CFTC Public Reporting (Socrata), no key. Physical commodities come from the
    {DISAGGREGATED.title} (dataset `{DISAGGREGATED.dataset}`), which has every member.
    Contracts without disaggregated rows (financial futures: equity indices, rates,
    currencies, crypto) come from the {LEGACY.title} (dataset `{LEGACY.dataset}`):
    `openInterest`, `totalReportableLong/Short` and `nonreportableLong/Short` are filled,
    and {", ".join(f"`{m}`" for m in LEGACY_NULL_MEMBERS)} are null (the legacy
    commercial / non-commercial categories have no member here).

    `symbol`: a CFTC contract market code (six characters, digits and capitals, starting
    with a digit: `088691`, `13874A`; case-insensitive) or a futures root of the curated
    table. Disaggregated: {_roots(DISAGGREGATED.name)}. Legacy: {_roots(LEGACY.name)}.
    A root or code of the table asks its own report first; a code outside the table asks
    the disaggregated report first; the other report is asked when the first has no rows.

    `observations`: the newest {COT_WEEKS} weekly reports (five years, fewer for younger
    contracts), **oldest first**; `reportDate` is the Tuesday the positions are as of
    (`YYYY-MM-DD`; published the Friday after). Positions are numbers of contracts as
    the CFTC reports them; a value the CFTC row does not have is null, never 0.
    `contractMarketCode` and `marketAndExchangeName` are the newest row's. Answers are
    cached for six hours.

    `cursor`/`limit` page the observations (a connection `{{edges, nodes, pageInfo}}`; the
    other members stay as they are); with neither they are a bare array. `fields` selects
    top-level members. 404 for a malformed symbol, a root outside the table (never sent
    upstream) or a code with no rows in either report; 400 for a bad `cursor`/`limit`/
    `order` before any upstream call; 502/503/504/429 name the provider `cftc` when the
    CFTC cannot answer.

    """ + order_note("asc", "observations")

    query_serializer = V2CotQuery
    path_descriptions = {"symbol": "A CFTC contract market code (six characters, e.g. 088691, "
                                   "13874A) or a futures root of the curated table (GC=F, "
                                   "ES=F, ...); anything else is a 404"}
    response_schema = record_schema(
        Commitments, "Weekly positioning; `fields` selects these members", required=False,
        nested={"observations": connection_schema(
            record_schema(CommitmentsObservation, "Commitments observation: positions in "
                          "contracts, as the CFTC reports them; null where the CFTC row has no "
                          "value (never 0)"),
            "weekly observations, oldest first (`order=asc`, the default) or newest first "
            "(`order=desc`)")})
    operation_id, tag = "get_cot", TAG
    summary = "Weekly positioning (Commitments of Traders) of a futures contract"

    csv_table = "observations"
    output = record_output(Commitments, paged=("observations",))

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(cot_for(symbol))
