"""Sandbox quoteSummary modules for analysis and holders: shapes against the recordings
(including Yahoo's mix of bare numbers and {raw, fmt} objects), determinism, consistency
with the other modules and v7 quote, the 404s for funds/crypto/unknown symbols, and both
endpoints served through the real client in sandbox mode."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from marketdata.sandbox import UpstreamSandbox

UPSTREAM = Path(__file__).resolve().parents[2].parent / "shared" / "upstream" / "yahoo"
needs_recordings = pytest.mark.skipif(not UPSTREAM.is_dir(), reason="no shared/upstream")
CLOCK = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)  # a Friday, 12:00 New York
ANALYSIS = ("recommendationTrend", "upgradeDowngradeHistory", "financialData", "earningsTrend",
            "earningsHistory", "esgScores")
HOLDERS = ("majorHoldersBreakdown", "institutionOwnership", "fundOwnership",
           "insiderTransactions", "netSharePurchaseActivity", "insiderHolders")
# module -> the key of its row list (None: a flat module)
LISTS = {"recommendationTrend": "trend", "upgradeDowngradeHistory": "history",
         "financialData": None, "earningsTrend": "trend", "earningsHistory": "history",
         "majorHoldersBreakdown": None, "institutionOwnership": "ownershipList",
         "fundOwnership": "ownershipList", "insiderTransactions": "transactions",
         "netSharePurchaseActivity": None, "insiderHolders": "holders"}


def make(clock: datetime = CLOCK) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: clock)


def crumb(sb: UpstreamSandbox) -> str:
    first = sb.handle("GET", "fc.yahoo.com", "/", {}, {})
    cookie = first.headers["Set-Cookie"].split(";")[0]
    return sb.handle("GET", "query1.finance.yahoo.com", "/v1/test/getcrumb", {},
                     {"Cookie": cookie}).body.decode()


def summary(sb: UpstreamSandbox, symbol: str, modules: str,
            formatted: str = "false") -> tuple[int, Any]:
    answer = sb.handle("GET", "query2.finance.yahoo.com", f"/v10/finance/quoteSummary/{symbol}",
                       {"modules": [modules], "formatted": [formatted], "crumb": [crumb(sb)]},
                       {})
    return answer.status, json.loads(answer.body)


def modules_of(sb: UpstreamSandbox, symbol: str, modules: str,
               formatted: str = "false") -> dict[str, Any]:
    status, body = summary(sb, symbol, modules, formatted)
    assert status == 200, body
    return body["quoteSummary"]["result"][0]


def recorded(module: str, name: str = "AAPL.json") -> Any:
    payload = json.loads((UPSTREAM / "v10-quoteSummary" / module / name).read_text())
    return payload["quoteSummary"]["result"][0][module]


def kind(value: Any) -> str:
    """bare number, {raw, fmt} object, empty object, string, list..."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, dict):
        return "raw-fmt" if "raw" in value else "empty" if not value else "object"
    return type(value).__name__


def assert_row_like(got: dict[str, Any], rows: list[dict[str, Any]], where: str) -> None:
    """``got`` has every key all recorded rows have, no key none has, and each value has the
    recorded kind (a missing value may be {} where Yahoo sends {} for it)."""
    always = set.intersection(*(set(r) for r in rows))
    seen = set.union(*(set(r) for r in rows))
    assert always <= set(got), (where, always - set(got))
    assert set(got) <= seen, (where, set(got) - seen)
    for key, value in got.items():
        kinds = {kind(r[key]) for r in rows if key in r and r[key] is not None}
        if value is not None and kinds:
            assert kind(value) in kinds | {"empty"}, (where, key, kind(value), kinds)


# -- shapes against the recordings -------------------------------------------------------------
@needs_recordings
@pytest.mark.parametrize("module", sorted(LISTS))
def test_module_shape_matches_recording(module):
    want = recorded(module)
    got = modules_of(make(), "AAPL", module)[module]
    list_key = LISTS[module]
    newer_top = NEWER_MODULE_KEYS.get(module, {})
    assert [k for k in got if k not in newer_top] == list(want), "module keys and their order"
    for key, expected in newer_top.items():
        assert kind(got[key]) == expected, (module, key)
    if list_key is None:
        assert_row_like(got, [want], module)
        return
    assert got[list_key], module
    newer = NEWER_ROW_KEYS.get(module, {})
    for row in got[list_key]:
        assert_row_like({k: v for k, v in row.items() if k not in newer}, want[list_key],
                        module)
        for key, expected in newer.items():
            assert kind(row[key]) == expected, (module, key)


