"""The SEC EDGAR and Wikipedia simulators: EDGAR's and Wikipedia's shapes, determinism,
filings that never change once filed, the User-Agent rules, error shapes, and agreement
with the service's own parsers (every sandbox release's headline is what the service
reads as its title)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from marketdata.providers import sec, wikipedia
from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox import index_members as members
from marketdata.sandbox.sec import companies, documents, filings
from marketdata.sandbox.wikipedia import pages

CLOCK = datetime(2025, 6, 2, 15, 0, tzinfo=UTC)
UA = {"user-agent": "Sandbox Tests tests@example.com"}
# data.sec.gov's submissions keys, in EDGAR's order.
SUBMISSION_KEYS = ["cik", "entityType", "sic", "sicDescription", "ownerOrg",
                   "insiderTransactionForOwnerExists", "insiderTransactionForIssuerExists",
                   "name", "tickers", "exchanges", "ein", "lei", "description", "website",
                   "investorWebsite", "category", "fiscalYearEnd", "stateOfIncorporation",
                   "stateOfIncorporationDescription", "addresses", "phone", "flags",
                   "formerNames", "filings"]
RECENT_KEYS = ["accessionNumber", "filingDate", "reportDate", "acceptanceDateTime", "act",
               "form", "fileNumber", "filmNumber", "items", "core_type", "size", "isXBRL",
               "isInlineXBRL", "primaryDocument", "primaryDocDescription"]


def sandbox(clock: datetime = CLOCK, **kwargs) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: clock, **kwargs)


def get(sb: UpstreamSandbox, host: str, path: str, headers: dict | None = None):
    return sb.handle("GET", host, path, {}, UA if headers is None else headers)


def submissions(sb: UpstreamSandbox, cik: int) -> dict:
    response = get(sb, "data.sec.gov", f"/submissions/CIK{cik:010d}.json")
    assert response.status == 200
    return json.loads(response.body)


# -- EDGAR --------------------------------------------------------------------------------------
def test_company_tickers():
    response = get(sandbox(), "www.sec.gov", "/files/company_tickers.json")
    assert response.status == 200 and response.headers["Content-Type"].startswith(
        "application/json")
    rows = json.loads(response.body)
    assert list(rows)[:3] == ["0", "1", "2"]
    assert all(set(row) == {"cik_str", "ticker", "title"} for row in rows.values())
    table = sec.parse_company_tickers(rows)
    assert len(table) == len(companies.tickers()) == 504
    assert table["AAPL"] == 320193 and table["GOOG"] == table["GOOGL"] == 1652044
    assert table["BRK-B"] == 1067983
    assert set(members.sp500()) | set(members.nasdaq100()) <= set(table)
    assert len(set(table.values())) == 503  # Alphabet's two classes share one CIK


def test_submissions_shape_and_order():
    body = submissions(sandbox(), 320193)
    assert list(body) == SUBMISSION_KEYS
    assert body["cik"] == "0000320193" and body["tickers"] == ["AAPL"]
    recent = body["filings"]["recent"]
    assert list(recent) == RECENT_KEYS and body["filings"]["files"] == []
    assert len({len(column) for column in recent.values()}) == 1
    assert recent["filingDate"] == sorted(recent["filingDate"], reverse=True)
    assert max(recent["filingDate"]) <= "2025-06-02"
    assert {"8-K", "10-Q", "10-K", "4"} <= set(recent["form"])
    eight_ks = sec.parse_submissions(body)
    assert eight_ks and all(f["items"] for f in eight_ks)
    assert any(not sec.may_have_exhibits(f) for f in eight_ks)


def test_filings_never_change_once_filed():
    early = submissions(sandbox(datetime(2025, 3, 1, tzinfo=UTC)), 789019)["filings"]["recent"]
    later = submissions(sandbox(datetime(2025, 9, 1, tzinfo=UTC)), 789019)["filings"]["recent"]
    old = list(zip(early["accessionNumber"], early["filingDate"], early["form"], strict=True))
    new = list(zip(later["accessionNumber"], later["filingDate"], later["form"], strict=True))
    assert set(old) <= set(new) and len(new) > len(old)
    assert len({a for a, _, _ in new}) == len(new)


def test_deterministic_across_sandboxes():
    one, two = sandbox(seed=1), sandbox(seed=2)
    for host, path in [("www.sec.gov", "/files/company_tickers.json"),
                       ("data.sec.gov", "/submissions/CIK0001045810.json"),
                       ("en.wikipedia.org", "/wiki/List_of_S&P_500_companies")]:
        assert get(one, host, path).body == get(two, host, path).body


def releases_of(sb: UpstreamSandbox, ticker: str):
    cik = companies.cik_for(ticker)
    for filing in sec.parse_submissions(submissions(sb, cik)):
        if not sec.may_have_exhibits(filing):
            continue
        folder = f"/Archives/edgar/data/{cik}/{filing['accession'].replace('-', '')}"
        index = get(sb, "www.sec.gov", f"{folder}/{filing['accession']}-index.htm")
        assert index.status == 200
        document = sec.press_release_document(sec.parse_filing_index(index.body))
        if document is None:
            continue
        exhibit = get(sb, "www.sec.gov", f"{folder}/{document}")
        assert exhibit.status == 200
        yield filing, sec.read_exhibit(exhibit.body, document)


@pytest.mark.parametrize("ticker", ["AAPL", "MSFT", "JPM", "BF-B", members.sp500()[300]])
def test_every_release_title_is_the_sandbox_headline(ticker):
    sb = sandbox()
    company = companies.company(companies.cik_for(ticker))
    by_accession = {f.accession: f for year in (2023, 2024, 2025)
                    for f in filings.filings_of_year(company.cik, year)}
    found = list(releases_of(sb, ticker))
    assert found
    for filing, release in found:
        headline = documents.headline(company, by_accession[filing["accession"]])
        assert release["title"] == headline
        assert documents.display_name(company) in headline
        assert headline in release["text"].split("\n")[:4] and len(release["text"]) > 500


def test_layouts_and_text_exhibits_occur():
    company = companies.company(320193)
    recent = filings.recent_filings(320193, CLOCK.date())
    releases = [f for f in recent if f.press_release is not None]
    assert {documents._layout(f) for f in releases} == {"bold", "heading", "plain"}
    assert any(f.press_release.document.endswith(".txt") for f in releases)
    assert {f.kind for f in releases} == {"earnings", "announcement"}
    assert company.name == "Apple Inc."


def test_quiet_and_foreign_companies_furnish_no_8k_release():
    quiet = [t for t in companies.tickers()
             if filings.is_quiet(companies.company(companies.cik_for(t)))]
    assert 20 < len(quiet) < 100
    sb = sandbox()
    assert list(releases_of(sb, quiet[0])) == []
    baba = sec.parse_submissions(submissions(sb, 1577552))
    assert baba == []  # 6-K and 20-F only


def test_index_json_listing():
    sb = sandbox()
    filing = sec.parse_submissions(submissions(sb, 320193))[0]
    folder = f"/Archives/edgar/data/320193/{filing['accession'].replace('-', '')}"
    listing = json.loads(get(sb, "www.sec.gov", f"{folder}/index.json").body)
    names = [item["name"] for item in listing["directory"]["item"]]
    assert filing["document"] in names and f"{filing['accession']}-index.htm" in names
    assert listing["directory"]["name"] == folder


@pytest.mark.parametrize("host, path, status, marker", [
    ("data.sec.gov", "/submissions/CIK0000000001.json", 404, b"NoSuchKey"),
    ("www.sec.gov", "/Archives/edgar/data/320193/000032019399000001/"
                    "0000320193-99-000001-index.htm", 404, b"Page Not Found"),
    ("www.sec.gov", "/Archives/edgar/data/320193/000032019325000001/nothing.htm", 404,
     b"Page Not Found"),
    ("www.sec.gov", "/cgi-bin/nothing", 404, b"Page Not Found"),
])
def test_edgar_not_found_shapes(host, path, status, marker):
    response = get(sandbox(), host, path)
    assert response.status == status and marker in response.body


def test_future_filings_do_not_exist_yet():
    year = filings.filings_of_year(320193, 2025)
    future = next(f for f in year if f.day > CLOCK.date())
    folder = f"/Archives/edgar/data/320193/{future.folder}"
    assert get(sandbox(), "www.sec.gov", f"{folder}/{future.accession}-index.htm").status == 404


@pytest.mark.parametrize("agent", [None, "python-requests/2.32", "Mozilla/5.0 (X11; Linux)"])
def test_edgar_wants_a_declared_user_agent(agent):
    headers = {} if agent is None else {"user-agent": agent}
    response = get(sandbox(), "www.sec.gov", "/files/company_tickers.json", headers)
    assert response.status == 403 and b"Undeclared Automated Tool" in response.body


def test_edgar_fault_injection_is_an_edgar_error_page():
    response = get(sandbox(fail_rate=1.0), "data.sec.gov", "/submissions/CIK0000320193.json")
    assert response.status == 503 and b"SEC.gov" in response.body


def test_routed_by_upstream_host_header():
    sb = sandbox()
    headers = {**UA, "X-Upstream-Host": "www.sec.gov"}
    response = sb.handle("GET", "127.0.0.1", "/files/company_tickers.json", {}, headers)
    assert response.status == 200
    assert sb.request_log[-1]["provider"] == "sec"


# -- Wikipedia ----------------------------------------------------------------------------------
@pytest.mark.parametrize("path, index, size, headers", [
    ("/wiki/List_of_S&P_500_companies", "sp500", 503,
     ["Symbol", "Security", "GICS Sector", "GICS Sub-Industry", "Headquarters Location",
      "Date added", "CIK", "Founded"]),
    ("/wiki/Nasdaq-100", "nasdaq100", 101,
     ["Company", "Ticker", "GICS Sector", "GICS Sub-Industry"]),
    ("/wiki/Dow_Jones_Industrial_Average", "dowjones", 30,
     ["Company", "Exchange", "Symbol", "Industry", "Date added", "Notes", "Index weighting"]),
])
def test_articles(path, index, size, headers):
    from bs4 import BeautifulSoup

    response = get(sandbox(), "en.wikipedia.org", path)
    assert response.status == 200 and response.headers["Content-Type"].startswith("text/html")
    soup = BeautifulSoup(response.body, "html.parser")
    table = soup.find("table", id="constituents")
    assert "wikitable" in table["class"] and "sortable" in table["class"]
    assert [th.get_text(strip=True) for th in table.find("tr").find_all("th")] == headers
    assert len(soup.find_all("table", class_="wikitable")) == 2  # with its decoy
    rows = wikipedia.parse_constituents(response.body)
    assert len(rows) == size
    assert {r["symbol"] for r in rows} == set(members.members(index))


def test_sp500_values_agree_with_the_other_simulators():
    from marketdata.sandbox.instruments import get_instrument

    response = get(sandbox(), "en.wikipedia.org", "/wiki/List_of_S&P_500_companies")
    assert b">BRK.B</a>" in response.body and b">BF.B</a>" in response.body
    assert b'class="reference"' in response.body
    rows = {r["symbol"]: r for r in wikipedia.parse_constituents(response.body)}
    for symbol, row in rows.items():
        inst = get_instrument(symbol)
        assert inst is not None and inst.kind == "EQUITY"
        assert row["cik"] == f"{companies.cik_for(symbol):010d}"
        assert row["name"].startswith(inst.long_name)
    assert rows["AAPL"]["dateFirstAdded"] == "1982-11-30" and rows["AAPL"]["founded"] == "1977"
    assert sum(r["dateFirstAdded"] == "1957-03-04" for r in rows.values()) > 50


def test_dow_weights_add_up():
    response = get(sandbox(), "en.wikipedia.org", "/wiki/Dow_Jones_Industrial_Average")
    from bs4 import BeautifulSoup

    table = BeautifulSoup(response.body, "html.parser").find("table", id="constituents")
    weights = [float(tr.find_all("td")[-1].get_text().rstrip("%"))
               for tr in table.find_all("tr")[1:]]
    assert len(weights) == 30 and abs(sum(weights) - 100) < 0.2


def test_wikipedia_404_and_user_agent():
    sb = sandbox()
    missing = get(sb, "en.wikipedia.org", "/wiki/No_such_article")
    assert missing.status == 404 and b"does not have an article" in missing.body
    for headers in ({}, {"user-agent": "python-requests/2.32.3"}):
        refused = get(sb, "en.wikipedia.org", "/wiki/Nasdaq-100", headers)
        assert refused.status == 403 and b"robot policy" in refused.body
    assert get(sb, "en.wikipedia.org", "/w/index.php").status == 404


def test_pages_do_not_depend_on_the_clock():
    early = get(sandbox(datetime(2020, 1, 1, tzinfo=UTC)), "en.wikipedia.org",
                "/wiki/Nasdaq-100")
    assert early.body == get(sandbox(), "en.wikipedia.org", "/wiki/Nasdaq-100").body
    assert pages.article("nasdaq100") == early.body
