"""GET /v2/press-releases/{symbol}: SEC EDGAR without a key (8-K EX-99 exhibits), FMP with
one, the key fallback, `limit` and `fields`, every error status, the OpenAPI operation,
the in-process sandbox and a hypothesis property over `limit`.

EDGAR's submissions come from the real AAPL recording. No recording exists of the ticker
list, filing index pages or exhibits: they are hand-made in EDGAR's real shapes (the
index page's ``table.tableFile``; an exhibit with a bold headline), generated per
accession number by `responses` callbacks. FMP bodies are hand-written in FMP's documented
``/stable/news/press-releases`` shape.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from datetime import UTC, date, datetime
from typing import Any

import pytest
import requests
import responses
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from marketdata import capabilities
from marketdata.providers import fmp, sec
from tests.apps.payloads import FAILURES, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.conftest import capture_logs

KEY = "fmp-k3y-0123456789abcdefPRESS"
STABLE = "https://financialmodelingprep.com/stable"
SUBMISSIONS = "sec/edgar-submissions/CIK0000320193-finance-query.json"
MEMBERS = ["date", "symbol", "title", "text"]
TICKERS = {
    "0": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."},
    "1": {"cik_str": 1067983, "ticker": "BRK-B", "title": "BERKSHIRE HATHAWAY INC"},
    "2": {"cik_str": 1234567, "ticker": "QUIET", "title": "Quiet Corp"},
}
INDEX = re.compile(re.escape(sec.ARCHIVES_URL) + r"/(\d+)/(\d{18})/([\d-]+)-index\.htm")
# Any document but the index page (`responses` uses overlapping matches in turn).
DOCUMENT = re.compile(re.escape(sec.ARCHIVES_URL) + r"/(\d+)/(\d{18})/(?!\S*-index\.htm)"
                      r"([^/]+\.htm)$")
FMP_RELEASES = [
    {"symbol": "AAPL", "publishedDate": "2025-01-30 16:30:00", "publisher": "Business Wire",
     "title": "Apple reports first quarter results", "image": "https://x.example/i.jpg",
     "site": "businesswire.com", "text": "CUPERTINO, Calif. -- Apple today announced...",
     "url": "https://x.example/1"},
    {"symbol": "AAPL", "publishedDate": "2025-01-02 09:00:00", "publisher": "Business Wire",
     "title": "Apple to announce results", "image": None, "site": "businesswire.com",
     "text": "Apple will announce...", "url": "https://x.example/2"},
]
INVALID_KEY = {"Error Message": "Invalid API KEY. Feel free to create a Free API Key or "
                                "visit https://site.financialmodelingprep.com/faqs for more."}


def index_page(accession: str, documents: list[tuple[str, str]]) -> str:
    """A filing's -index.htm in EDGAR's shape."""
    folder = f"/Archives/edgar/data/320193/{accession.replace('-', '')}"
    rows = "".join(
        f'<tr><td scope="row">{seq}</td><td scope="row">{kind}</td><td scope="row">'
        f'<a href="{folder}/{name}">{name}</a></td><td scope="row">{kind}</td>'
        f'<td scope="row">1000</td></tr>' for seq, (kind, name) in enumerate(documents, 1))
    return ('<html><body><table class="tableFile" summary="Document Format Files"><tr>'
            '<th scope="col">Seq</th><th scope="col">Description</th><th scope="col">'
            'Document</th><th scope="col">Type</th><th scope="col">Size</th></tr>'
            f"{rows}</table></body></html>")


def release_title(accession: str) -> str:
    return f"Apple announces news {accession}"


def release_page(accession: str) -> str:
    return ('<html><body><p><b>Exhibit 99.1</b></p><p style="text-align:center"><span '
            f'style="font-weight:700">{release_title(accession)}</span></p>'
            "<p>CUPERTINO, CALIFORNIA - Apple today announced news.</p></body></html>")


class Edgar:
    """EDGAR over `responses`: the ticker list, the AAPL submissions recording, and one
    EX-99.1 release per filing (``missing``: filings without one; ``failing``: accession
    -> exception or status of its exhibit)."""

    def __init__(self, mock: responses.RequestsMock, submissions: Any) -> None:
        self.mock = mock
        self.submissions = submissions
        self.missing: set[str] = set()
        self.failing: dict[str, Any] = {}
        mock.get(sec.TICKERS_URL, json=TICKERS)
        mock.get(sec.SUBMISSIONS_URL.format(cik=320193), json=submissions)
        mock.add_callback(responses.GET, INDEX, callback=self._index)
        mock.add_callback(responses.GET, DOCUMENT, callback=self._document)

    def _index(self, request: Any) -> tuple[int, dict[str, str], str]:
        accession = INDEX.match(request.url).group(3)
        documents = [("8-K", "primary.htm")]
        if accession not in self.missing:
            documents += [("EX-99.2", "slides.htm"), ("EX-99.1", f"r{accession}.htm")]
        return 200, {"Content-Type": "text/html"}, index_page(accession, documents)

    def _document(self, request: Any) -> tuple[int, dict[str, str], str]:
        name = DOCUMENT.match(request.url).group(3)
        accession = name.removeprefix("r").removesuffix(".htm")
        failure = self.failing.get(accession)
        if isinstance(failure, Exception):
            raise failure
        if failure is not None:
            return failure, {"Content-Type": "text/html"}, "<html>error</html>"
        return 200, {"Content-Type": "text/html"}, release_page(accession)

    def eight_ks(self) -> list[dict[str, Any]]:
        return sec.parse_submissions(self.submissions)

    def calls(self, fragment: str = "sec.gov") -> list[Any]:
        return [c for c in self.mock.calls if fragment in c.request.url]


@pytest.fixture(autouse=True)
def _fast_and_unpaced(settings, monkeypatch):
    settings.FMP_API_KEY = ""
    capabilities.reset_warnings()
    monkeypatch.setattr(sec, "PACER", sec.RequestPacer(None))
    for module, cls in ((sec, sec.SecProvider), (fmp, fmp.FmpProvider)):
        monkeypatch.setattr(cls, "config", dataclasses.replace(
            module.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001))


@pytest.fixture
def edgar(yahoo, recording):
    return Edgar(yahoo.mock, recording(SUBMISSIONS))


@pytest.fixture
def keyed(settings):
    settings.FMP_API_KEY = KEY
    return settings


def assert_api_error(response, status: int) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and isinstance(body["error"], str) and body["error"]
    return body


def expected(filings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"date": f["date"], "symbol": "AAPL", "title": release_title(f["accession"]),
             "text": f"{release_title(f['accession'])}\nCUPERTINO, CALIFORNIA - Apple today "
                     "announced news."} for f in filings]


# -- EDGAR ------------------------------------------------------------------------------------
def test_latest_ten_releases_from_edgar(api, edgar, settings):
    settings.SEC_USER_AGENT = "Example Research ops@example.com"
    response = api.get("/v2/press-releases/aapl")
    assert response.status_code == 200, response.content
    body = response.json()
    filings = edgar.eight_ks()[:10]
    assert body == expected(filings)
    assert [r["date"] for r in body][:3] == ["2026-04-30", "2026-04-20", "2026-02-24"]
    assert all(list(r) == MEMBERS for r in body)
    # One ticker list, one submissions list, then an index and an exhibit per filing.
    assert len(edgar.calls("company_tickers")) == 1 and len(edgar.calls("/submissions/")) == 1
    assert len(edgar.calls("-index.htm")) == 10 and len(edgar.calls("/r0")) == 10
    assert not edgar.calls("slides.htm"), "only the lowest-numbered EX-99 is read"
    agents = {c.request.headers["User-Agent"] for c in edgar.calls()}
    assert agents == {"Example Research ops@example.com"}


def test_limit_is_the_maximum_number_of_releases(api, edgar):
    body = api.get("/v2/press-releases/AAPL?limit=3").json()
    assert body == expected(edgar.eight_ks()[:3])
    assert len(edgar.calls("-index.htm")) == 3
    many = api.get("/v2/press-releases/AAPL?limit=100").json()
    assert isinstance(many, list) and len(many) == 100  # a bare array, never a connection
    assert many == expected(edgar.eight_ks()[:100])


def test_filings_without_a_release_are_skipped(api, edgar):
    filings = edgar.eight_ks()
    edgar.missing |= {filings[0]["accession"], filings[2]["accession"]}
    body = api.get("/v2/press-releases/AAPL?limit=4").json()
    assert body == expected([filings[1], filings[3], filings[4], filings[5]])


def test_share_class_spelling(api, yahoo, recording):
    Edgar(yahoo.mock, recording(SUBMISSIONS))
    yahoo.mock.get(sec.SUBMISSIONS_URL.format(cik=1067983), json={"filings": {"recent": {
        "form": ["10-Q"], "accessionNumber": ["0001067983-25-000001"],
        "filingDate": ["2025-05-01"]}}})
    assert api.get("/v2/press-releases/BRK.B").json() == []
    assert api.get("/v2/press-releases/brk-b").json() == []


def test_company_without_press_releases_is_an_empty_list(api, yahoo, recording):
    edgar = Edgar(yahoo.mock, recording(SUBMISSIONS))
    yahoo.mock.get(sec.SUBMISSIONS_URL.format(cik=1234567), json={"filings": {"recent": {
        "form": ["8-K", "8-K", "4"],
        "accessionNumber": ["0001234567-25-000002", "0001234567-25-000001",
                            "0001234567-25-000003"],
        "filingDate": ["2025-05-01", "2025-03-01", "2025-02-01"],
        "items": ["5.07", "1.01,9.01", ""],
        "primaryDocument": ["a.htm", "b.htm", "c.xml"]}, "files": []}})
    edgar.missing.add("0001234567-25-000001")
    response = api.get("/v2/press-releases/QUIET")
    assert response.status_code == 200 and response.json() == []
    # The 5.07 filing (no item 9.01) is never opened; the 1.01 one has only its 8-K.
    assert [c.request.url.rsplit("/", 1)[-1] for c in edgar.calls("-index.htm")] == [
        "0001234567-25-000001-index.htm"]


def test_fields_apply_to_each_release(api, edgar):
    body = api.get("/v2/press-releases/AAPL?limit=2&fields=title,date,bogus").json()
    assert [list(r) for r in body] == [["date", "title"], ["date", "title"]]
    assert list(api.get("/v2/press-releases/AAPL?limit=2&fields=bogus").json()[0]) == MEMBERS


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "limit=-1", "limit=abc", "limit=",
                                   "limit=1.5", "limit=1e2"])
def test_bad_limit_is_400_before_any_upstream_call(api, yahoo, query):
    body = assert_api_error(api.get(f"/v2/press-releases/AAPL?{query}"), 400)
    assert "limit" in body["error"]
    assert len(yahoo.mock.calls) == 0


def test_unknown_ticker_is_404(api, edgar):
    body = assert_api_error(api.get("/v2/press-releases/ZZZZ"), 404)
    assert body["error"] == "Symbol not found: 'ZZZZ'"
    assert not edgar.calls("/submissions/")


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_is_404_without_upstream_call(api, yahoo, raw):
    assert_api_error(api.get(f"/v2/press-releases/{raw}"), 404)
    assert len(yahoo.mock.calls) == 0


def test_a_failing_exhibit_is_left_out(api, edgar):
    filings = edgar.eight_ks()
    edgar.failing[filings[1]["accession"]] = 500
    with capture_logs("", logging.INFO) as logs:
        response = api.get("/v2/press-releases/AAPL?limit=10")
    body = response.json()
    assert response.status_code == 200
    assert body == expected([filings[0], *filings[2:11]])
    left_out = [r for r in logs.records() if r.get("message") == "press release filing left out"]
    assert left_out and left_out[0]["accession"] == filings[1]["accession"]
    # A partial answer is kept by no cache (the response cache stores no-store answers
    # never): the repeat is built again, and is partial again while the failure lasts.
    assert response["Cache-Control"] == "no-store"
    assert api.get("/v2/press-releases/AAPL?limit=10")["Cache-Control"] == "no-store"


@pytest.mark.parametrize("failure, status", [
    (500, 502), (requests.exceptions.ConnectionError("refused"), 503),
    (requests.exceptions.ReadTimeout("slow"), 504), (429, 429)])
def test_every_exhibit_failing_is_the_upstream_error(api, edgar, failure, status):
    for filing in edgar.eight_ks():
        edgar.failing[filing["accession"]] = failure
    body = assert_api_error(api.get("/v2/press-releases/AAPL"), status)
    assert body["provider"] == "sec"
    # The first round failed everywhere: no second round.
    assert len(edgar.calls("-index.htm")) <= sec.ROUND_SIZE


@pytest.mark.parametrize("kind", list(FAILURES))
def test_ticker_list_failure(api, yahoo, kind):
    fail_url(yahoo.mock, sec.TICKERS_URL, kind)
    body = assert_api_error(api.get("/v2/press-releases/AAPL"), FAILURES[kind][0])
    assert body["provider"] == "sec"


def test_edgar_refusing_the_user_agent_is_a_502_naming_the_setting(api, yahoo):
    yahoo.mock.get(sec.TICKERS_URL, status=403, body="<html>Undeclared Automated Tool</html>")
    body = assert_api_error(api.get("/v2/press-releases/AAPL"), 502)
    assert "SEC_USER_AGENT" in body["error"]


def test_the_deadline_ends_the_rounds(api, edgar, monkeypatch):
    monkeypatch.setattr(sec, "MIN_ROUND_SECONDS", 10_000.0)
    body = api.get("/v2/press-releases/AAPL?limit=20").json()
    # Only the first round (8 filings) fits; what it found is served.
    assert body == expected(edgar.eight_ks()[:sec.ROUND_SIZE])


def test_scan_budget_bounds_the_filings_looked_at(api, edgar):
    filings = edgar.eight_ks()
    edgar.missing |= {f["accession"] for f in filings}
    assert api.get("/v2/press-releases/AAPL?limit=2").json() == []
    assert len(edgar.calls("-index.htm")) == sec.scan_budget(2) == 14


# -- FMP with a key ---------------------------------------------------------------------------
def test_fmp_with_a_key(api, yahoo, keyed):
    yahoo.get(f"{STABLE}/news/press-releases", FMP_RELEASES)
    body = api.get("/v2/press-releases/AAPL?limit=2").json()
    assert body == [
        {"date": "2025-01-30T16:30:00", "symbol": "AAPL",
         "title": "Apple reports first quarter results",
         "text": "CUPERTINO, Calif. -- Apple today announced..."},
        {"date": "2025-01-02T09:00:00", "symbol": "AAPL", "title": "Apple to announce results",
         "text": "Apple will announce..."}]
    call = next(c for c in yahoo.mock.calls if "financialmodelingprep" in c.request.url)
    assert "symbols=AAPL" in call.request.url and "limit=2" in call.request.url
    assert not [c for c in yahoo.mock.calls if "sec.gov" in c.request.url]


def test_fmp_without_releases_asks_edgar(api, yahoo, recording, keyed):
    edgar = Edgar(yahoo.mock, recording(SUBMISSIONS))
    yahoo.get(f"{STABLE}/news/press-releases", [])
    assert api.get("/v2/press-releases/AAPL?limit=2").json() == expected(edgar.eight_ks()[:2])
    assert_api_error(api.get("/v2/press-releases/ZZZZ"), 404)


@pytest.mark.parametrize("status, body", [(401, INVALID_KEY), (403, INVALID_KEY)])
def test_refused_key_falls_back_warns_once_and_never_leaks(api, yahoo, recording, keyed,
                                                           status, body):
    edgar = Edgar(yahoo.mock, recording(SUBMISSIONS))
    yahoo.get(f"{STABLE}/news/press-releases", {**body, "echo": KEY}, status=status)
    with capture_logs("", logging.DEBUG) as logs:
        first = api.get("/v2/press-releases/AAPL?limit=2")
        second = api.get("/v2/press-releases/AAPL?limit=3")
    assert first.json() == expected(edgar.eight_ks()[:2])
    assert second.json() == expected(edgar.eight_ks()[:3])
    warnings = [r for r in logs.records() if r.get("message") == "provider_key_rejected"]
    assert len(warnings) == 1 and warnings[0]["provider"] == "fmp"
    for text in (logs.text(), first.content.decode(), second.content.decode()):
        assert KEY not in text


@pytest.mark.parametrize("kind", list(FAILURES))
def test_fmp_failure_falls_back_to_edgar(api, yahoo, recording, keyed, kind):
    edgar = Edgar(yahoo.mock, recording(SUBMISSIONS))
    fail_url(yahoo.mock, f"{STABLE}/news/press-releases", kind)
    assert api.get("/v2/press-releases/AAPL?limit=2").json() == expected(edgar.eight_ks()[:2])


def test_both_failing_report_fmp_without_the_key(api, yahoo, keyed):
    yahoo.get(f"{STABLE}/news/press-releases", INVALID_KEY, status=401)
    fail_url(yahoo.mock, sec.TICKERS_URL, "timeout")
    with capture_logs("", logging.DEBUG) as logs:
        response = api.get("/v2/press-releases/AAPL")
    body = assert_api_error(response, 502)
    assert body["provider"] == "fmp"
    assert KEY not in response.content.decode() and KEY not in logs.text()


# -- OpenAPI ----------------------------------------------------------------------------------
def openapi() -> dict[str, Any]:
    """The served document, built once per test process (tests/openapi_validation.py)."""
    from tests.openapi_validation import served_document

    return served_document()


def test_openapi_operation():
    op = openapi()["paths"]["/v2/press-releases/{symbol}"]["get"]
    assert op["operationId"] == "get_press_releases"
    assert op["tags"] == ["Press releases (v2)"]
    params = {p["name"]: p for p in op["parameters"]}
    assert set(params) == {"symbol", "limit", "order", "fields", "format"}
    assert params["limit"]["schema"]["minimum"] == 1
    assert params["limit"]["schema"]["maximum"] == 100
    assert params["limit"]["schema"]["default"] == 10
    assert {"200", "400", "404", "429", "500"} <= op["responses"].keys()
    assert "EDGAR" in op["description"] and "Financial Modeling Prep" in op["description"]


# -- sandbox ----------------------------------------------------------------------------------
SANDBOX_DAY = datetime(2025, 6, 2, 15, 0, tzinfo=UTC)


@pytest.fixture
def frozen_sandbox(sandbox_upstream, monkeypatch):
    monkeypatch.setattr(sandbox_upstream, "clock", lambda: SANDBOX_DAY)
    return sandbox_upstream


def sandbox_releases(ticker: str, today: date) -> list[tuple[str, str]]:
    """(filing date, headline) of the sandbox's 8-K press releases, newest first."""
    from marketdata.sandbox.sec import companies, documents, filings

    company = companies.company(companies.cik_for(ticker))
    return [(f.day.isoformat(), documents.headline(company, f))
            for f in filings.recent_filings(company.cik, today)
            if f.form == "8-K" and f.press_release is not None]


