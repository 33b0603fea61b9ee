"""v2 fund holdings: an ETF's or mutual fund's portfolio from its latest SEC N-PORT report."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.tabular import Table
from apps.core.v2 import V2ApiView, connection_schema
from apps.funds.serializers import V2FundHoldingsQuery
from apps.funds.services import holdings_for
from marketdata.records.funds import (
    CategoryWeight,
    CountryWeight,
    FundHolding,
    FundPortfolio,
    SectorWeight,
)

TAG = "Funds (v2)"
HOLDING_SCHEMA = record_schema(FundHolding, "One holding")


def _listed(record: type, description: str) -> dict:
    return {"type": "array", "items": record_schema(record, description)}


PORTFOLIO_SCHEMA = record_schema(
    FundPortfolio, "The fund's portfolio; `fields` selects these members", required=False,
    nested={
        "holdings": connection_schema(HOLDING_SCHEMA, "holdings by `weightPercent`, largest "
                                      "first (`order=desc`, the default) or smallest first "
                                      "(`order=asc`)"),
        "top": _listed(FundHolding, "One of the largest holdings"),
        "countryWeights": _listed(CountryWeight, "One country's weight"),
        "assetCategoryWeights": _listed(CategoryWeight, "One asset category's weight"),
        "sectorWeights": {"type": ["array", "null"], "items": record_schema(
            SectorWeight, "One sector's weight")},
    })


@route("v2/etf/<str:symbol>/holdings", name="v2-etf-holdings")
class V2FundHoldingsView(V2ApiView):
    """A fund's whole portfolio from its latest public SEC N-PORT report (ETFs and mutual
    funds alike): every holding with its identifiers (CUSIP, ISIN, LEI, a ticker where one
    resolves), balance and units, value in US dollars, weight, asset and issuer category,
    country, fair-value level; the top holdings; weights by country and by asset category.

    Source: SEC EDGAR, keyless. The ticker's trust, series and class come from
    `company_tickers_mf.json`, the series' latest N-PORT-P (or its amendment, N-PORT-P/A)
    from EDGAR's filing list of the series, the holdings from the filing's XML. `asOf` is
    the report date (a fiscal quarter's last month end; reports are public about 60 days
    later). Weights are the filing's `pctVal`, percent of the fund's net assets (negative
    for shorts), and the country and category weights are their sums; N-PORT reports no
    sectors (`sectorWeights` null). Where EDGAR has no N-PORT for the ticker (not a
    registered fund it lists, e.g. a grantor trust such as a physical gold ETF, or no
    report filed yet), Yahoo's top holdings answer, with `source: yahoo` and a notice: its
    ten largest positions only, undated, and its sector split. A stock is a 404 saying it
    is not a fund; a malformed symbol a 404 before any upstream call; an EDGAR failure a
    502/503/504 naming the SEC (no fallback: the answer would not be the portfolio).

    `cursor`/`limit` page `holdings`, `order` orders them by weight, `top` sizes `top`,
    `fields` selects members, `format=csv` gives the holdings as a table (the current
    page). Filings are cached 30 days (they never change), the series' filing list 6
    hours, EDGAR's ticker lists a day."""

    query_serializer = V2FundHoldingsQuery
    response_schema = PORTFOLIO_SCHEMA
    output = record_output(FundPortfolio, paged=("holdings",))
    operation_id, tag = "get_etf_holdings", TAG
    summary = "Holdings of an ETF or mutual fund (SEC N-PORT)"
    csv_table = Table("holdings")

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(holdings_for(symbol, self.params["top"]))
