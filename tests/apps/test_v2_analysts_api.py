"""GET /v2/grading-actions/{symbol}, /v2/price-target-consensus/{symbol} and
/v2/price-target-summary/{symbol}: both sources (FMP with a key, Yahoo without), the key
fallback, `fields`, paging (plus a hypothesis paging property), every error status, the
OpenAPI operations and the in-process sandbox.

Yahoo answers come from the recordings (upgradeDowngradeHistory, financialData) where they
exist. The recordings predate Yahoo's price targets in ``upgradeDowngradeHistory``
(``currentPriceTarget``...), so the summary tests use hand-written modules in that shape;
FMP bodies other than the consensus recordings are hand-written in FMP's documented shapes.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from marketdata import capabilities as sources
from marketdata.providers import fmp
from marketdata.providers.yahoo import analysis as yahoo_analysis
from tests.apps.payloads import FAILURES, QUERY2, QUOTE_SUMMARY_NOT_FOUND, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.conftest import calls_to, capture_logs

GRADING_ACTION_MEMBERS = ("date", "symbol", "gradingCompany", "newGrade", "previousGrade")
SUMMARY_MEMBERS = ("symbol", "lastMonthCount", "lastMonthAvg", "lastQuarterCount",
                   "lastQuarterAvg", "lastYearCount", "lastYearAvg", "allTimeCount",
                   "allTimeAvg")

KEY = "fmp-k3y-0123456789abcdefSECRET"
STABLE = "https://financialmodelingprep.com/stable"
QS = "yahoo/v10-quoteSummary"
NOW = 1738368000  # 2025-02-01T00:00:00Z
DAY = 86400

# FMP's documented /stable/grades rows (hand-written in that shape), newest first.
FMP_GRADES = [
    {"symbol": "AAPL", "date": "2025-02-03", "gradingCompany": "Jefferies",
     "previousGrade": "Underperform", "newGrade": "Hold", "action": "upgrade"},
    {"symbol": "AAPL", "date": "2025-01-31", "gradingCompany": "Morgan Stanley",
     "previousGrade": "Overweight", "newGrade": "Overweight", "action": "maintain"},
    {"symbol": "AAPL", "date": "2025-01-30", "gradingCompany": "Citigroup",
     "previousGrade": "", "newGrade": "Buy", "action": "initialise"},
]
# FMP's documented /stable/price-target-summary row (hand-written in that shape).
FMP_SUMMARY = [{
    "symbol": "AAPL", "lastMonthCount": 0, "lastMonthAvgPriceTarget": 0,
    "lastQuarterCount": 3, "lastQuarterAvgPriceTarget": 204.2, "lastYearCount": 48,
    "lastYearAvgPriceTarget": 235.04, "allTimeCount": 167, "allTimeAvgPriceTarget": 201.21,
    "publishers": "[\"TheFly\",\"Benzinga\"]"}]
INVALID_KEY = {"Error Message": "Invalid API KEY. Feel free to create a Free API Key or "
                                "visit https://site.financialmodelingprep.com/faqs for more."}
RESTRICTED = {"Error Message": "Restricted Endpoint: This endpoint is not available under "
                               "your current subscription"}


@pytest.fixture(autouse=True)
def _no_key_fast_fmp(settings, monkeypatch):
    settings.FMP_API_KEY = ""
    sources.reset_warnings()
    fast = dataclasses.replace(fmp.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001)
    monkeypatch.setattr(fmp.FmpProvider, "config", fast)


@pytest.fixture
def keyed(settings):
    settings.FMP_API_KEY = KEY
    return settings


@pytest.fixture
def frozen(monkeypatch):
    monkeypatch.setattr(yahoo_analysis, "now", lambda: float(NOW))
    return NOW


def fmp_serve(yahoo, path: str, body: Any, status: int = 200) -> None:
    yahoo.get(f"{STABLE}/{path}", body, status=status)


def fmp_calls(yahoo, path: str = "") -> list:
    return calls_to(yahoo.mock, f"financialmodelingprep.com/stable/{path}")


def summary_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "/v10/finance/quoteSummary/")


def assert_api_error(response, status: int, error: str | None = None) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and isinstance(body["error"], str) and body["error"]
    if error is not None:
        assert body["error"] == error
    return body


def history_module(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """A quoteSummary answer with an upgradeDowngradeHistory of ``rows``."""
    return {"quoteSummary": {"result": [{"upgradeDowngradeHistory": {
        "history": rows, "maxAge": 86400}}], "error": None}}


def targeted(epoch: int, target: Any, firm: str = "Firm") -> dict[str, Any]:
    """A rating change in Yahoo's newer shape, with its price targets."""
    return {"epochGradeDate": epoch, "firm": firm, "toGrade": "Buy", "fromGrade": "Buy",
            "action": "main", "priceTargetAction": "Raises", "currentPriceTarget": target,
            "priorPriceTarget": 1.0}


