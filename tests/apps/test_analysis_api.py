"""GET /v1/analysis/{symbol}?analysis_type= and the reference's sub-routes
(/v1/analysis/{symbol}/{type}): 200 bodies from the recordings, every 404 and 422 of the
spec with its exact body, upstream failures, and path safety."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.apps.payloads import FAILURES, QUOTE_SUMMARY_NOT_FOUND, register_failure
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.conftest import calls_to

QS = "yahoo/v10-quoteSummary"
TYPES = ("recommendations", "upgrades_downgrades", "price_targets", "earnings_estimate",
         "revenue_estimate", "earnings_history", "sustainability")
ENUM_MESSAGE = ("Input should be 'recommendations', 'upgrades_downgrades', 'price_targets', "
                "'earnings_estimate', 'revenue_estimate', 'earnings_history' or "
                "'sustainability'")
# type -> (module, AAPL recording)
SOURCES = {
    "recommendations": ("recommendationTrend", f"{QS}/recommendationTrend/AAPL.json"),
    "upgrades_downgrades": ("upgradeDowngradeHistory",
                            f"{QS}/upgradeDowngradeHistory/AAPL.json"),
    "price_targets": ("financialData", f"{QS}/financialData/AAPL.json"),
    "earnings_estimate": ("earningsTrend", f"{QS}/earningsTrend/AAPL.json"),
    "revenue_estimate": ("earningsTrend", f"{QS}/earningsTrend/AAPL.json"),
    "earnings_history": ("earningsHistory", f"{QS}/earningsHistory/AAPL.json"),
}
# esgScores: no recording exists anywhere (INDEX.md); a hand-written body in Yahoo's shape.
ESG_PAYLOAD = {"quoteSummary": {"result": [{"esgScores": {
    "maxAge": 86400, "totalEsg": {"raw": 18.42, "fmt": "18.4"},
    "environmentScore": {"raw": 1.35, "fmt": "1.4"}, "socialScore": {"raw": 8.07, "fmt": "8.1"},
    "governanceScore": {"raw": 9.0, "fmt": "9"}, "ratingYear": 2024, "ratingMonth": 5,
    "highestControversy": 3, "peerCount": 61, "esgPerformance": "AVG_PERF",
    "peerGroup": "Technology Hardware", "relatedControversy": [],
    "peerEsgScorePerformance": {"min": 7.4, "avg": 16.2, "max": 31.9},
    "percentile": {"raw": 16.5, "fmt": "17"}, "adult": False, "tobacco": False,
}}], "error": None}}


def no_data(module: str) -> dict:
    return {"quoteSummary": {"result": None, "error": {
        "code": "Not Found",
        "description": f"No fundamentals data found for any of the summaryTypes={module}"}}}


def body_with(analysis_type: str, member) -> dict:
    body = {"symbol": "AAPL", "analysis_type": analysis_type}
    body.update({t: None for t in TYPES})
    body[analysis_type] = member
    return body


def summary_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "/v10/finance/quoteSummary/")


# -- 200 ---------------------------------------------------------------------------------------
def test_recommendations(api, yahoo, recording):
    yahoo.summary("AAPL", recording(SOURCES["recommendations"][1]))
    response = api.get("/v1/analysis/AAPL?analysis_type=recommendations")
    assert response.status_code == 200, response.content
    assert response.json() == body_with("recommendations", [
        {"period": "0m", "strong_buy": 7, "buy": 21, "hold": 14, "sell": 2, "strong_sell": 2},
        {"period": "-1m", "strong_buy": 8, "buy": 21, "hold": 13, "sell": 2, "strong_sell": 2},
        {"period": "-2m", "strong_buy": 8, "buy": 24, "hold": 12, "sell": 1, "strong_sell": 2},
        {"period": "-3m", "strong_buy": 8, "buy": 24, "hold": 12, "sell": 1, "strong_sell": 2},
    ])


def test_upgrades_downgrades(api, yahoo, recording):
    yahoo.summary("AAPL", recording(SOURCES["upgrades_downgrades"][1]))
    response = api.get("/v1/analysis/aapl?analysis_type=upgrades_downgrades")
    assert response.status_code == 200, response.content
    body = response.json()
    rows = body["upgrades_downgrades"]
    assert body == body_with("upgrades_downgrades", rows)  # symbol upper-cased
    assert len(rows) == 968
    assert rows[:3] == [
        {"firm": "Citigroup", "to_grade": "Buy", "from_grade": "Buy", "action": None,
         "date": "2025-01-31T19:45:59Z"},
        {"firm": "Needham", "to_grade": "Buy", "from_grade": "Buy", "action": None,
         "date": "2025-01-31T12:31:06Z"},
        {"firm": "Morgan Stanley", "to_grade": "Overweight", "from_grade": "Overweight",
         "action": None, "date": "2025-01-31T12:09:41Z"},
    ]
    # The spec's action is "upgrade or downgrade"; maintained, reiterated and initiated
    # ratings (Yahoo's main, reit, init) are null.
    assert {r["action"] for r in rows} == {"upgrade", "downgrade", None}


def test_upgrades_downgrades_action_is_the_spec_enum_or_null(api, yahoo, recording):
    """Issue 13 item 6: a client generated from the spec accepts every row, on the query
    form and the sub-route alias; the OpenAPI schema says the same."""
    yahoo.summary("AAPL", recording(SOURCES["upgrades_downgrades"][1]))
    for url in ("/v1/analysis/AAPL?analysis_type=upgrades_downgrades",
                "/v1/analysis/AAPL/upgrades-downgrades"):
        rows = api.get(url).json()["upgrades_downgrades"]
        assert {r["action"] for r in rows} <= {"upgrade", "downgrade", None}, url
        oppenheimer = rows[9]
        assert (oppenheimer["firm"], oppenheimer["from_grade"], oppenheimer["to_grade"],
                oppenheimer["action"]) == ("Oppenheimer", "Outperform", "Perform", "downgrade")
        assert sum(r["action"] == "upgrade" for r in rows) == 37
    schema = api.get("/openapi.json").json()["components"]["schemas"]
    action = schema["UpgradeDowngrade"]["properties"]["action"]
    # OpenAPI 3.1: null is one of the alternatives (there is no `nullable`).
    enums = [schema[ref["$ref"].rsplit("/", 1)[1]] for ref in action["oneOf"]]
    assert {"type": "null"} in enums
    assert {v for e in enums for v in e.get("enum", ())} - {None, ""} == {"upgrade",
                                                                         "downgrade"}


def test_upgrades_downgrades_initiation_keeps_empty_from_grade(api, yahoo, recording):
    yahoo.summary("OCDO.L", recording(f"{QS}/upgradeDowngradeHistory/OCDO.L.json"))
    response = api.get("/v1/analysis/OCDO.L?analysis_type=upgrades_downgrades")
    assert response.status_code == 200
    assert response.json()["upgrades_downgrades"] == [
        {"firm": "Bernstein", "to_grade": "Outperform", "from_grade": "", "action": None,
         "date": "2021-07-08T08:58:52Z"}]


def test_price_targets(api, yahoo, recording):
    yahoo.summary("AAPL", recording(SOURCES["price_targets"][1]))
    response = api.get("/v1/analysis/AAPL?analysis_type=price_targets")
    assert response.status_code == 200
    assert response.json() == body_with("price_targets", {
        "current": 245.55, "mean": 252.22575, "median": 257.5, "low": 197.0, "high": 325.0})


AAPL_EPS = {
    "2025-03-31": {"avg": 1.60796, "low": 1.5, "high": 1.67, "numberOfAnalysts": 27,
                   "yearAgoEps": 1.53, "growth": 0.051, "period": "0q", "currency": "USD"},
    "2025-06-30": {"avg": 1.49709, "low": 1.36, "high": 1.57, "numberOfAnalysts": 26,
                   "yearAgoEps": 1.4, "growth": 0.0694, "period": "+1q", "currency": "USD"},
    "2025-09-30": {"avg": 7.3157, "low": 6.93, "high": 7.65, "numberOfAnalysts": 38,
                   "yearAgoEps": 6.08, "growth": 0.2032, "period": "0y", "currency": "USD"},
    "2026-09-30": {"avg": 8.19607, "low": 7.38, "high": 9.0, "numberOfAnalysts": 39,
                   "yearAgoEps": 7.3157, "growth": 0.120299995, "period": "+1y",
                   "currency": "USD"},
}
AAPL_REVENUE = {
    "2025-03-31": {"avg": 94076168920.0, "low": 89370000000.0, "high": 95903397000.0,
                   "numberOfAnalysts": 27, "yearAgoRevenue": 90753000000.0, "growth": 0.0366,
                   "period": "0q", "currency": "USD"},
    "2025-06-30": {"avg": 89371168280.0, "low": 80688000000.0, "high": 92993850400.0,
                   "numberOfAnalysts": 26, "yearAgoRevenue": 85777000000.0, "growth": 0.0419,
                   "period": "+1q", "currency": "USD"},
    "2025-09-30": {"avg": 409079556900.0, "low": 389800000000.0, "high": 431783000000.0,
                   "numberOfAnalysts": 39, "yearAgoRevenue": 391035000000.0, "growth": 0.0461,
                   "period": "0y", "currency": "USD"},
    "2026-09-30": {"avg": 442217695300.0, "low": 401400000000.0, "high": 477463000000.0,
                   "numberOfAnalysts": 41, "yearAgoRevenue": 409079556900.0, "growth": 0.081,
                   "period": "+1y", "currency": "USD"},
}


def test_earnings_estimate(api, yahoo, recording):
    yahoo.summary("AAPL", recording(SOURCES["earnings_estimate"][1]))
    response = api.get("/v1/analysis/AAPL?analysis_type=earnings_estimate")
    assert response.status_code == 200
    assert response.json() == body_with("earnings_estimate", {"estimates": AAPL_EPS})


def test_revenue_estimate(api, yahoo, recording):
    yahoo.summary("AAPL", recording(SOURCES["revenue_estimate"][1]))
    response = api.get("/v1/analysis/AAPL?analysis_type=revenue_estimate")
    assert response.status_code == 200
    assert response.json() == body_with("revenue_estimate", {"estimates": AAPL_REVENUE})


def test_estimates_share_one_upstream_call(api, yahoo, recording):
    yahoo.summary("AAPL", recording(SOURCES["earnings_estimate"][1]))
    assert api.get("/v1/analysis/AAPL?analysis_type=earnings_estimate").status_code == 200
    assert api.get("/v1/analysis/AAPL?analysis_type=revenue_estimate").status_code == 200
    assert len(summary_calls(yahoo)) == 1


def test_estimates_skip_periods_without_end_date_or_analysts(api, yahoo, recording):
    """OCDO.L: the quarters have no end date and zero analysts; only the years remain."""
    yahoo.summary("OCDO.L", recording(f"{QS}/earningsTrend/OCDO.L.json"))
    response = api.get("/v1/analysis/OCDO.L?analysis_type=earnings_estimate")
    assert response.status_code == 200
    assert response.json()["earnings_estimate"] == {"estimates": {
        "2024-11-30": {"avg": -0.38265, "low": -0.435, "high": -0.2859, "numberOfAnalysts": 10,
                       "yearAgoEps": -0.41384, "growth": 0.0754, "period": "0y",
                       "currency": "GBP"},
        "2025-11-30": {"avg": -0.35922, "low": -0.4414, "high": -0.303, "numberOfAnalysts": 9,
                       "yearAgoEps": -0.38265, "growth": 0.0612, "period": "+1y",
                       "currency": "GBP"},
    }}


def test_estimates_quarter_and_year_ending_the_same_day(api, yahoo, recording):
    """THYAO.IS: 0q and 0y both end 2024-12-31. The EPS quarter is a placeholder (0
    analysts), so the year fills that date; the revenue quarter is real, so it is kept."""
    yahoo.summary("THYAO.IS", recording(f"{QS}/_all-modules/THYAO.IS.json"))
    eps = api.get("/v1/analysis/THYAO.IS?analysis_type=earnings_estimate").json()
    assert {d: v["period"] for d, v in eps["earnings_estimate"]["estimates"].items()} == {
        "2024-12-31": "0y", "2025-12-31": "+1y"}
    assert eps["earnings_estimate"]["estimates"]["2024-12-31"]["avg"] == 75.2165
    revenue = api.get("/v1/analysis/THYAO.IS?analysis_type=revenue_estimate").json()
    estimates = revenue["revenue_estimate"]["estimates"]
    assert {d: v["period"] for d, v in estimates.items()} == {"2024-12-31": "0q",
                                                              "2025-12-31": "+1y"}
    assert estimates["2024-12-31"]["numberOfAnalysts"] == 2


def test_earnings_history(api, yahoo, recording):
    yahoo.summary("AAPL", recording(SOURCES["earnings_history"][1]))
    response = api.get("/v1/analysis/AAPL?analysis_type=earnings_history")
    assert response.status_code == 200
    assert response.json() == body_with("earnings_history", [
        {"date": "2024-03-31T00:00:00Z", "eps_actual": 1.53, "eps_estimate": 1.49923,
         "surprise": 0.03, "surprise_percent": 0.020499999},
        {"date": "2024-06-30T00:00:00Z", "eps_actual": 1.4, "eps_estimate": 1.34086,
         "surprise": 0.06, "surprise_percent": 0.044099998},
        {"date": "2024-09-30T00:00:00Z", "eps_actual": 0.97, "eps_estimate": 0.94654,
         "surprise": 0.02, "surprise_percent": 0.0248},
        {"date": "2024-12-31T00:00:00Z", "eps_actual": 2.4, "eps_estimate": 2.34102,
         "surprise": 0.06, "surprise_percent": 0.0252},
    ])


def test_sustainability_hand_written_payload(api, yahoo):
    yahoo.summary("AAPL", ESG_PAYLOAD)
    response = api.get("/v1/analysis/AAPL?analysis_type=sustainability")
    assert response.status_code == 200
    assert response.json() == body_with("sustainability", {"scores": {
        "environmentScore": 1.35, "socialScore": 8.07, "governanceScore": 9.0,
        "totalEsg": 18.42}})
    query = parse_qs(urlsplit(summary_calls(yahoo)[0].request.url).query)
    assert query["modules"] == ["esgScores"]


def test_missing_fields_are_null(api, yahoo):
    yahoo.summary("AAPL", {"quoteSummary": {"result": [{"financialData": {
        "maxAge": 86400, "targetMeanPrice": 10.5, "targetLowPrice": {}}}], "error": None}})
    response = api.get("/v1/analysis/AAPL?analysis_type=price_targets")
    assert response.status_code == 200
    assert response.json()["price_targets"] == {"current": None, "mean": 10.5, "median": None,
                                                "low": None, "high": None}


@pytest.mark.parametrize("analysis_type", list(SOURCES))
def test_each_type_asks_for_its_module(api, yahoo, recording, analysis_type):
    module, path = SOURCES[analysis_type]
    yahoo.summary("AAPL", recording(path))
    response = api.get(f"/v1/analysis/AAPL?analysis_type={analysis_type}")
    assert response.status_code == 200
    body = response.json()
    assert list(body) == ["symbol", "analysis_type", *TYPES]
    assert body["analysis_type"] == analysis_type
    assert [t for t in TYPES if body[t] is not None] == [analysis_type]
    (call,) = summary_calls(yahoo)
    url = urlsplit(call.request.url)
    assert url.path == "/v10/finance/quoteSummary/AAPL"
    query = parse_qs(url.query)
    assert query["modules"] == [module] and query["formatted"] == ["false"]


# -- the reference's sub-routes --------------------------------------------------------------------
@pytest.mark.parametrize(("name", "analysis_type"), [
    ("recommendations", "recommendations"), ("upgrades-downgrades", "upgrades_downgrades"),
    ("price-targets", "price_targets"), ("earnings-estimate", "earnings_estimate"),
    ("revenue-estimate", "revenue_estimate"), ("earnings-history", "earnings_history"),
    ("price_targets", "price_targets"), ("earnings_history", "earnings_history"),
])
def test_alias_gives_the_query_form_body(api, yahoo, recording, name, analysis_type):
    yahoo.summary("AAPL", recording(SOURCES[analysis_type][1]))
    alias = api.get(f"/v1/analysis/AAPL/{name}")
    assert alias.status_code == 200, alias.content
    query = api.get(f"/v1/analysis/AAPL?analysis_type={analysis_type}")
    assert alias.json() == query.json()
    assert alias.json()["analysis_type"] == analysis_type


def test_alias_sustainability(api, yahoo):
    yahoo.summary("AAPL", ESG_PAYLOAD)
    response = api.get("/v1/analysis/AAPL/sustainability")
    assert response.status_code == 200
    assert response.json()["sustainability"]["scores"]["totalEsg"] == 18.42


@pytest.mark.parametrize("name", ["foo", "Price-Targets", "price targets", "sustainability-"])
def test_alias_unknown_type_is_422(api, yahoo, name):
    response = api.get(f"/v1/analysis/AAPL/{name}")
    assert response.status_code == 422
    assert response.json() == {"detail": [{"type": "enum", "loc": ["path", "analysis_type"],
                                            "msg": ENUM_MESSAGE, "input": name}]}
    assert summary_calls(yahoo) == []


# -- 404 ---------------------------------------------------------------------------------------
def test_unknown_symbol_404(api, yahoo):
    yahoo.summary("ZZZZ", QUOTE_SUMMARY_NOT_FOUND, status=404)
    response = api.get("/v1/analysis/ZZZZ?analysis_type=recommendations")
    assert response.status_code == 404
    assert response.json() == {"detail": "No recommendations data found for ZZZZ"}


def test_no_module_data_404_recording(api, yahoo, recording):
    yahoo.summary("BTC-USD", recording(f"{QS}/financialData/BTC-USD.json"), status=404)
    response = api.get("/v1/analysis/BTC-USD?analysis_type=price_targets")
    assert response.status_code == 404
    assert response.json() == {"detail": "No price targets data found for BTC-USD"}


@pytest.mark.parametrize(("analysis_type", "module", "label"), [
    ("upgrades_downgrades", "upgradeDowngradeHistory", "upgrades/downgrades"),
    ("earnings_estimate", "earningsTrend", "earnings estimate"),
    ("revenue_estimate", "earningsTrend", "revenue estimate"),
    ("earnings_history", "earningsHistory", "earnings history"),
    ("sustainability", "esgScores", "sustainability"),
])
def test_no_module_data_404(api, yahoo, analysis_type, module, label):
    yahoo.summary("QQQ", no_data(module), status=404)
    response = api.get(f"/v1/analysis/QQQ?analysis_type={analysis_type}")
    assert response.status_code == 404
    assert response.json() == {"detail": f"No {label} data found for QQQ"}


def test_empty_module_404(api, yahoo, recording):
    yahoo.summary("OCDO.L", recording(f"{QS}/earningsHistory/OCDO.L.json"))
    response = api.get("/v1/analysis/OCDO.L?analysis_type=earnings_history")
    assert response.status_code == 404
    assert response.json() == {"detail": "No earnings history data found for OCDO.L"}


def test_module_left_out_404(api, yahoo, recording):
    """An answer without the module (Yahoo omits modules it has no data for)."""
    yahoo.summary("QQQ", recording(f"{QS}/_all-modules/QQQ.json"))
    response = api.get("/v1/analysis/QQQ?analysis_type=recommendations")
    assert response.status_code == 404
    assert response.json() == {"detail": "No recommendations data found for QQQ"}


def test_price_targets_without_any_target_404(api, yahoo):
    yahoo.summary("TINY", {"quoteSummary": {"result": [{"financialData": {
        "maxAge": 86400, "currentPrice": 3.1, "financialCurrency": "USD"}}], "error": None}})
    response = api.get("/v1/analysis/TINY?analysis_type=price_targets")
    assert response.status_code == 404
    assert response.json() == {"detail": "No price targets data found for TINY"}


def test_malformed_symbol_404_without_upstream_call(api, yahoo):
    response = api.get("/v1/analysis/A%20B?analysis_type=recommendations")
    assert response.status_code == 404
    assert response.json() == {"detail": "Symbol not found: 'A B'"}
    assert len(yahoo.mock.calls) == 0


# -- 422 ---------------------------------------------------------------------------------------
def test_invalid_type_422(api, yahoo):
    response = api.get("/v1/analysis/AAPL?analysis_type=foo")
    assert response.status_code == 422
    assert response.json() == {"detail": [{"type": "enum", "loc": ["query", "analysis_type"],
                                           "msg": ENUM_MESSAGE, "input": "foo"}]}
    assert len(yahoo.mock.calls) == 0


def test_missing_type_422(api, yahoo):
    response = api.get("/v1/analysis/AAPL")
    assert response.status_code == 422
    assert response.json() == {"detail": [{"type": "missing", "loc": ["query", "analysis_type"],
                                           "msg": "Field required", "input": None}]}
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("value", ["", "price-targets", "RECOMMENDATIONS"])
def test_other_invalid_types_422(api, yahoo, value):
    response = api.get(f"/v1/analysis/AAPL?analysis_type={value}")
    assert response.status_code == 422
    assert response.json() == {"detail": [{"type": "enum", "loc": ["query", "analysis_type"],
                                           "msg": ENUM_MESSAGE, "input": value}]}


def test_invalid_type_wins_over_malformed_symbol(api, yahoo):
    response = api.get("/v1/analysis/A%20B?analysis_type=foo")
    assert response.status_code == 422
    assert len(yahoo.mock.calls) == 0


# -- upstream failures ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(FAILURES))
def test_upstream_failures(api, yahoo, kind):
    register_failure(yahoo.mock, "quotes", kind)  # the AAPL quoteSummary URL
    response = api.get("/v1/analysis/AAPL?analysis_type=recommendations")
    status, code = FAILURES[kind]
    assert response.status_code == status
    body = response.json()
    assert set(body) == {"detail", "provider", "code"}
    assert body["provider"] == "yahoo" and body["code"] == code
    assert response["X-Correlation-ID"]


# -- path safety --------------------------------------------------------------------------------
@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_query_form(api, yahoo, raw):
    response = api.get(f"/v1/analysis/{raw}?analysis_type=recommendations")
    assert response.status_code in (404, 422), response.content
    assert response["Content-Type"].startswith("application/json")
    assert "detail" in response.json()
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_alias_form(api, yahoo, raw):
    response = api.get(f"/v1/analysis/{raw}/price-targets")
    assert response.status_code in (404, 422), response.content
    assert response["Content-Type"].startswith("application/json")
    assert "detail" in response.json()
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("path", [
    "/v1/analysis/A%2FB", "/v1/analysis/A%2FB?analysis_type=recommendations",
    "/v1/analysis/..%2F..%2Fv7%2Ffinance%2Fquote?analysis_type=recommendations",
    "/v1/analysis/AAPL%2F..%2F..%2Fv7/recommendations",
])
def test_encoded_slashes(api, yahoo, path):
    response = api.get(path)
    assert response.status_code in (404, 422), response.content
    assert "detail" in response.json()
    assert len(yahoo.mock.calls) == 0


def test_encoded_slash_reaching_the_alias_route_is_404(api, yahoo):
    """/v1/analysis/AAPL%2Fprice-targets decodes to the alias route; with the raw target
    (gunicorn's RAW_URI) the view sees the slash was part of the symbol."""
    response = api.get("/v1/analysis/AAPL/price-targets",
                       RAW_URI="/v1/analysis/AAPL%2Fprice-targets")
    assert response.status_code == 404
    assert response.json() == {"detail": "Symbol not found: 'AAPL/price-targets'"}
    assert len(yahoo.mock.calls) == 0


def test_raw_target_without_encoded_slash_is_served(api, yahoo, recording):
    yahoo.summary("AAPL", recording(SOURCES["price_targets"][1]))
    response = api.get("/v1/analysis/AAPL/price-targets",
                       RAW_URI="/v1/analysis/AAPL/price-targets?x=a%2Fb")
    assert response.status_code == 200