def test_sandbox_end_to_end(api, frozen_sandbox):
    body = api.get("/v2/press-releases/AAPL?limit=12").json()
    assert [(r["date"], r["title"]) for r in body] == \
        sandbox_releases("AAPL", SANDBOX_DAY.date())[:12]
    assert all(r["symbol"] == "AAPL" and "Apple" in r["title"] and r["text"] for r in body)
    assert {e["provider"] for e in frozen_sandbox.request_log} == {"sec"}
    assert api.get("/v2/press-releases/GOOG?limit=1").json()[0]["title"].startswith("Alphabet")


def test_sandbox_foreign_and_quiet_companies_and_unknown_tickers(api, frozen_sandbox):
    from marketdata.sandbox.sec import companies, filings

    quiet = next(t for t in companies.tickers()
                 if filings.is_quiet(companies.company(companies.cik_for(t))))
    assert api.get("/v2/press-releases/BABA").json() == []
    assert api.get(f"/v2/press-releases/{quiet}").json() == []
    assert_api_error(api.get("/v2/press-releases/ZZZZ"), 404)
    assert_api_error(api.get("/v2/press-releases/SPY"), 404)  # a fund: not an EDGAR ticker


def test_sandbox_keyed_source(api, frozen_sandbox, keyed):
    body = api.get("/v2/press-releases/AAPL?limit=3").json()
    assert len(body) == 3 and all(list(r) == MEMBERS for r in body)
    assert {e["provider"] for e in frozen_sandbox.request_log} == {"fmp"}


@hypothesis_settings(max_examples=20, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(limit=st.integers(min_value=1, max_value=100))
def test_limit_property(api, frozen_sandbox, limit):
    """Any limit in 1..100 gives at most that many releases, newest first, the first ones
    of the full list."""
    everything = api.get("/v2/press-releases/MSFT?limit=100").json()
    body = api.get(f"/v2/press-releases/MSFT?limit={limit}").json()
    assert body == everything[:limit]
    assert [r["date"] for r in body] == sorted((r["date"] for r in body), reverse=True)
