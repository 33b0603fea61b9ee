"""EDGAR's route table and its simulated provider (hosts ``www.sec.gov``,
``data.sec.gov`` and ``efts.sec.gov``).

| Path | Answer |
| --- | --- |
| ``GET /files/company_tickers.json`` | the ticker list |
| ``GET /files/company_tickers_mf.json`` | the funds' share classes (``nport.py``) |
| ``GET /cgi-bin/browse-edgar?action=getcompany&CIK=S...`` | a fund series' filings (Atom) |
| ``GET /submissions/CIK##########.json`` | a filer's submissions (404 XML otherwise) |
| ``GET /submissions/CIK##########-submissions-NNN.json`` | an older page of a filing list |
| ``GET /api/xbrl/companyfacts/CIK##########.json`` | the company's XBRL facts (404 XML otherwise) |
| ``GET /LATEST/search-index?q=...`` | full-text search (efts.sec.gov; 400 without ``q``) |
| ``GET /Archives/edgar/data/{cik}/{folder}/{accession}-index.htm`` | the filing index page |
| ``GET /Archives/edgar/data/{cik}/{folder}/index.json`` | the folder listing |
| ``GET /Archives/edgar/data/{cik}/{folder}/{file}.xml`` | a Form 4's raw XML ownership document |
| ``GET /Archives/edgar/data/{cik}/{folder}/{document}`` | a filed document (a fund's
  N-PORT report: ``primary_doc.xml``) |
| ``GET /files/data/fails-deliver-data/cnsfails{YYYYMM}{a|b}.zip`` | a fails-to-deliver zip |

A filing exists once the sandbox clock has reached its filing date; anything else is
EDGAR's 404 page. Like EDGAR, a request whose User-Agent declares no contact (no ``@``:
missing, a browser's or a library's default) gets the 403 "Undeclared Automated Tool" page.
"""

from __future__ import annotations

import re
from datetime import date

from marketdata.records.disclosures import HalfMonth
from marketdata.sandbox.common import BASE_HEADERS, Request, json_response, text_response
from marketdata.sandbox.feeds import documents as feeds
from marketdata.sandbox.providers import Handler, Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.sec import documents, facts, fails, insiders, nport, thirteenf
from marketdata.sandbox.sec.companies import company
from marketdata.sandbox.sec.filings import find_filing, recent_filings

HOSTS = ("www.sec.gov", "data.sec.gov", "efts.sec.gov")
HTML_TYPE = "text/html"


def _page(title: str, text: str, status: int) -> SandboxResponse:
    body = (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<title>SEC.gov | {title}</title>\n"
            f"</head>\n<body>\n<h1>{title}</h1>\n<p>{text}</p>\n</body>\n</html>\n")
    return text_response(body, status, content_type=HTML_TYPE)


def not_found() -> SandboxResponse:
    return _page("Page Not Found", "The page you requested could not be found.", 404)


def _no_such_key() -> SandboxResponse:
    body = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code>'
            "<Message>The specified key does not exist.</Message></Error>")
    return text_response(body, 404, content_type="application/xml")


def _undeclared(req: Request) -> SandboxResponse | None:
    if "@" not in req.headers.get("user-agent", ""):
        return _page("Request Rate Threshold Exceeded",
                     "Your Request Originates from an Undeclared Automated Tool. To allow "
                     "for equitable access to all users, SEC reserves the right to limit "
                     "requests originating from undeclared automated tools. Please declare "
                     "your traffic by updating your user agent to include company specific "
                     "information.", 403)
    return None


def _checked(handler: Handler) -> Handler:
    def run(req: Request) -> SandboxResponse:
        return _undeclared(req) or handler(req)

    return run


def handle_company_tickers(req: Request) -> SandboxResponse:
    return json_response(documents.company_tickers())


def handle_fund_tickers(req: Request) -> SandboxResponse:
    return json_response(nport.fund_tickers())


