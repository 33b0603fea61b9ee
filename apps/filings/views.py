"""v2 SEC filings: a company's filer id, filings, XBRL facts and insider transactions, and
full-text search."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.tabular import Table
from apps.core.v2 import (
    FieldsQuery,
    V2ApiView,
    connection,
    connection_schema,
    order_note,
    paginate_member,
)
from apps.filings import services
from apps.filings.serializers import (
    DEFAULT_CONCEPTS,
    MAX_SEARCH_FROM,
    V2FactsQuery,
    V2FilingSearchQuery,
    V2FilingsQuery,
    V2InsidersQuery,
    csv_items,
)
from marketdata.records.filings import (
    CompanyFilings,
    ConceptValues,
    DataPoint,
    FilerId,
    Filing,
    FilingSearch,
    SearchHit,
)
from marketdata.records.insiders import (
    MAX_FILINGS,
    MAX_WINDOW_DAYS,
    DerivativeTerms,
    InsiderActivity,
    InsiderTransaction,
    ReportingOwner,
)
from marketdata.records.members import as_json

TAG = "Filings (v2)"
EDGAR = ("From SEC EDGAR (keyless; this service declares `SEC_USER_AGENT` and keeps EDGAR's "
         "10 requests per second). A ticker EDGAR does not list (most funds and ETFs, "
         "indices, foreign listings without US shares, malformed symbols) is a 404.")


@route("v2/filings/<str:symbol>/cik", name="v2-filings-cik")
class V2FilerCikView(V2ApiView):
    __doc__ = ("A ticker's SEC filer id (CIK): `{symbol, cik}`.\n\n" + EDGAR
               + " Share classes may be written with a dot or a dash (`BRK.B`, `BRK-B`).")

    query_serializer = FieldsQuery
    response_schema = record_schema(FilerId, "A ticker's SEC filer id")
    output = record_output(FilerId)
    operation_id, tag = "get_filings_cik", TAG
    summary = "SEC filer id (CIK) of a ticker"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(services.cik_for(symbol))


@route("v2/filings/<str:symbol>", name="v2-filings")
class V2FilingsView(V2ApiView):
    __doc__ = (
        "A company's filer header and recent SEC filings, newest first.\n\n" + EDGAR
        + " The header is EDGAR's (strings; null where EDGAR has none; the insider-"
        "transaction flags as booleans). `filings` holds EDGAR's recent list (the latest "
        "1,000 filings or more, every form), each `{accessionNumber, filingDate, "
        "reportDate, form, primaryDocument, primaryDocDescription, size}`, null where the "
        "filing has no value. `cursor`/`limit` page `filings`; `fields` selects members.\n\n"
        + order_note("desc", "filings"))

    query_serializer = V2FilingsQuery
    response_schema = record_schema(
        CompanyFilings, "A filer and its recent filings; `fields` selects these members",
        required=False, nested={"filings": connection_schema(
            record_schema(Filing, "One filing"),
            "filings, newest first (`order=desc`, the default) or oldest first "
            "(`order=asc`)")})
    csv_table = "filings"
    output = record_output(CompanyFilings, paged=("filings",))
    operation_id, tag = "get_filings", TAG
    summary = "Recent SEC filings of a company"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(services.filer(symbol))


@route("v2/filings/<str:symbol>/facts", name="v2-filings-facts")
class V2CompanyFactsView(V2ApiView):
    __doc__ = (
        "A company's financial facts as reported in XBRL: one item per (concept, unit), "
        "`{concept, label, description, taxonomy, unit, dataPoints}`.\n\n" + EDGAR
        + " Concepts come in the order asked (`concepts`, else the 17 headline concepts); "
        "a concept the company never reported in `taxonomy` is left out (so the answer may "
        "be `[]`, as for a company without XBRL facts). `dataPoints` are in EDGAR's order, "
        "`val` unscaled in `unit`; `form` keeps only the values reported in those forms. "
        "`cursor`/`limit` page every item's `dataPoints` (the same positions); `fields` "
        "selects the members of each item. 400 for a malformed `taxonomy`.")

    query_serializer = V2FactsQuery
    response_schema = {
        "type": "array",
        "items": record_schema(ConceptValues, "One concept in one unit", nested={
            "dataPoints": connection_schema(record_schema(DataPoint, "One reported value"),
                                            "values in EDGAR's order")}),
        "description": "One item per (concept, unit), concepts in the requested order"}
    output = record_output(ConceptValues)
    operation_id, tag = "get_filings_facts", TAG
    summary = "XBRL financial facts of a company"

    def get(self, request: Request, symbol: str) -> Response:
        q = self.params
        items = services.facts(symbol, q["taxonomy"],
                               csv_items(q.get("concepts")) or DEFAULT_CONCEPTS,
                               csv_items(q.get("form")))
        # Every item's values paged alike (the same positions), before `fields`.
        return self.answer([paginate_member(item, "dataPoints", q) for item in as_json(items)])


@route("v2/filings/search", name="v2-filings-search")
class V2FilingSearchView(V2ApiView):
    __doc__ = (
        "Full-text search over SEC filings since 2001: `{totalHits, hits, nextFrom}`.\n\n"
        "From EDGAR's full-text search (keyless). `q` is required (words, or a phrase in "
        "double quotes); `forms` keeps those form types; `startDate`/`endDate` "
        "(`YYYY-MM-DD`) bound the filing date (one alone is completed with 2001-01-01 or "
        "today). Hits come in EDGAR's order (relevance), each `{fileDate, form, adsh, "
        "displayNames, ciks}`; EDGAR serves the first 10,000 hits, 1..100 a page.\n\n"
        "Paging is the v2 lists' cursor connection: with `cursor` or `limit` (hits per "
        "page, default 100), `hits` is `{edges, nodes, pageInfo}` and the next page is "
        "`cursor=<pageInfo.endCursor>` (a cursor past the 10,000th hit gives an empty "
        "page, `totalHits` null, without asking EDGAR); with neither, `hits` is a bare "
        "array. `from` (hits skipped) and `size` (hits per page) stay accepted as the "
        "numeric spellings of `cursor` and `limit` (`from=N` starts where "
        "`cursor` of position N-1 would) and, alone, keep `hits` a bare array; "
        "`nextFrom` is the next page's `from`, null on the last page, in both shapes. "
        "`cursor` wins over `from` and `limit` over `size` when both are given. "
        "400 for a blank `q`, a date that is not `YYYY-MM-DD`, `endDate` before "
        "`startDate`, `from`/`size`/`limit` out of range, or a bad `cursor`, before any "
        "upstream call.")

    query_serializer = V2FilingSearchQuery
    response_schema = record_schema(
        FilingSearch, "One page of full-text search results: `hits` as a bare array without "
        "`cursor`/`limit`, a connection with either (its cursors are the hits' positions in "
        "the whole result)", required=False, nested={"hits": connection_schema(
            record_schema(SearchHit, "One matching filing document"),
            "hits, in EDGAR's order (relevance)")})
    output = record_output(FilingSearch)
    operation_id, tag = "get_filings_search", TAG
    summary = "Full-text search over SEC filings"

    def get(self, request: Request) -> Response:
        q = self.params
        offset = q["offset"]
        if offset > MAX_SEARCH_FROM:  # a cursor past what EDGAR serves: an empty page
            found = FilingSearch(total_hits=None, hits=[])
        else:
            found = services.search(q["q"], csv_items(q.get("forms")), q.get("startDate"),
                                    q.get("endDate"), offset, q["size"])
        if not q["connection"]:
            return self.answer(found)
        body = as_json(found)
        return self.answer({**body, "hits": connection(body["hits"], offset,
                                                       found.next_from is not None)})


OWNER_SCHEMA = record_schema(ReportingOwner, "A reporting owner")


@route("v2/filings/<str:symbol>/insiders", name="v2-filings-insiders")
class V2InsidersView(V2ApiView):
    __doc__ = (
        "Insider transactions of a company: what its directors, officers and 10 % owners "
        "reported on SEC Forms 4 and 5 (and their `/A` amendments), one item per "
        "transaction row, with a `summary` of the window.\n\n" + EDGAR
        + " Each filing's XML ownership document is read (cached 30 days: a filed "
        "document never changes). Form 3 (initial holdings) and holdings rows are not "
        "transactions and are not served.\n\n"
        "Each transaction: `{filedAt, accessionNumber, form, originalFiledAt, superseded, "
        "insider {name, cik, relationship {director, officer, officerTitle, "
        "tenPercentOwner, other, otherText}}, owners, transactionDate, deemedExecutionDate, "
        "code, codeMeaning, equitySwap, tradingPlan, securityTitle, shares, price, value, "
        "acquiredOrDisposed, sharesOwnedAfter, direct, natureOfOwnership, derivative, "
        "footnotes}`: `insider` is the first reporting owner (every owner of a joint filing "
        "is in `owners`); `derivative` is null for Table I rows, else `{exercisePrice, "
        "exerciseDate, expirationDate, underlyingSecurity, underlyingShares}`; `footnotes` "
        "the texts the row refers to. Shares in the security's units, prices and values in "
        "USD as reported; the rows of an original filing that an amendment in the answer "
        "amends are `superseded` (listed, not summed).\n\n"
        f"`start`/`end` (transaction dates, default the last 365 days to today, at most "
        f"{MAX_WINDOW_DAYS} days apart), `codes` (the SEC's transaction codes, any case), "
        "`insider` (a CIK or a piece of a name) filter; `summary` is over the rows kept: "
        "purchases (code P) and sales (code S) of non-derivative securities as counts, "
        "shares and USD, their net, and the shares acquired and disposed of under every "
        f"code. At most {MAX_FILINGS} filings are read a request (newest first, within the "
        "request's time): `truncated` and `notices` say what a window holds beyond them, "
        "and filings whose document failed (the answer is then partial). `cursor`/`limit` "
        "page `transactions`; `fields` selects members; `format=csv` gives the "
        "transactions as a table. 400 for a bad date, a window over the limit, an unknown "
        "code, before any upstream call; 404 for a ticker EDGAR does not list; 502/503/504 "
        "naming SEC EDGAR when no filing could be read.\n\n"
        + order_note("desc", "transactions (by transaction date)"))

    query_serializer = V2InsidersQuery
    response_schema = record_schema(
        InsiderActivity, "A company's insider transactions in a window; `fields` selects "
        "these members", required=False, nested={"transactions": connection_schema(
            record_schema(InsiderTransaction, "One transaction row of an ownership filing",
                          nested={"derivative": {
                              **record_schema(DerivativeTerms, "Null for a non-derivative "
                                              "row (Table I); a derivative row's terms "
                                              "(Table II)"),
                              "type": ["object", "null"]},
                                  "owners": {"type": "array", "items": OWNER_SCHEMA,
                                             "description": "Every reporting owner of the "
                                                            "filing, in its order"}}),
            "transactions, newest first (`order=desc`, the default) or oldest first "
            "(`order=asc`)")})
    csv_table = Table("transactions")
    output = record_output(InsiderActivity, paged=("transactions",))
    operation_id, tag = "get_filings_insiders", TAG
    summary = "Insider transactions (SEC Forms 4 and 5) of a company"

    def get(self, request: Request, symbol: str) -> Response:
        q = self.params
        return self.answer(services.insiders(symbol, q["start"], q["end"], q.get("codes"),
                                             q.get("insider")))