# Members Yahoo added after the recordings were made (2025-02): rating changes carry price
# targets now (the reference notes' upgradeDowngradeHistory row).
# ... and the estimates name their EPS basis.
NEWER_MODULE_KEYS = {"earningsTrend": {"defaultMethodology": "str"},
                     "earningsHistory": {"defaultMethodology": "str"}}
NEWER_ROW_KEYS = {"upgradeDowngradeHistory": {"priceTargetAction": "str",
                                              "currentPriceTarget": "number",
                                              "priorPriceTarget": "number"}}


@needs_recordings
def test_earnings_trend_blocks_match_recording():
    want = recorded("earningsTrend")["trend"]
    got = modules_of(make(), "AAPL", "earningsTrend")["earningsTrend"]["trend"]
    assert [r["period"] for r in got] == ["0q", "+1q", "0y", "+1y"]
    for block in ("earningsEstimate", "revenueEstimate", "epsTrend", "epsRevisions"):
        for row in got:
            assert list(row[block]) == list(want[0][block]), block
            assert_row_like(row[block], [w[block] for w in want], block)


def test_esg_scores_shape():
    """No recording exists: the keys Yahoo's esgScores module has (see the clients that read
    it), scores as {raw, fmt} objects, peer ranges as bare numbers."""
    esg = modules_of(make(), "AAPL", "esgScores")["esgScores"]
    for key in ("totalEsg", "environmentScore", "socialScore", "governanceScore", "percentile"):
        assert kind(esg[key]) == "raw-fmt", key
    assert esg["totalEsg"]["raw"] == pytest.approx(
        esg["environmentScore"]["raw"] + esg["socialScore"]["raw"]
        + esg["governanceScore"]["raw"], abs=0.011)
    assert set(esg["peerEsgScorePerformance"]) == {"min", "avg", "max"}
    assert isinstance(esg["ratingYear"], int) and 1 <= esg["ratingMonth"] <= 12
    assert esg["esgPerformance"] in {"LEAD_PERF", "OUT_PERF", "AVG_PERF", "UNDER_PERF",
                                     "LAG_PERF"}
    assert esg["tobacco"] is False and esg["maxAge"] == 86400


def test_formatted_true_wraps_only_the_bare_modules():
    sb = make()
    every = ",".join(ANALYSIS + HOLDERS)
    bare, pretty = modules_of(sb, "AAPL", every), modules_of(sb, "AAPL", every, "true")
    for module in ("earningsTrend", "earningsHistory", "institutionOwnership",
                   "insiderTransactions", "insiderHolders", "upgradeDowngradeHistory",
                   "recommendationTrend"):
        assert pretty[module] == bare[module], module
    for module, key in (("financialData", "targetMeanPrice"),
                        ("majorHoldersBreakdown", "institutionsPercentHeld"),
                        ("netSharePurchaseActivity", "totalInsiderShares")):
        assert isinstance(bare[module][key], int | float)
        assert pretty[module][key]["raw"] == bare[module][key]
        assert pretty[module][key]["fmt"]


# -- determinism and rules ---------------------------------------------------------------------
def test_deterministic_per_symbol_and_day():
    every = ",".join(ANALYSIS + HOLDERS)
    first = modules_of(make(), "MSFT", every)
    assert modules_of(make(), "MSFT", every) == first
    later = modules_of(make(CLOCK + timedelta(hours=3)), "MSFT", every)
    for module in ("upgradeDowngradeHistory", "earningsTrend", "insiderTransactions",
                   "insiderHolders", "recommendationTrend", "institutionOwnership"):
        assert later[module] == first[module], module  # dates are whole days
    assert modules_of(make(), "NVDA", every) != first