# -- grading actions: Yahoo ---------------------------------------------------------------------
def test_grading_actions_from_yahoo_recording(api, yahoo, recording):
    payload = recording(f"{QS}/upgradeDowngradeHistory/AAPL.json")
    yahoo.summary("AAPL", payload)
    body = api.get("/v2/grading-actions/aapl").json()
    assert len(body) == 968
    assert body[:2] == [
        {"date": "2025-01-31", "symbol": "AAPL", "gradingCompany": "Citigroup",
         "newGrade": "Buy", "previousGrade": "Buy"},
        {"date": "2025-01-31", "symbol": "AAPL", "gradingCompany": "Needham",
         "newGrade": "Buy", "previousGrade": "Buy"},
    ]
    assert list(body[0]) == list(GRADING_ACTION_MEMBERS)
    dates = [row["date"] for row in body]
    assert dates == sorted(dates, reverse=True)
    assert "modules=upgradeDowngradeHistory" in summary_calls(yahoo)[0].request.url
    assert not fmp_calls(yahoo)


def test_initiation_has_null_previous_grade(api, yahoo, recording):
    yahoo.summary("OCDO.L", recording(f"{QS}/upgradeDowngradeHistory/OCDO.L.json"))
    assert api.get("/v2/grading-actions/OCDO.L").json() == [
        {"date": "2021-07-08", "symbol": "OCDO.L", "gradingCompany": "Bernstein",
         "newGrade": "Outperform", "previousGrade": None}]


def test_yahoo_rows_are_sorted_newest_first(api, yahoo):
    rows = [targeted(NOW - 5 * DAY, 1, "Old"), targeted(NOW, 1, "New")]
    yahoo.summary("AAPL", history_module(rows))
    assert [r["gradingCompany"] for r in api.get("/v2/grading-actions/AAPL").json()] == \
        ["New", "Old"]


def test_empty_yahoo_history_is_404(api, yahoo):
    yahoo.summary("AAPL", history_module([]))
    assert_api_error(api.get("/v2/grading-actions/AAPL"), 404,
                     "No grading actions data found for AAPL")


# -- grading actions: FMP -----------------------------------------------------------------------
def test_grading_actions_from_fmp(api, yahoo, keyed):
    fmp_serve(yahoo, "grades", FMP_GRADES)
    body = api.get("/v2/grading-actions/AAPL").json()
    assert body == [
        {"date": "2025-02-03", "symbol": "AAPL", "gradingCompany": "Jefferies",
         "newGrade": "Hold", "previousGrade": "Underperform"},
        {"date": "2025-01-31", "symbol": "AAPL", "gradingCompany": "Morgan Stanley",
         "newGrade": "Overweight", "previousGrade": "Overweight"},
        {"date": "2025-01-30", "symbol": "AAPL", "gradingCompany": "Citigroup",
         "newGrade": "Buy", "previousGrade": None},
    ]
    call = fmp_calls(yahoo, "grades")[0].request.url
    assert "symbol=AAPL" in call and f"apikey={KEY}" in call
    assert not summary_calls(yahoo)


def test_fmp_empty_list_is_404_without_yahoo(api, yahoo, keyed):
    fmp_serve(yahoo, "grades", [])
    assert_api_error(api.get("/v2/grading-actions/AAPL"), 404,
                     "No grading actions data found for AAPL")
    assert not summary_calls(yahoo)


# -- fields and paging --------------------------------------------------------------------------
def test_fields_apply_to_each_action(api, yahoo, keyed):
    fmp_serve(yahoo, "grades", FMP_GRADES)
    body = api.get("/v2/grading-actions/AAPL?fields=newGrade,date,bogus").json()
    assert body[0] == {"date": "2025-02-03", "newGrade": "Hold"}
    assert all(set(row) == {"date", "newGrade"} for row in body)
    assert set(api.get("/v2/grading-actions/AAPL?fields=bogus").json()[0]) == \
        set(GRADING_ACTION_MEMBERS)