def handle_browse(req: Request) -> SandboxResponse:
    """``/cgi-bin/browse-edgar``: a series' filings (``action=getcompany`` with a series id
    as ``CIK``, ``output=atom``); the SEC's current-filings feed otherwise."""
    if req.arg("action") != "getcompany":
        return feeds.handle_feed(req)
    series = (req.arg("CIK") or "").strip().upper()
    count = req.int_arg("count", 40)
    feed = nport.filing_list(series, req.arg("type") or "", max(1, min(count or 40, 100)),
                             req.clock().date()) if series.startswith("S") else None
    if feed is None:
        return _page("No matching CIK", "No matching CIK.", 404)
    return SandboxResponse(200, {"Content-Type": "application/atom+xml", **BASE_HEADERS},
                           feed.encode("latin-1", errors="replace"))


def handle_fund_archive(req: Request, cik: int, folder: str, name: str) -> SandboxResponse:
    report = nport.find_report(cik, folder, req.clock().date())
    if report is None:
        return not_found()
    if name == "primary_doc.xml":
        return SandboxResponse(200, {"Content-Type": "text/xml", **BASE_HEADERS},
                               nport.document(report.series.series_id, report.period,
                                              report.amendment))
    if name == f"{report.accession}-index.htm":
        return text_response(nport.index_page(report), content_type=HTML_TYPE)
    return not_found()


def handle_submissions(req: Request) -> SandboxResponse:
    cik, today = int(req.params["cik"]), req.clock().date()
    manager, found = thirteenf.manager(cik), company(cik)
    if found is not None:
        body = documents.submissions(found, recent_filings(found.cik, today))
        return json_response(body if manager is None
                             else thirteenf.with_reports(body, manager, today))
    if manager is not None:
        return json_response(thirteenf.submissions(manager, today))
    return _no_such_key()


def handle_submissions_page(req: Request) -> SandboxResponse:
    manager = thirteenf.manager(int(req.params["cik"]))
    page = thirteenf.history_page(manager, req.params["page"], req.clock().date()) \
        if manager is not None else None
    return _no_such_key() if page is None else json_response(page)


def handle_company_facts(req: Request) -> SandboxResponse:
    found = company(int(req.params["cik"]))
    if found is None:
        return _no_such_key()
    return json_response(facts.company_facts(found, req.clock().date()))


def _day(text: str | None) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def handle_search(req: Request) -> SandboxResponse:
    query = (req.arg("q") or "").strip()
    if not query:
        return json_response({"error": "q is required"}, 400)
    start, end = None, None
    if req.arg("dateRange") == "custom":
        start, end = _day(req.arg("startdt")), _day(req.arg("enddt"))
        if start is None or end is None:
            return json_response({"error": "startdt and enddt must be YYYY-MM-DD"}, 400)
    offset, size = req.int_arg("from", 0), req.int_arg("size", 100)
    if offset is None or size is None or offset < 0 or size < 0:
        return json_response({"error": "from and size must be non-negative integers"}, 400)
    forms = [f.strip() for f in (req.arg("forms") or "").split(",") if f.strip()]
    if forms and all(f.upper().startswith("13F") for f in forms):
        # The managers' 13F filings (the companies file none); a phrase's quotes dropped.
        return json_response(thirteenf.search(facts.terms(query), forms, offset, size,
                                              req.clock().date()))
    return json_response(facts.search(query, forms, start, end, offset, size,
                                      req.clock().date()))


def handle_13f_archive(req: Request, manager: thirteenf.Manager) -> SandboxResponse | None:
    """A 13F filing's index or document; None when the path names none of the manager's
    13F filings (a listed company's other filings are the company's)."""
    folder, name = req.params["folder"], req.params["name"]
    accession = name.removesuffix("-index.htm") if name.endswith("-index.htm") \
        else f"{folder[:10]}-{folder[10:12]}-{folder[12:]}"
    report = thirteenf.find_report(manager, accession, req.clock().date())
    if report is None or report.folder != folder:
        return None
    if name.endswith("-index.htm"):
        return text_response(documents.index_page(manager, report.filing()),
                             content_type=HTML_TYPE)
    if name == "index.json":
        return json_response(documents.folder_listing(report.filing()))
    doc = thirteenf.document(report, name)
    if doc is None:
        return not_found()
    body, content_type = doc
    return text_response(body, content_type=content_type)