# Funds are held by institutions and other funds (ETFs) or summarised (mutual funds);
# nothing else has holders, and only stocks have analyst coverage or insiders.
FUND_HOLDERS = {"QQQ": {"majorHoldersBreakdown", "institutionOwnership", "fundOwnership"},
                "SPY": {"majorHoldersBreakdown", "institutionOwnership", "fundOwnership"},
                "VFIAX": {"majorHoldersBreakdown"}}


@pytest.mark.parametrize("symbol", ["QQQ", "SPY", "BTC-USD", "^GSPC", "EURUSD=X", "VFIAX"])
@pytest.mark.parametrize("module", ANALYSIS + HOLDERS)
def test_only_equities_have_the_modules(symbol, module):
    status, body = summary(make(), symbol, module)
    if module in FUND_HOLDERS.get(symbol, ()):
        assert status == 200 and body["quoteSummary"]["result"][0][module]
        if module == "majorHoldersBreakdown":
            assert body["quoteSummary"]["result"][0][module]["insidersPercentHeld"] == 0
        return
    assert status == 404
    assert body == {"quoteSummary": {"result": None, "error": {
        "code": "Not Found",
        "description": f"No fundamentals data found for any of the summaryTypes={module}"}}}


def test_esg_scores_for_us_listings_only():
    assert summary(make(), "OCDO.L", "esgScores")[0] == 404
    assert summary(make(), "OCDO.L", "earningsTrend")[0] == 200
    assert summary(make(), "KO", "esgScores")[0] == 200


def test_unknown_symbol():
    status, body = summary(make(), "NOTFOUNDCO", "recommendationTrend")
    assert status == 404
    assert body["quoteSummary"]["error"]["description"] == \
        "Quote not found for symbol: NOTFOUNDCO"


# -- consistency -------------------------------------------------------------------------------
def test_agrees_with_quote_and_other_modules():
    sb = make()
    m = modules_of(sb, "AAPL", "financialData,calendarEvents,defaultKeyStatistics,price,"
                   "earningsTrend,earningsHistory,majorHoldersBreakdown,recommendationTrend")
    answer = sb.handle("GET", "query1.finance.yahoo.com", "/v7/finance/quote",
                       {"symbols": ["AAPL"], "crumb": [crumb(sb)]}, {})
    quote = json.loads(answer.body)["quoteResponse"]["result"][0]
    fin = m["financialData"]
    assert fin["recommendationMean"] == float(quote["averageAnalystRating"].split()[0])
    assert fin["currentPrice"] == m["price"]["regularMarketPrice"]
    assert fin["targetLowPrice"] < fin["targetMeanPrice"] < fin["targetHighPrice"]
    assert fin["numberOfAnalystOpinions"] == sum(
        v for k, v in m["recommendationTrend"]["trend"][0].items() if k != "period")
    trend = m["earningsTrend"]["trend"]
    assert trend[0]["earningsEstimate"]["avg"]["raw"] == \
        m["calendarEvents"]["earnings"]["earningsAverage"]
    last_reported = m["earningsHistory"]["history"][-1]["quarter"]["fmt"]
    assert last_reported < trend[0]["endDate"] < trend[1]["endDate"] < trend[3]["endDate"]
    major = m["majorHoldersBreakdown"]
    stats = m["defaultKeyStatistics"]
    assert major["insidersPercentHeld"] == stats["heldPercentInsiders"]
    assert major["institutionsPercentHeld"] == stats["heldPercentInstitutions"]


def test_rating_changes_follow_on():
    history = modules_of(make(), "AAPL", "upgradeDowngradeHistory")[
        "upgradeDowngradeHistory"]["history"]
    stamps = [h["epochGradeDate"] for h in history]
    assert stamps == sorted(stamps, reverse=True)
    assert stamps[0] < int(CLOCK.timestamp())
    last_grade: dict[str, str] = {}
    for row in reversed(history):  # oldest first
        if row["firm"] not in last_grade:
            assert (row["action"], row["fromGrade"]) == ("init", "")
        else:
            assert row["fromGrade"] == last_grade[row["firm"]]
            assert row["action"] in ("up", "down", "main", "reit")
            assert (row["toGrade"] == row["fromGrade"]) == (row["action"] in ("main", "reit"))
        last_grade[row["firm"]] = row["toGrade"]