def test_paging_and_fields_together(api, yahoo, keyed):
    fmp_serve(yahoo, "grades", FMP_GRADES)
    first = api.get("/v2/grading-actions/AAPL?limit=2&fields=gradingCompany").json()
    assert first["nodes"] == [{"gradingCompany": "Jefferies"},
                              {"gradingCompany": "Morgan Stanley"}]
    assert first["pageInfo"] == {"startCursor": "MA", "endCursor": "MQ", "hasNextPage": True,
                                 "hasPreviousPage": False}
    rest = api.get("/v2/grading-actions/AAPL?cursor=MQ&fields=gradingCompany").json()
    assert rest["nodes"] == [{"gradingCompany": "Citigroup"}]
    assert rest["pageInfo"]["hasNextPage"] is False
    assert len(fmp_calls(yahoo)) == 1, "pages come from the cached answer"


@hypothesis_settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(limit=st.integers(min_value=1, max_value=40), keyed_source=st.booleans())
def test_following_end_cursor_visits_every_action_once(api, sandbox_upstream, settings, limit,
                                                       keyed_source):
    """Hypothesis paging property, in sandbox mode through both sources."""
    settings.FMP_API_KEY = KEY if keyed_source else ""
    everything = api.get("/v2/grading-actions/MSFT").json()
    assert isinstance(everything, list) and everything
    seen, cursor = [], None
    for _ in range(len(everything) + 2):
        query = f"limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        page = api.get(f"/v2/grading-actions/MSFT?{query}").json()
        assert [edge["node"] for edge in page["edges"]] == page["nodes"]
        assert len(page["nodes"]) <= limit
        assert page["pageInfo"]["hasPreviousPage"] is (cursor is not None)
        seen.extend(page["nodes"])
        if not page["pageInfo"]["hasNextPage"]:
            break
        cursor = page["pageInfo"]["endCursor"]
    assert seen == everything


