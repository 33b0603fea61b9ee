"""GET /v2/press-releases/{symbol}."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView, order_note
from apps.pressreleases.serializers import V2PressReleasesQuery
from apps.pressreleases.services import press_releases
from marketdata.records.companies import PressRelease


@route("v2/press-releases/<str:symbol>", name="v2-press-releases")
class V2PressReleasesView(V2ApiView):
    __doc__ = """A company's latest press releases, newest first: `[{date, symbol, title, text}]`.

    Sources: Financial Modeling Prep when `FMP_API_KEY` is set (a refused key or an FMP
    failure falls back; when FMP has nothing for the symbol, EDGAR is asked too); else SEC
    EDGAR: the press releases a US-listed company furnishes on Form 8-K as `EX-99`
    exhibits. From EDGAR:
    - the ticker is looked up in EDGAR's company list (`BRK-B` and `BRK.B` both work); a
      ticker EDGAR does not list (funds, indices, foreign listings, malformed symbols) is
      a 404;
    - the company's recent 8-K filings (EDGAR's latest 1,000 filings of any form, at least
      a year) are read newest first, and each filing's lowest-numbered `EX-99` exhibit
      (usually EX-99.1) is its release; 8-Ks without one are skipped, and at most
      2 x `limit` + 10 of them are looked at;
    - `date` is the filing date (`YYYY-MM-DD`); `title` is the exhibit's headline (the
      first bold or heading line of three words or more before the body, skipping
      "Exhibit 99.1", "Press release" banners, dates and contact lines; else the first
      such line; else the first sentence, at most 300 characters); `text` is the exhibit's
      plain text, one line per paragraph or table row, whitespace collapsed, cut at
      20,000 characters (marked with `…`);
    - a company without such 8-Ks (foreign issuers file 6-K instead) gives `[]`;
    - EDGAR allows 10 requests per second: a cold request for many releases may return
      fewer than `limit` when the request deadline comes first (the next request
      continues from the cached filings). Filings whose exhibit cannot be read are left
      out; when none can be read, the upstream failure is returned (502/503/504/429).

    `limit` (1..100, default 10) is the maximum number of releases, not paging: the answer
    is always a bare array. `fields` applies to each release. 400 for a `limit` outside
    1..100 or not an integer, or a bad `order`, before any upstream call.

    """ + order_note("desc", "releases (the latest `limit` either way)")

    query_serializer = V2PressReleasesQuery
    response_schema = {
        "type": "array", "items": record_schema(PressRelease, "GqlPressRelease"),
        "description": "Press releases, newest first (`order=desc`, the default) or oldest "
                       "first (`order=asc`); `fields` applies to each"}
    operation_id, tag = "get_press_releases", "Press releases (v2)"
    summary = "Press releases of a company"

    csv_table = ""
    output = record_output(PressRelease, ordered=("",))

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(press_releases(symbol, self.params["limit"]))
