"""v2 institutional ownership: a manager's 13F holdings for one quarter, and 13F filers by
name (SEC EDGAR, keyless)."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView, connection_schema
from apps.ownership import services
from apps.ownership.serializers import V2InstitutionalFilersQuery, V2InstitutionalHoldingsQuery
from marketdata.records.institutions import (
    Addition,
    Holding,
    InstitutionalFiler,
    InstitutionalHoldings,
)

TAG = "Filings (v2)"
CIK_PATH = {"cik": {"description": "The manager's SEC Central Index Key: 1 to 10 digits, "
                                   "leading zeros allowed (`1067983`, `0001067983`); "
                                   "anything else is a 400",
                    "pattern": "^[0-9]{1,10}$", "maxLength": 10}}


@route("v2/filings/<str:cik>/13f", name="v2-filings-13f")
class V2InstitutionalHoldingsView(V2ApiView):
    __doc__ = (
        "An institutional investment manager's holdings for one report quarter, from its Form "
        "13F filings: `{cik, name, period, filedAt, accessionNumber, form, amendmentNumber, "
        "amendmentType, valueUnit, additions, totalValue, holdingsCount, periods, "
        "holdings}`.\n\n"
        "From SEC EDGAR (keyless; `SEC_USER_AGENT` declared, at most 10 calls a second): the "
        "manager's filing list, then the report's information table (XML, from May 2013 "
        "on). `period` is the quarter's last day (`2024-06-30`); absent, the latest quarter "
        "reported; `periods` lists every quarter with a report, newest first. The report is "
        "the original 13F-HR or, when one was filed, its latest restatement (13F-HR/A, "
        "`amendmentType` `RESTATEMENT`); the rows of later new-holdings amendments are "
        "added (`additions`).\n\n"
        "**Values are US dollars.** Filings made before 2023-01-03 gave the value column in "
        "thousands of dollars, later ones (whatever quarter they report) rounded to the "
        "dollar: older values are multiplied by 1,000 here, and `valueUnit` (of the report; "
        "each addition has its own) says which unit the filing used. A holding is one table "
        "row `{issuer, cusip, figi, class, value, shares, sharesType, putCall, discretion, "
        "otherManagers, votingSole, votingShared, votingNone}` (a CUSIP may have several rows; "
        "an option row's shares and value are the underlying's). `totalValue` sums the rows.\n\n"
        "`holdings` come largest value first (`order=asc`: smallest first); "
        "`cursor`/`limit` page them (`totalValue` and `holdingsCount` stay the whole "
        "report's); `fields` selects members; `format=csv` gives the holdings as a table. "
        "400 for a CIK that is not 1-10 digits or a `period` that is not a quarter's last "
        "day, before any upstream call; 404 for a CIK EDGAR does not know, a filer without "
        "13F reports, or a quarter without one (the message names the nearest quarters that "
        "have one).")

    query_serializer = V2InstitutionalHoldingsQuery
    path_descriptions = CIK_PATH
    response_schema = record_schema(
        InstitutionalHoldings, "A manager's 13F holdings for one quarter; `fields` selects "
        "these members", nested={
            "additions": {"type": "array", "items": record_schema(
                Addition, "A new-holdings amendment included")},
            "holdings": connection_schema(
                record_schema(Holding, "One information-table row"),
                "holdings, largest value first (`order=desc`, the default) or smallest "
                "first (`order=asc`)")})
    csv_table = "holdings"
    output = record_output(InstitutionalHoldings, paged=("holdings",))
    operation_id, tag = "get_institutional_holdings", TAG
    summary = "13F holdings of an institutional manager"

    def get(self, request: Request, cik: str) -> Response:
        return self.answer(services.holdings(cik, self.params.get("period")))


@route("v2/filings/13f/search", name="v2-filings-13f-search")
class V2InstitutionalFilersView(V2ApiView):
    __doc__ = (
        "Filers of Form 13F holdings reports found by name: `[{cik, name, latestFiledAt}]`, "
        "most relevant first.\n\n"
        "EDGAR has no name search for 13F filers: its full-text search (as "
        "`/v2/filings/search`) is asked for `name` as a phrase in 13F-HR and 13F-HR/A "
        "filings, and the filers of the hits whose EDGAR name holds every word of `name` "
        "(each the start of a word, any case) are the answer, in the order of their first "
        "hit, with the newest filing date among the hits (`latestFiledAt`; the filer's "
        "periods are at `/v2/filings/{cik}/13f`). The first 200 hits are read. A name no "
        "filer matches gives `[]`. `cursor`/`limit` page the filers; `fields` applies to "
        "each. 400 for a missing or blank `name`, or one with characters other than "
        "letters, digits, spaces and `& . , ' ( ) / -`, before any upstream call.")

    query_serializer = V2InstitutionalFilersQuery
    response_schema = connection_schema(
        record_schema(InstitutionalFiler, "A 13F filer"), "filers, most relevant first")
    csv_table = ""
    output = record_output(InstitutionalFiler, paged=("",))
    operation_id, tag = "search_13f_filers", TAG
    summary = "Find 13F filers by name"

    def get(self, request: Request) -> Response:
        return self.answer(services.filers(self.params["name"]))