# -- price target consensus ---------------------------------------------------------------------
def test_consensus_from_yahoo_financial_data(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/financialData/AAPL.json"))
    body = api.get("/v2/price-target-consensus/AAPL").json()
    assert body == {"symbol": "AAPL", "targetConsensus": 252.22575, "targetHigh": 325.0,
                    "targetLow": 197.0, "targetMedian": 257.5}
    assert "modules=financialData" in summary_calls(yahoo)[0].request.url


def test_consensus_without_yahoo_targets_is_404(api, yahoo, recording):
    yahoo.summary("BTC-USD", recording(f"{QS}/financialData/BTC-USD.json"), status=404)
    assert_api_error(api.get("/v2/price-target-consensus/BTC-USD"), 404,
                     "No price target data found for BTC-USD")
    yahoo.summary("KO", {"quoteSummary": {"result": [{"financialData": {
        "currentPrice": 60.0, "targetMeanPrice": {}}}], "error": None}})
    assert_api_error(api.get("/v2/price-target-consensus/KO"), 404)


@pytest.mark.parametrize(("symbol", "expected"), [
    ("AAPL", '{"symbol":"AAPL","targetConsensus":236.38,"targetHigh":310,"targetLow":173,'
             '"targetMedian":227.5}'),
    ("MSFT", '{"symbol":"MSFT","targetConsensus":613.91,"targetHigh":675,"targetLow":515,'
             '"targetMedian":630}'),
])
def test_consensus_from_fmp_recording_exactly(api, yahoo, keyed, recording, symbol, expected):
    fmp_serve(yahoo, "price-target-consensus",
              recording(f"fmp/stable-price-target-consensus/{symbol}_2025-09-23.json"))
    response = api.get(f"/v2/price-target-consensus/{symbol}")
    assert response.status_code == 200
    assert json.loads(response.content) == json.loads(expected)
    assert response.content.decode().replace(" ", "") == expected
    assert not summary_calls(yahoo)


def test_consensus_fields(api, yahoo, keyed, recording):
    fmp_serve(yahoo, "price-target-consensus",
              recording("fmp/stable-price-target-consensus/AAPL_2025-09-23.json"))
    assert api.get("/v2/price-target-consensus/AAPL?fields=targetHigh,nope").json() == \
        {"targetHigh": 310}


# -- price target summary -----------------------------------------------------------------------
SUMMARY_ROWS = [
    targeted(NOW + 3600, 300),  # dated after now: counts everywhere
    targeted(NOW - 1 * DAY, 250),
    targeted(NOW - 30 * DAY, 260),  # exactly 30 days: still the last month
    targeted(NOW - 30 * DAY - 1, 200),
    targeted(NOW - 100 * DAY, 210),
    targeted(NOW - 400 * DAY, 150.05),
    targeted(NOW - 2 * DAY, 0),  # no target
    {**targeted(NOW - 2 * DAY, 999), "epochGradeDate": None},  # undated
    {k: v for k, v in targeted(NOW - 2 * DAY, 1).items() if k != "currentPriceTarget"},
    targeted(NOW - 2 * DAY, {"raw": -5, "fmt": "-5"}),
]


def test_summary_computed_from_yahoo_history(api, yahoo, frozen):
    yahoo.summary("AAPL", history_module(SUMMARY_ROWS))
    body = api.get("/v2/price-target-summary/AAPL").json()
    assert body == {"symbol": "AAPL",
                    "lastMonthCount": 3, "lastMonthAvg": 270.0,
                    "lastQuarterCount": 4, "lastQuarterAvg": 252.5,
                    "lastYearCount": 5, "lastYearAvg": 244.0,
                    "allTimeCount": 6, "allTimeAvg": 228.34}  # 1370.05 / 6 = 228.3416...
    assert list(body) == list(SUMMARY_MEMBERS)


def test_summary_rounds_half_up_and_nulls_empty_windows(api, yahoo, frozen):
    rows = [targeted(NOW - 200 * DAY, 100.005), targeted(NOW - 300 * DAY, 100.005)]
    yahoo.summary("AAPL", history_module(rows))
    body = api.get("/v2/price-target-summary/AAPL").json()
    assert body["lastMonthCount"] == 0 and body["lastMonthAvg"] is None
    assert body["lastQuarterCount"] == 0 and body["lastQuarterAvg"] is None
    assert body["lastYearCount"] == 2 and body["lastYearAvg"] == 100.01


def test_summary_windows_move_with_the_clock(api, yahoo, monkeypatch):
    yahoo.summary("AAPL", history_module([targeted(NOW, 100)]))
    monkeypatch.setattr(yahoo_analysis, "now", lambda: float(NOW + 31 * DAY))
    body = api.get("/v2/price-target-summary/AAPL").json()
    assert body["lastMonthCount"] == 0 and body["lastQuarterCount"] == 1


def test_summary_without_targets_is_404(api, yahoo, recording, frozen):
    """The recorded history (2025-02) has no price targets at all."""
    yahoo.summary("AAPL", recording(f"{QS}/upgradeDowngradeHistory/AAPL.json"))
    assert_api_error(api.get("/v2/price-target-summary/AAPL"), 404,
                     "No price target data found for AAPL")


def test_summary_from_fmp(api, yahoo, keyed):
    fmp_serve(yahoo, "price-target-summary", FMP_SUMMARY)
    assert api.get("/v2/price-target-summary/AAPL").json() == {
        "symbol": "AAPL", "lastMonthCount": 0, "lastMonthAvg": None, "lastQuarterCount": 3,
        "lastQuarterAvg": 204.2, "lastYearCount": 48, "lastYearAvg": 235.04,
        "allTimeCount": 167, "allTimeAvg": 201.21}
    assert api.get("/v2/price-target-summary/AAPL?fields=allTimeCount").json() == \
        {"allTimeCount": 167}


def test_grading_actions_and_summary_share_yahoos_cached_module(api, yahoo, frozen):
    yahoo.summary("AAPL", history_module(SUMMARY_ROWS))
    api.get("/v2/grading-actions/AAPL")
    api.get("/v2/price-target-summary/AAPL")
    api.get("/v2/analysis/AAPL/upgrades-downgrades")
    assert len(summary_calls(yahoo)) == 1


# -- the key: fallback and secrecy --------------------------------------------------------------
ENDPOINTS = [
    ("/v2/grading-actions/AAPL", "grades", "upgradeDowngradeHistory/AAPL.json"),
    ("/v2/price-target-consensus/AAPL", "price-target-consensus", "financialData/AAPL.json"),
]


@pytest.mark.parametrize(("status", "body"), [(401, INVALID_KEY), (402, RESTRICTED),
                                              (403, RESTRICTED)])
@pytest.mark.parametrize(("path", "fmp_path", "module"), ENDPOINTS)
def test_refused_key_falls_back_to_yahoo(api, yahoo, keyed, recording, path, fmp_path, module,
                                         status, body):
    fmp_serve(yahoo, fmp_path, body, status=status)
    yahoo.summary("AAPL", recording(f"{QS}/{module}"))
    with capture_logs("", logging.DEBUG) as logs:
        first = api.get(path)
        second = api.get(path)
    assert first.status_code == second.status_code == 200
    assert len(fmp_calls(yahoo)) >= 1 and summary_calls(yahoo)
    warnings = [r for r in logs.records() if r.get("message") == "provider_key_rejected"]
    assert len(warnings) == 1 and warnings[0]["provider"] == "fmp"
    for text in (logs.text(), first.content.decode(), second.content.decode()):
        assert KEY not in text


def test_refused_key_and_failing_yahoo_report_fmp(api, yahoo, keyed):
    fmp_serve(yahoo, "price-target-summary", INVALID_KEY, status=401)
    fail_url(yahoo.mock, f"{QUERY2}/v10/finance/quoteSummary/AAPL", "yahoo_500")
    body = assert_api_error(api.get("/v2/price-target-summary/AAPL"), 502)
    assert body["provider"] == "fmp" and KEY not in json.dumps(body)


@pytest.mark.parametrize("kind", list(FAILURES))
def test_fmp_failure_falls_back_to_yahoo(api, yahoo, keyed, recording, kind):
    fail_url(yahoo.mock, f"{STABLE}/price-target-consensus", kind)
    yahoo.summary("AAPL", recording(f"{QS}/financialData/AAPL.json"))
    response = api.get("/v2/price-target-consensus/AAPL")
    assert response.status_code == 200
    assert response.json()["targetConsensus"] == 252.22575


def test_key_never_in_error_bodies_or_logs(api, yahoo, keyed):
    fmp_serve(yahoo, "grades", INVALID_KEY, status=401)
    fail_url(yahoo.mock, f"{QUERY2}/v10/finance/quoteSummary/AAPL", "timeout")
    with capture_logs("", logging.DEBUG) as logs:
        response = api.get("/v2/grading-actions/AAPL")
    assert response.status_code == 502
    assert KEY not in response.content.decode() and KEY not in logs.text()
    assert "apikey" not in logs.text()


# -- errors -------------------------------------------------------------------------------------
PATHS = ["/v2/grading-actions/{s}", "/v2/price-target-consensus/{s}",
         "/v2/price-target-summary/{s}"]


@pytest.mark.parametrize("template", PATHS)
@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_is_404_without_upstream_call(api, yahoo, keyed, template, raw):
    assert_api_error(api.get(template.format(s=raw)), 404)
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("template", PATHS)
def test_unknown_symbol_is_404(api, yahoo, template, frozen):
    yahoo.summary("ZZZZ", QUOTE_SUMMARY_NOT_FOUND, status=404)
    body = assert_api_error(api.get(template.format(s="zzzz")), 404)
    assert body["error"].endswith("found for ZZZZ")


@pytest.mark.parametrize("query", ["limit=-1", "limit=abc", "limit=1001", "cursor=!!",
                                   "cursor=MB", "limit=2&cursor=x"])
def test_bad_paging_is_400_before_any_upstream_call(api, yahoo, keyed, query):
    body = assert_api_error(api.get(f"/v2/grading-actions/AAPL?{query}"), 400)
    assert body["error"].split(":")[0] in ("limit", "cursor")
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("template", PATHS)
@pytest.mark.parametrize("kind", list(FAILURES))
def test_yahoo_failures_name_the_provider(api, yahoo, template, kind, frozen):
    fail_url(yahoo.mock, f"{QUERY2}/v10/finance/quoteSummary/AAPL", kind)
    status, _ = FAILURES[kind]
    body = assert_api_error(api.get(template.format(s="AAPL")), status)
    assert body["provider"] == "yahoo"


@pytest.mark.parametrize("template", PATHS)
def test_fmp_failure_with_failing_yahoo_reports_fmp_first(api, yahoo, keyed, template, frozen):
    for path in ("grades", "price-target-consensus", "price-target-summary"):
        fail_url(yahoo.mock, f"{STABLE}/{path}", "timeout")
    fail_url(yahoo.mock, f"{QUERY2}/v10/finance/quoteSummary/AAPL", "connection_error")
    body = assert_api_error(api.get(template.format(s="AAPL")), 504)
    assert body["provider"] == "fmp"


# -- OpenAPI ------------------------------------------------------------------------------------
def openapi() -> dict[str, Any]:
    """The served document, built once per test process (tests/openapi_validation.py)."""
    from tests.openapi_validation import served_document

    return served_document()


@pytest.mark.parametrize(("path", "operation", "params"), [
    ("/v2/grading-actions/{symbol}", "get_grading_actions", {"symbol", "fields", "cursor",
                                                             "limit", "order", "format"}),
    ("/v2/price-target-consensus/{symbol}", "get_price_target_consensus", {"symbol", "fields"}),
    ("/v2/price-target-summary/{symbol}", "get_price_target_summary", {"symbol", "fields"}),
])
def test_openapi_operations(path, operation, params):
    op = openapi()["paths"][path]["get"]
    assert op["operationId"] == operation and op["tags"] == ["Analysts (v2)"]
    assert {p["name"] for p in op["parameters"]} == params
    assert {"200", "400", "404", "429", "500"} <= op["responses"].keys()
    assert "Financial Modeling Prep" in op["description"] and "Yahoo" in op["description"]


# -- sandbox ------------------------------------------------------------------------------------
@pytest.mark.parametrize("with_key", [True, False])
def test_sandbox_serves_grading_actions_and_consensus(api, sandbox_upstream, settings,
                                                      with_key):
    settings.FMP_API_KEY = KEY if with_key else ""
    actions = api.get("/v2/grading-actions/AAPL").json()
    assert actions and set(actions[0]) == set(GRADING_ACTION_MEMBERS)
    consensus = api.get("/v2/price-target-consensus/AAPL").json()
    assert consensus["symbol"] == "AAPL" and consensus["targetConsensus"] > 0
    providers = {entry["provider"] for entry in sandbox_upstream.request_log}
    assert ("fmp" in providers) is with_key


def test_sandbox_sources_agree(api, sandbox_upstream, settings):
    """The sandbox's FMP tells the sandbox's Yahoo story: same actions, same targets."""
    keyless = (api.get("/v2/grading-actions/NVDA").json(),
               api.get("/v2/price-target-consensus/NVDA").json())
    settings.FMP_API_KEY = KEY
    keyed_answer = (api.get("/v2/grading-actions/NVDA").json(),
                    api.get("/v2/price-target-consensus/NVDA").json())
    assert keyed_answer[0] == keyless[0]
    for name in ("targetConsensus", "targetHigh", "targetLow", "targetMedian"):
        assert keyed_answer[1][name] == pytest.approx(keyless[1][name], abs=0.006)


@pytest.mark.parametrize("key", ["", KEY])
def test_sandbox_summary_with_and_without_key(api, sandbox_upstream, settings, key):
    """Keyless, the summary is computed from the price targets of the sandbox's Yahoo
    rating-change history; with a key the sandbox's FMP answers."""
    settings.FMP_API_KEY = key
    response = api.get("/v2/price-target-summary/AAPL")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["allTimeCount"] >= body["lastYearCount"] >= body["lastQuarterCount"] \
        >= body["lastMonthCount"] >= 0
    assert body["allTimeCount"] > 0 and body["allTimeAvg"] > 0


def test_sandbox_invalid_key_falls_back(api, sandbox_upstream, settings):
    settings.FMP_API_KEY = "INVALID-key"
    assert api.get("/v2/grading-actions/AAPL").status_code == 200
    fmp_answers = [e for e in sandbox_upstream.request_log if e["provider"] == "fmp"]
    assert fmp_answers and all(e["status"] == 401 for e in fmp_answers)


@pytest.mark.parametrize("template", PATHS)
def test_sandbox_unknown_symbol_is_404(api, sandbox_upstream, settings, template):
    settings.FMP_API_KEY = KEY
    assert_api_error(api.get(template.format(s="ZZZZZZ")), 404)
