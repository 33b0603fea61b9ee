"""v2 SEC filings: a company's filer id, filings and XBRL facts, and full-text search."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.v2 import FieldsQuery, Output, V2ApiView, connection, order_note, paginate_member
from apps.filings import services
from apps.filings.serializers import (
    CIK_MEMBERS,
    CIK_RESPONSE,
    DEFAULT_CONCEPTS,
    FACT_MEMBERS,
    FACTS_RESPONSE,
    FILER_MEMBERS,
    FILINGS_RESPONSE,
    MAX_SEARCH_FROM,
    SEARCH_MEMBERS,
    SEARCH_RESPONSE,
    V2FactsQuery,
    V2FilingSearchQuery,
    V2FilingsQuery,
    csv_items,
)

TAG = "Filings (v2)"
EDGAR = ("From SEC EDGAR (keyless; this service declares `SEC_USER_AGENT` and keeps EDGAR's "
         "10 requests per second). A ticker EDGAR does not list (most funds and ETFs, "
         "indices, foreign listings without US shares, malformed symbols) is a 404.")


class V2FilerCikView(V2ApiView):
    __doc__ = ("A ticker's SEC filer id (CIK): `{symbol, cik}`.\n\n" + EDGAR
               + " Share classes may be written with a dot or a dash (`BRK.B`, `BRK-B`).")

    query_serializer = FieldsQuery
    response_schema = CIK_RESPONSE
    output = Output(CIK_MEMBERS)
    operation_id, tag = "get_filings_cik", TAG
    summary = "SEC filer id (CIK) of a ticker"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(services.cik_for(symbol))


class V2FilingsView(V2ApiView):
    __doc__ = (
        "A company's filer header and recent SEC filings, newest first.\n\n" + EDGAR
        + " The header is EDGAR's (strings; null where EDGAR has none; the insider-"
        "transaction flags as booleans). `filings` holds EDGAR's recent list (the latest "
        "1,000 filings or more, every form), each `{accessionNumber, filingDate, "
        "reportDate, form, size, primaryDocument, primaryDocDescription}`, null where the "
        "filing has no value. `cursor`/`limit` page `filings`; `fields` selects members.\n\n"
        + order_note("desc", "filings"))

    query_serializer = V2FilingsQuery
    response_schema = FILINGS_RESPONSE
    csv_table = "filings"
    output = Output(FILER_MEMBERS, paged=("filings",))
    operation_id, tag = "get_filings", TAG
    summary = "Recent SEC filings of a company"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(services.filer(symbol))


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
    response_schema = FACTS_RESPONSE
    output = Output(FACT_MEMBERS)
    operation_id, tag = "get_filings_facts", TAG
    summary = "XBRL financial facts of a company"

    def get(self, request: Request, symbol: str) -> Response:
        q = self.params
        items = services.facts(symbol, q["taxonomy"],
                               csv_items(q.get("concepts")) or DEFAULT_CONCEPTS,
                               csv_items(q.get("form")))
        return self.answer([paginate_member(item, "dataPoints", q) for item in items])


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
    response_schema = SEARCH_RESPONSE
    output = Output(SEARCH_MEMBERS)
    operation_id, tag = "get_filings_search", TAG
    summary = "Full-text search over SEC filings"

    def get(self, request: Request) -> Response:
        q = self.params
        offset = q["offset"]
        if offset > MAX_SEARCH_FROM:  # a cursor past what EDGAR serves: an empty page
            found = {"totalHits": None, "hits": [], "nextFrom": None}
        else:
            found = services.search(q["q"], csv_items(q.get("forms")), q.get("startDate"),
                                    q.get("endDate"), offset, q["size"])
        if q["connection"]:
            found = {**found, "hits": connection(found["hits"], offset,
                                                 found["nextFrom"] is not None)}
        return self.answer(found)