def handle_archive(req: Request) -> SandboxResponse:
    cik, folder, name = int(req.params["cik"]), req.params["folder"], req.params["name"]
    if nport.is_fund_cik(cik):
        return handle_fund_archive(req, cik, folder, name)
    manager = thirteenf.manager(cik)
    answer = handle_13f_archive(req, manager) if manager is not None else None
    if answer is not None:
        return answer
    found = company(cik)
    if found is None:
        return not_found()
    if name.endswith("-index.htm"):
        accession = name.removesuffix("-index.htm")
    else:
        accession = f"{folder[:10]}-{folder[10:12]}-{folder[12:]}"
    filing = find_filing(cik, accession, req.clock().date())
    if filing is None or filing.folder != folder:
        return not_found()
    if name.endswith("-index.htm"):
        return text_response(documents.index_page(found, filing), content_type=HTML_TYPE)
    if name == "index.json":
        return json_response(documents.folder_listing(filing))
    doc = documents.document(found, filing, name)
    if doc is None:
        return not_found()
    body, content_type = doc
    return text_response(body, content_type=content_type)


def handle_xml_document(req: Request) -> SandboxResponse:
    """A Form 4's raw ownership XML, else whatever the folder holds under that name."""
    return insiders.ownership_document(req) or handle_archive(req)


def handle_fails_file(req: Request) -> SandboxResponse:
    year, month = int(req.params["month"][:4]), int(req.params["month"][4:])
    if not 1993 <= year <= 9999 or not 1 <= month <= 12:
        return not_found()
    period = HalfMonth(year, month, req.params["half"])
    if not fails.published(period, req.clock().date()):
        return not_found()
    return SandboxResponse(200, {"Content-Type": "application/zip", **BASE_HEADERS},
                           fails.zipped(period))


ROUTES = (
    Route(("GET",), re.compile(r"/files/company_tickers\.json"),
          _checked(handle_company_tickers)),
    Route(("GET",), re.compile(r"/files/company_tickers_mf\.json"),
          _checked(handle_fund_tickers)),
    Route(("GET",), re.compile(r"/submissions/CIK(?P<cik>\d{10})\.json"),
          _checked(handle_submissions)),
    Route(("GET",), re.compile(r"/submissions/CIK(?P<cik>\d{10})-submissions-(?P<page>\d{3})"
                               r"\.json"), _checked(handle_submissions_page)),
    Route(("GET",), re.compile(r"/files/data/fails-deliver-data/cnsfails(?P<month>\d{6})"
                               r"(?P<half>[ab])\.zip"), _checked(handle_fails_file)),
    Route(("GET",), re.compile(r"/api/xbrl/companyfacts/CIK(?P<cik>\d{10})\.json"),
          _checked(handle_company_facts)),
    Route(("GET",), re.compile(r"/LATEST/search-index"), _checked(handle_search)),
    Route(("GET",), re.compile(r"/Archives/edgar/data/(?P<cik>\d{1,10})/(?P<folder>\d{18})/"
                               r"(?P<name>[A-Za-z0-9._-]+\.xml)"),
          _checked(handle_xml_document)),
    Route(("GET",), re.compile(r"/Archives/edgar/data/(?P<cik>\d{1,10})/(?P<folder>\d{18})/"
                               r"(?P<name>.+)"), _checked(handle_archive)),
    # The SEC's two RSS/Atom feeds of /v2/feeds (documents in the feeds sandbox).
    Route(("GET",), re.compile(r"/news/pressreleases\.rss"), _checked(feeds.handle_feed)),
    Route(("GET",), re.compile(r"/cgi-bin/browse-edgar"), _checked(handle_browse)),
)


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    return _page(code, description, status)


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """EDGAR: stateless; the clock decides which filings exist."""
    return SimulatedProvider(name="sec", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=not_found)