def test_insider_modules_agree():
    m = modules_of(make(), "AAPL", "insiderTransactions,insiderHolders,netSharePurchaseActivity")
    transactions = m["insiderTransactions"]["transactions"]
    roster = m["insiderHolders"]["holders"]
    assert {t["filerName"] for t in transactions} <= {h["name"] for h in roster}
    for member in roster:
        theirs = [t for t in transactions if t["filerName"] == member["name"]]
        if theirs:
            assert member["latestTransDate"] == theirs[0]["startDate"]
    cutoff = int((CLOCK - timedelta(days=182)).timestamp())
    recent = [t for t in transactions if t["startDate"]["raw"] > cutoff]
    sales = [t for t in recent if t["transactionText"].startswith("Sale")]
    activity = m["netSharePurchaseActivity"]
    assert activity["sellInfoCount"] == len(sales)
    assert activity.get("sellInfoShares", 0) == sum(t["shares"]["raw"] for t in sales)
    assert activity["netInfoShares"] == activity["buyInfoShares"] - activity.get(
        "sellInfoShares", 0)
    assert activity["totalInsiderShares"] == sum(
        h.get("positionDirect", h.get("positionIndirect"))["raw"] for h in roster)
    assert all(t["startDate"]["raw"] < int(CLOCK.timestamp()) for t in transactions)


# -- the service in sandbox mode ---------------------------------------------------------------
@pytest.mark.parametrize("analysis_type", [
    "recommendations", "upgrades_downgrades", "price_targets", "earnings_estimate",
    "revenue_estimate", "earnings_history", "sustainability"])
def test_analysis_in_sandbox_mode(api, sandbox_upstream, analysis_type):
    response = api.get(f"/v1/analysis/AAPL?analysis_type={analysis_type}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["symbol"] == "AAPL" and body["analysis_type"] == analysis_type
    assert body[analysis_type]
    logged = sandbox_upstream.requests_matching("/v10/finance/quoteSummary/")
    assert [(e["path"], e["status"]) for e in logged] == [
        ("/v10/finance/quoteSummary/AAPL", 200)]


@pytest.mark.parametrize("holder_type", [
    "major", "institutional", "mutualfund", "insider_transactions", "insider_purchases",
    "insider_roster"])
def test_holders_in_sandbox_mode(api, sandbox_upstream, holder_type):
    response = api.get(f"/v1/holders/MSFT?holder_type={holder_type}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["symbol"] == "MSFT" and body["holder_type"] == holder_type
    assert sum(value is not None for key, value in body.items()
               if key not in ("symbol", "holder_type")) == 1


def test_aliases_in_sandbox_mode(api, sandbox_upstream):
    response = api.get("/v1/analysis/AAPL/price-targets")
    assert response.status_code == 200
    targets = response.json()["price_targets"]
    assert targets["low"] < targets["mean"] < targets["high"]
    response = api.get("/v1/holders/AAPL/institutional")
    assert response.status_code == 200
    holders = response.json()["holders"]
    assert len(holders) == 10 and holders[0]["holder"] == "Northbridge Group Inc"
    assert all(h["date_reported"].endswith("T00:00:00Z") for h in holders)


@pytest.mark.parametrize("path", [
    "/v1/analysis/NOTFOUNDCO?analysis_type=recommendations",
    "/v1/analysis/SPY/price-targets",
    "/v1/holders/ZZZZ?holder_type=major",
    "/v1/holders/BTC-USD/insider-roster",
])
def test_no_data_in_sandbox_mode(api, sandbox_upstream, path):
    response = api.get(path)
    assert response.status_code == 404, response.content
    assert set(response.json()) == {"detail"}
    assert [e["status"] for e in sandbox_upstream.requests_matching("/v10/finance/quoteSummary/")] \
        == [404]


def test_malformed_symbol_never_reaches_the_sandbox(api, sandbox_upstream):
    for path in ("/v1/analysis/A%20B?analysis_type=recommendations",
                 "/v1/holders/..%2F..%2Fv7%2Ffinance%2Fquote?holder_type=major",
                 "/v1/holders/A%2FB"):
        assert api.get(path).status_code in (404, 422)
    assert sandbox_upstream.requests_matching("/") == []
