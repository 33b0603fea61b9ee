"""The simulated Financial Modeling Prep: the five ``/stable`` endpoints in FMP's shapes
(the consensus against the recordings' keys), the ``apikey`` check, ``[]`` for unknown
symbols, determinism, agreement with the sandbox's Yahoo (rating history, targets, prices,
profiles), realistic constituent lists, routing by host, and the real parsers on every
answer."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from marketdata.providers import fmp
from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox.fmp import analysts, constituents
from marketdata.sandbox.instruments import FAMOUS, get_instrument
from tests.conftest import UPSTREAM_DIR

HOST = "financialmodelingprep.com"
CLOCK = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)  # a Friday, 12:00 New York
KEY = "sandbox-test-key"


def make(clock: datetime = CLOCK) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: clock)


def get(sb: UpstreamSandbox, path: str, key: str | None = KEY, host: str = HOST,
        **query: str) -> tuple[int, Any]:
    params = {name: [value] for name, value in query.items()}
    if key is not None:
        params["apikey"] = [key]
    answer = sb.handle("GET", host, path, params, {})
    assert answer.headers["Content-Type"].startswith("application/json")
    return answer.status, json.loads(answer.body)


def yahoo_module(sb: UpstreamSandbox, symbol: str, module: str) -> dict[str, Any]:
    first = sb.handle("GET", "fc.yahoo.com", "/", {}, {})
    cookie = first.headers["Set-Cookie"].split(";")[0]
    crumb = sb.handle("GET", "query1.finance.yahoo.com", "/v1/test/getcrumb", {},
                      {"Cookie": cookie}).body.decode()
    answer = sb.handle("GET", "query2.finance.yahoo.com", f"/v10/finance/quoteSummary/{symbol}",
                       {"modules": [module], "formatted": ["false"], "crumb": [crumb]}, {})
    return json.loads(answer.body)["quoteSummary"]["result"][0][module]


SYMBOL_ENDPOINTS = ("/stable/grades", "/stable/price-target-consensus",
                    "/stable/price-target-summary")
LISTS = {"/stable/sp500-constituent": 503, "/stable/nasdaq-constituent": 101,
         "/stable/dowjones-constituent": 30}
ALL_PATHS = (*SYMBOL_ENDPOINTS, "/stable/news/press-releases", *LISTS)


# -- auth ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ALL_PATHS)
@pytest.mark.parametrize("key", [None, "", "my-INVALID-key", "invalid"])
def test_missing_or_invalid_key_is_fmps_401(path, key):
    status, body = get(make(), path, key=key, symbol="AAPL", symbols="AAPL")
    assert status == 401
    assert list(body) == ["Error Message"]
    assert body["Error Message"].startswith("Invalid API KEY.")


def test_restricted_key_is_402():
    status, body = get(make(), "/stable/grades", key="RESTRICTED-plan", symbol="AAPL")
    assert status == 402 and body["Error Message"].startswith("Restricted Endpoint")


def test_unknown_path_is_404_in_fmps_shape():
    assert get(make(), "/stable/unknown-endpoint") == (404, {"Error Message": "Not Found"})
    # Yahoo's paths are not FMP's: routing is by host.
    assert get(make(), "/v8/finance/chart/AAPL")[0] == 404


@pytest.mark.parametrize("path", [*SYMBOL_ENDPOINTS, "/stable/news/press-releases"])
def test_missing_symbol_is_400(path):
    status, body = get(make(), path)
    assert status == 400 and "Error Message" in body


# -- unknown symbols and non-equities -------------------------------------------------------------
@pytest.mark.parametrize("path", SYMBOL_ENDPOINTS)
@pytest.mark.parametrize("symbol", ["ZZZZ", "NOTFOUND", "SPY", "^GSPC", "BTC-USD", "EURUSD=X"])
def test_unknown_or_not_an_equity_is_an_empty_list(path, symbol):
    assert get(make(), path, symbol=symbol) == (200, [])


def test_press_releases_of_unknown_symbols_are_empty():
    assert get(make(), "/stable/news/press-releases", symbols="ZZZZ,SPY") == (200, [])


# -- shapes -------------------------------------------------------------------------------------
def test_consensus_has_the_recordings_keys_in_order():
    status, body = get(make(), "/stable/price-target-consensus", symbol="aapl")
    assert status == 200 and len(body) == 1
    recorded = UPSTREAM_DIR / "fmp/stable-price-target-consensus/AAPL_2025-09-23.json"
    keys = ["symbol", "targetHigh", "targetLow", "targetConsensus", "targetMedian"]
    if recorded.exists():
        keys = list(json.loads(recorded.read_text())[0])
    assert list(body[0]) == keys and body[0]["symbol"] == "AAPL"
    row = body[0]
    assert row["targetLow"] <= row["targetMedian"] <= row["targetHigh"]
    assert row["targetLow"] <= row["targetConsensus"] <= row["targetHigh"]


def test_grades_shape_and_order():
    status, body = get(make(), "/stable/grades", symbol="MSFT")
    assert status == 200 and body
    assert all(list(row) == ["symbol", "date", "gradingCompany", "previousGrade", "newGrade",
                             "action"] for row in body)
    dates = [row["date"] for row in body]
    assert dates == sorted(dates, reverse=True) and dates[0] < CLOCK.date().isoformat()


def test_summary_shape_and_windows():
    status, body = get(make(), "/stable/price-target-summary", symbol="NVDA")
    assert status == 200 and len(body) == 1
    row = body[0]
    assert list(row) == ["symbol", "lastMonthCount", "lastMonthAvgPriceTarget",
                         "lastQuarterCount", "lastQuarterAvgPriceTarget", "lastYearCount",
                         "lastYearAvgPriceTarget", "allTimeCount", "allTimeAvgPriceTarget",
                         "publishers"]
    counts = [row[f"{p}Count"] for p in ("lastMonth", "lastQuarter", "lastYear", "allTime")]
    assert counts == sorted(counts) and counts[-1] > 0
    assert isinstance(json.loads(row["publishers"]), list)
    for period in ("lastMonth", "lastQuarter", "lastYear", "allTime"):
        if row[f"{period}Count"] == 0:
            assert row[f"{period}AvgPriceTarget"] == 0  # as FMP writes it


def test_press_release_shape_order_limit_and_page():
    sb = make()
    status, body = get(sb, "/stable/news/press-releases", symbols="AAPL", limit="5")
    assert status == 200 and len(body) == 5
    assert all(list(row) == ["symbol", "publishedDate", "publisher", "title", "image", "site",
                             "text", "url"] for row in body)
    stamps = [row["publishedDate"] for row in body]
    assert stamps == sorted(stamps, reverse=True)
    assert all(datetime.strptime(s, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC) <= CLOCK
               for s in stamps)
    second = get(sb, "/stable/news/press-releases", symbols="AAPL", limit="5", page="1")[1]
    assert second and second[0]["publishedDate"] <= stamps[-1] and second[0] not in body
    default = get(sb, "/stable/news/press-releases", symbols="AAPL")[1]
    assert len(default) == 20
    both = get(sb, "/stable/news/press-releases", symbols="AAPL,MSFT", limit="250")[1]
    assert {row["symbol"] for row in both} == {"AAPL", "MSFT"}
    assert [r["publishedDate"] for r in both] == sorted((r["publishedDate"] for r in both),
                                                       reverse=True)


def test_results_releases_fall_on_the_yahoo_earnings_days():
    body = get(make(), "/stable/news/press-releases", symbols="AAPL", limit="250")[1]
    results = [row for row in body if "Results" in row["title"] and "Reports" in row["title"]]
    assert len(results) >= 7  # quarterly, two years back
    day = min(18 + get_instrument("AAPL").seed % 12, 28)
    assert {int(row["publishedDate"][8:10]) for row in results} == {day}
    assert {row["publishedDate"][5:7] for row in results} <= {"01", "04", "07", "10"}


@pytest.mark.parametrize(("path", "size"), LISTS.items())
def test_constituent_lists(path, size):
    status, body = get(make(), path)
    assert status == 200 and len(body) == size
    symbols = [row["symbol"] for row in body]
    assert symbols == sorted(set(symbols))
    for row in body:
        assert list(row) == ["symbol", "name", "sector", "subSector", "headQuarter",
                             "dateFirstAdded", "cik", "founded"]
        assert all(isinstance(value, str) and value for value in row.values()), row
        assert len(row["cik"]) == 10 and row["cik"].isdigit()
        assert int(row["founded"]) < int(row["dateFirstAdded"][:4])
        inst = get_instrument(row["symbol"])
        assert inst is not None and inst.kind == "EQUITY"
        assert row["name"] == inst.long_name and row["sector"] == inst.sector


def test_famous_members_have_real_names_and_the_real_dow():
    dow = {row["symbol"]: row for row in get(make(), "/stable/dowjones-constituent")[1]}
    assert set(dow) == set(constituents.DOW)
    assert dow["AAPL"]["name"] == "Apple Inc." == FAMOUS["AAPL"][2]
    assert dow["JPM"]["name"] == "JPMorgan Chase & Co."
    sp500 = {row["symbol"] for row in get(make(), "/stable/sp500-constituent")[1]}
    assert set(constituents.DOW) <= sp500 and {"GOOG", "GOOGL", "BRK-B"} <= sp500
    nasdaq = {row["symbol"] for row in get(make(), "/stable/nasdaq-constituent")[1]}
    assert {"GOOG", "GOOGL", "AAPL", "NVDA"} <= nasdaq and "JPM" not in nasdaq


# -- agreement with the sandbox's Yahoo -----------------------------------------------------------
def test_grades_are_the_yahoo_rating_history():
    sb = make()
    history = yahoo_module(sb, "AAPL", "upgradeDowngradeHistory")["history"]
    grades = get(sb, "/stable/grades", symbol="AAPL")[1]
    assert len(grades) == len(history)
    for grade, row in zip(grades, history, strict=True):
        assert grade["gradingCompany"] == row["firm"] and grade["newGrade"] == row["toGrade"]
        assert grade["previousGrade"] == row["fromGrade"]
        assert grade["date"] == datetime.fromtimestamp(row["epochGradeDate"], UTC) \
            .strftime("%Y-%m-%d")


def test_consensus_is_the_yahoo_financial_data_targets():
    sb = make()
    data = yahoo_module(sb, "MSFT", "financialData")
    row = get(sb, "/stable/price-target-consensus", symbol="MSFT")[1][0]
    assert row["targetConsensus"] == pytest.approx(data["targetMeanPrice"], abs=0.006)
    assert row["targetHigh"] == pytest.approx(data["targetHighPrice"], abs=0.006)
    assert row["targetLow"] == pytest.approx(data["targetLowPrice"], abs=0.006)
    assert row["targetMedian"] == pytest.approx(data["targetMedianPrice"], abs=0.006)


def test_summary_targets_follow_the_sandbox_prices():
    sb = make()
    inst = get_instrument("AAPL")
    found = analysts.publications(inst, _request(sb))
    assert found
    price = yahoo_module(sb, "AAPL", "financialData")["currentPrice"]
    recent = [target for back, target in found if back <= 365]
    assert recent and 0.7 * price < sum(recent) / len(recent) < 1.5 * price


def _request(sb: UpstreamSandbox):
    from marketdata.sandbox.common import Request

    return Request("GET", HOST, "/", {}, {}, b"", sb.clock)


def test_constituent_headquarters_match_the_yahoo_profile():
    sb = make()
    row = next(r for r in get(sb, "/stable/dowjones-constituent")[1] if r["symbol"] == "KO")
    profile = yahoo_module(sb, "KO", "assetProfile")
    assert row["headQuarter"].startswith(profile["city"] + ", ")


# -- determinism ----------------------------------------------------------------------------------
@pytest.mark.parametrize("path", SYMBOL_ENDPOINTS)
def test_deterministic_across_sandboxes(path):
    assert get(make(), path, symbol="AMD") == get(make(), path, symbol="AMD")


def test_a_days_publications_never_change_as_the_clock_moves():
    inst = get_instrument("TSLA")
    early = analysts.publications(inst, _request(make()))
    later = analysts.publications(inst, _request(make(CLOCK + timedelta(days=10))))
    early_days = {(CLOCK.date() - timedelta(days=back), target) for back, target in early}
    later_days = {((CLOCK + timedelta(days=10)).date() - timedelta(days=back), target)
                  for back, target in later}
    overlap_start = CLOCK.date() - timedelta(days=analysts.SUMMARY_DAYS - 10)
    assert {d for d in early_days if d[0] >= overlap_start} <= later_days


# -- the real parsers accept every answer ---------------------------------------------------------
def test_every_answer_parses():
    sb = make()
    assert fmp.parse_grades(get(sb, "/stable/grades", symbol="KO")[1], "KO")
    assert fmp.parse_price_target_consensus(
        get(sb, "/stable/price-target-consensus", symbol="KO")[1], "KO")["targetHigh"]
    assert fmp.parse_price_target_summary(
        get(sb, "/stable/price-target-summary", symbol="KO")[1], "KO")["allTimeCount"]
    releases = fmp.parse_press_releases(
        get(sb, "/stable/news/press-releases", symbols="KO", limit="3")[1], "KO")
    assert len(releases) == 3 and all(r["date"][10] == "T" for r in releases)
    for path, size in LISTS.items():
        assert len(fmp.parse_constituents(get(sb, path)[1], path)) == size


def test_fault_injection_answers_in_fmps_shape():
    sb = make()
    sb.configure(fail_rate=1.0)
    status, body = get(sb, "/stable/grades", symbol="AAPL")
    assert status == 503 and "Error Message" in body
