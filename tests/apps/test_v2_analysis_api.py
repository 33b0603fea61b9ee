"""GET /v2/analysis/{symbol}/{type}: every type on every recorded module (values exactly as
Yahoo sent them, {raw, fmt} reduced to raw), `fields`, paging of the list member, every
error status, the one type table shared with v1, the OpenAPI operation and the sandbox.

Also the pure helper behind it (:func:`marketdata.providers.yahoo.analysis.plain`).
"""

from __future__ import annotations

import typing
from typing import Any

import pytest

from apps.analysis import services
from apps.analysis.views import V2AnalysisView
from apps.core import v2
from marketdata.providers.yahoo.analysis import plain, raw_module
from marketdata.records.members import members_of, record_in
from tests.apps.payloads import FAILURES, QUERY2, QUOTE_SUMMARY_NOT_FOUND, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.conftest import UPSTREAM_DIR, calls_to

QS = "yahoo/v10-quoteSummary"
URL = "/v2/analysis/{symbol}/{type}"


# -- helpers shared with test_v2_holders_api ----------------------------------------------------
def as_sent(value: Any) -> Any:
    """The test's own reading of a recorded value: a Yahoo formatted value
    (``{raw, fmt, longFmt}``) is its ``raw``; Yahoo's empty ``{}`` is no value; everything
    else is kept as recorded."""
    if isinstance(value, dict):
        if value == {}:
            return None
        if "raw" in value and set(value) <= {"raw", "fmt", "longFmt"}:
            return value["raw"]
        return {key: as_sent(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_sent(item) for item in value]
    return value


# Yahoo's oddly cased names and v2's spelling, written out here independently of the code.
YAHOO_SPELLINGS = {"7daysAgo": "sevenDaysAgo", "30daysAgo": "thirtyDaysAgo",
                   "60daysAgo": "sixtyDaysAgo", "90daysAgo": "ninetyDaysAgo",
                   "upLast7days": "upLast7Days", "upLast30days": "upLast30Days",
                   "downLast30days": "downLast30Days", "downLast90days": "downLast90Days"}


def assert_served(got: Any, sent: Any, shape: Any) -> None:
    """``got`` is the recorded ``sent`` (read by :func:`as_sent`) as v2 serves it: every
    member of ``shape`` first, in its order, null where Yahoo sent none; then whatever else
    Yahoo sent; Yahoo's odd spellings in camel case; nested rows alike."""
    sent = as_sent(sent)
    if not isinstance(sent, dict) or not isinstance(shape, dict):
        assert got == sent
        return
    renamed = {YAHOO_SPELLINGS.get(k, k): v for k, v in sent.items()}
    assert list(got) == [*shape, *(k for k in renamed if k not in shape)]
    for name in shape:
        if name not in renamed:
            assert got[name] is None, name
    for name, value in renamed.items():
        inner = shape.get(name)
        if isinstance(value, list) and isinstance(inner, dict):
            assert len(got[name]) == len(value)
            for got_row, sent_row in zip(got[name], value, strict=True):
                assert_served(got_row, sent_row, inner)
        elif isinstance(value, dict) and isinstance(inner, dict):
            assert_served(got[name], value, inner)
        else:
            assert got[name] == value, name


def record_shape(record: type) -> dict:
    """A record's members, each a record's (alone or in a list) by its own shape."""
    hints = typing.get_type_hints(record)
    shape: dict[str, Any] = {}
    for m in members_of(record):
        inner, _ = record_in(hints[m.attribute])
        shape[m.name] = record_shape(inner) if inner is not None else "any"
    return shape


def v2_shape(kind) -> dict:
    """A type's v2 body shape: its record's members, its list member's rows and theirs."""
    return record_shape(kind.v2_record)


def recorded_module(recording, module: str, file: str) -> tuple[dict | None, dict]:
    """(module body or None for Yahoo's 404 payload, the quoteSummary payload to serve).
    finance-query's module-only files are put back into Yahoo's envelope."""
    payload = recording(f"{QS}/{module}/{file}")
    if "quoteSummary" not in payload:
        return payload, {"quoteSummary": {"result": [{module: payload}], "error": None}}
    result = payload["quoteSummary"]["result"]
    return (result[0][module] if result else None), payload


def symbol_of(file: str) -> str:
    """AAPL.json -> AAPL; finance-query's module-only files are AAPL's."""
    return "AAPL" if "module-only" in file else file.removesuffix(".json")


def serve(yahoo, symbol: str, payload: dict) -> None:
    status = 404 if payload["quoteSummary"]["result"] is None else 200
    yahoo.summary(symbol, payload, status=status)


def summary_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "/v10/finance/quoteSummary/")


def assert_api_error(response, status: int, error: str | None = None) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and isinstance(body["error"], str) and body["error"]
    if error is not None:
        assert body["error"] == error
    return body


def follow_pages(api, path: str, member: str, limit: int) -> list:
    """Every node of ``member`` reached by following ``endCursor`` from the first page."""
    seen: list = []
    cursor = None
    for _ in range(10_000):
        query = f"limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        response = api.get(f"{path}?{query}")
        assert response.status_code == 200, response.content
        page = response.json()[member]
        assert [e["node"] for e in page["edges"]] == page["nodes"]
        assert len(page["nodes"]) <= limit
        assert page["pageInfo"]["hasPreviousPage"] is (cursor is not None)
        seen.extend(page["nodes"])
        if not page["pageInfo"]["hasNextPage"]:
            return seen
        cursor = page["pageInfo"]["endCursor"]
        assert cursor == page["edges"][-1]["cursor"]
    raise AssertionError("paging never ended")


def recordings_in(modules: set[str]) -> set[tuple[str, str]]:
    """(module, file) of every recording on disk for ``modules``."""
    base = UPSTREAM_DIR / QS
    if not base.is_dir():
        pytest.skip("../shared/upstream absent")
    return {(m, p.name) for m in modules for p in (base / m).glob("*.json")}


# -- every type on every recording ------------------------------------------------------------
# (type, module, file, 404 message or None)
RECORDINGS = [
    ("recommendations", "recommendationTrend", "AAPL.json", None),
    ("recommendations", "recommendationTrend", "OCDO.L.json", None),
    ("recommendations", "recommendationTrend", "SPOT.json", None),
    ("recommendations", "recommendationTrend", "module-only-finance-query-2026.json", None),
    ("upgrades-downgrades", "upgradeDowngradeHistory", "AAPL.json", None),
    ("upgrades-downgrades", "upgradeDowngradeHistory", "OCDO.L.json", None),
    ("upgrades-downgrades", "upgradeDowngradeHistory", "SPOT.json", None),
    ("earnings-estimate", "earningsTrend", "AAPL.json", None),
    ("earnings-estimate", "earningsTrend", "OCDO.L.json", None),
    ("earnings-estimate", "earningsTrend", "SPOT.json", None),
    ("earnings-history", "earningsHistory", "AAPL.json", None),
    ("earnings-history", "earningsHistory", "OCDO.L.json",
     "No earnings history data found for OCDO.L"),  # history: []
    ("earnings-history", "earningsHistory", "SPOT.json", None),
]
MODULES = {"recommendations": "recommendationTrend",
           "upgrades-downgrades": "upgradeDowngradeHistory",
           "earnings-estimate": "earningsTrend", "earnings-history": "earningsHistory"}


def test_every_recording_is_covered():
    assert recordings_in(set(MODULES.values())) == {(m, f) for _, m, f, _ in RECORDINGS}


@pytest.mark.parametrize(("analysis_type", "module", "file", "missing"), RECORDINGS,
                         ids=[f"{t}-{f}" for t, _, f, _ in RECORDINGS])
def test_every_type_on_every_recording(api, yahoo, recording, analysis_type, module, file,
                                       missing):
    body, payload = recorded_module(recording, module, file)
    symbol = symbol_of(file)
    serve(yahoo, symbol, payload)
    response = api.get(URL.format(symbol=symbol, type=analysis_type))
    if missing:
        assert_api_error(response, 404, missing)
        return
    assert response.status_code == 200, response.content
    assert_served(response.json(), body, v2_shape(services.V2_TYPES[analysis_type]))
    query = summary_calls(yahoo)[0].request.url
    assert f"modules={module}" in query and "formatted=false" in query


def test_recommendations_exact_values(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/recommendationTrend/AAPL.json"))
    body = api.get("/v2/analysis/aapl/recommendations").json()
    assert body == {"trend": [
        {"period": "0m", "strongBuy": 7, "buy": 21, "hold": 14, "sell": 2, "strongSell": 2},
        {"period": "-1m", "strongBuy": 8, "buy": 21, "hold": 13, "sell": 2, "strongSell": 2},
        {"period": "-2m", "strongBuy": 8, "buy": 24, "hold": 12, "sell": 1, "strongSell": 2},
        {"period": "-3m", "strongBuy": 8, "buy": 24, "hold": 12, "sell": 1, "strongSell": 2},
    ], "maxAge": 86400}


def test_earnings_values_are_raw(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/earningsHistory/AAPL.json"))
    first = api.get("/v2/analysis/AAPL/earnings-history").json()["history"][0]
    assert first == {"maxAge": 1, "epsActual": 1.53, "epsEstimate": 1.49923,
                     "epsDifference": 0.03, "surprisePercent": 0.020499999,
                     "quarter": 1711843200, "currency": "USD", "period": "-4q"}


def test_earnings_estimate_placeholders_are_served_raw(api, yahoo, recording):
    """OCDO.L: quarters with no end date, zero analysts and Yahoo's empty {} values are
    served as sent (the years have estimates, so the type has data)."""
    yahoo.summary("OCDO.L", recording(f"{QS}/earningsTrend/OCDO.L.json"))
    trend = api.get("/v2/analysis/OCDO.L/earnings-estimate").json()["trend"]
    quarter = trend[0]
    assert quarter["period"] == "0q" and quarter["endDate"] is None
    assert quarter["growth"] is None  # Yahoo's {}
    assert quarter["earningsEstimate"]["numberOfAnalysts"] == 0  # {raw: 0, fmt: null}
    assert quarter["earningsEstimate"]["yearAgoEps"] is None
    assert [row["period"] for row in trend] == ["0q", "+1q", "0y", "+1y"]


def test_upgrade_downgrade_strings_as_sent(api, yahoo, recording):
    yahoo.summary("OCDO.L", recording(f"{QS}/upgradeDowngradeHistory/OCDO.L.json"))
    body = api.get("/v2/analysis/OCDO.L/upgrades-downgrades").json()
    assert body == {"history": [{"epochGradeDate": 1625734732, "firm": "Bernstein",
                                 "toGrade": "Outperform", "fromGrade": "", "action": "init",
                                 "priceTargetAction": None, "currentPriceTarget": None,
                                 "priorPriceTarget": None}],
                    "maxAge": 86400}


def test_estimate_rows_in_camel_case(api, yahoo, recording):
    """Yahoo's `7daysAgo` and `upLast7days` beside `downLast7Days` come out camel-cased,
    values unchanged; a revision count Yahoo leaves empty is null."""
    payload = recording(f"{QS}/earningsTrend/AAPL.json")
    sent = payload["quoteSummary"]["result"][0]["earningsTrend"]["trend"][0]
    yahoo.summary("AAPL", payload)
    row = api.get("/v2/analysis/AAPL/earnings-estimate").json()["trend"][0]
    assert list(row["epsTrend"]) == ["current", "sevenDaysAgo", "thirtyDaysAgo",
                                     "sixtyDaysAgo", "ninetyDaysAgo", "epsTrendCurrency"]
    assert row["epsTrend"]["sevenDaysAgo"] == as_sent(sent["epsTrend"]["7daysAgo"])
    assert row["epsRevisions"]["upLast7Days"] == as_sent(sent["epsRevisions"]["upLast7days"])
    assert row["epsRevisions"]["downLast30Days"] == as_sent(
        sent["epsRevisions"]["downLast30days"])
    assert not {"7daysAgo", "upLast7days", "downLast30days"} & (
        set(row["epsTrend"]) | set(row["epsRevisions"]))


# -- fields ------------------------------------------------------------------------------------
def test_fields_select_top_level_members(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/earningsHistory/AAPL.json"))
    base = "/v2/analysis/AAPL/earnings-history"
    assert api.get(f"{base}?fields=maxAge").json() == {"maxAge": 86400}
    # A requested known member is present even when Yahoo did not send it; unknown ignored.
    body = api.get(f"{base}?fields=history, defaultMethodology,nonsense").json()
    assert set(body) == {"history", "defaultMethodology"}
    assert body["defaultMethodology"] is None and len(body["history"]) == 4
    # Nothing known: everything, a known member Yahoo did not send as null.
    assert api.get(f"{base}?fields=nonsense").json()["defaultMethodology"] is None
    assert set(api.get(f"{base}?fields=nonsense").json()) == {
        "history", "maxAge", "defaultMethodology"}
    # A name of another type is not a member of this one.
    yahoo.summary("SPOT", recording(f"{QS}/recommendationTrend/SPOT.json"))
    assert set(api.get("/v2/analysis/SPOT/recommendations?fields=defaultMethodology")
               .json()) == {"trend", "maxAge"}


def test_fields_with_paging(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/upgradeDowngradeHistory/AAPL.json"))
    base = "/v2/analysis/AAPL/upgrades-downgrades"
    body = api.get(f"{base}?fields=history&limit=2").json()
    assert set(body) == {"history"} and len(body["history"]["nodes"]) == 2
    assert api.get(f"{base}?fields=maxAge&limit=2").json() == {"maxAge": 86400}


# -- paging -----------------------------------------------------------------------------------
def test_paging_visits_every_item_once(api, yahoo, recording):
    payload = recording(f"{QS}/upgradeDowngradeHistory/AAPL.json")
    yahoo.summary("AAPL", payload)
    everything = api.get("/v2/analysis/AAPL/upgrades-downgrades").json()
    assert isinstance(everything["history"], list) and len(everything["history"]) == 968
    seen = follow_pages(api, "/v2/analysis/AAPL/upgrades-downgrades", "history", 100)
    assert seen == everything["history"]
    assert len(summary_calls(yahoo)) == 1, "pages come from the cached module"


def test_paging_keeps_the_other_members(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/recommendationTrend/AAPL.json"))
    body = api.get("/v2/analysis/AAPL/recommendations?limit=1&cursor=MA").json()
    assert body["maxAge"] == 86400
    page = body["trend"]
    assert page["nodes"] == [{"period": "-1m", "strongBuy": 8, "buy": 21, "hold": 13,
                              "sell": 2, "strongSell": 2}]
    assert page["edges"] == [{"cursor": "MQ", "node": page["nodes"][0]}]
    assert page["pageInfo"] == {"startCursor": "MQ", "endCursor": "MQ", "hasNextPage": True,
                                "hasPreviousPage": True}
    empty = api.get("/v2/analysis/AAPL/recommendations?limit=0").json()["trend"]
    assert empty["nodes"] == [] and empty["pageInfo"]["hasNextPage"] is True
    past = api.get("/v2/analysis/AAPL/recommendations?cursor=OTk").json()["trend"]
    assert past["nodes"] == [] and past["pageInfo"]["hasNextPage"] is False


@pytest.mark.parametrize(("analysis_type", "module", "member"), [
    ("earnings-estimate", "earningsTrend", "trend"),
    ("earnings-history", "earningsHistory", "history"),
])
def test_each_list_type_pages_its_member(api, yahoo, recording, analysis_type, module, member):
    yahoo.summary("SPOT", recording(f"{QS}/{module}/SPOT.json"))
    path = f"/v2/analysis/SPOT/{analysis_type}"
    whole = api.get(path).json()
    assert follow_pages(api, path, member, 3) == whole[member]


# -- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["price-targets", "upgrades_downgrades", "sustainability",
                                 "RECOMMENDATIONS", "x"])
def test_unknown_type_is_400_before_any_upstream_call(api, yahoo, bad):
    response = api.get(f"/v2/analysis/AAPL/{bad}")
    assert_api_error(response, 400, "type: Input should be 'recommendations', "
                     "'upgrades-downgrades', 'earnings-estimate' or 'earnings-history'")
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("query", ["limit=-1", "limit=abc", "limit=1001", "limit=",
                                   "cursor=!!", "cursor=MB", "cursor=", "limit=2&cursor=x"])
def test_bad_limit_or_cursor_is_400_before_any_upstream_call(api, yahoo, query):
    response = api.get(f"/v2/analysis/AAPL/recommendations?{query}")
    body = assert_api_error(response, 400)
    assert body["error"].split(":")[0] in ("limit", "cursor")
    assert len(yahoo.mock.calls) == 0


def test_unknown_symbol_is_404(api, yahoo):
    yahoo.summary("ZZZZ", QUOTE_SUMMARY_NOT_FOUND, status=404)
    response = api.get("/v2/analysis/zzzz/upgrades-downgrades")
    assert_api_error(response, 404, "No upgrades/downgrades data found for ZZZZ")


def test_module_yahoo_has_no_data_for_is_404(api, yahoo, recording):
    """Yahoo's 404 for a module of a known symbol (recorded for SPOT insiderTransactions)."""
    yahoo.summary("SPOT", recording(f"{QS}/insiderTransactions/SPOT.json"), status=404)
    response = api.get("/v2/analysis/SPOT/earnings-estimate")
    assert_api_error(response, 404, "No earnings estimate data found for SPOT")


@pytest.mark.parametrize("module_body", [None, {}, {"maxAge": 1}, {"trend": [], "maxAge": 1}])
def test_empty_module_is_404(api, yahoo, module_body):
    result = {} if module_body is None else {"recommendationTrend": module_body}
    yahoo.summary("AAPL", {"quoteSummary": {"result": [result], "error": None}})
    response = api.get("/v2/analysis/AAPL/recommendations")
    assert_api_error(response, 404, "No recommendations data found for AAPL")


def test_earnings_estimate_with_only_placeholders_is_404(api, yahoo):
    row = {"period": "0q", "endDate": None, "earningsEstimate": {
        "avg": {"raw": 0}, "numberOfAnalysts": {"raw": 0}}, "revenueEstimate": {}}
    yahoo.summary("AAPL", {"quoteSummary": {"result": [{"earningsTrend": {
        "trend": [row], "maxAge": 1}}], "error": None}})
    response = api.get("/v2/analysis/AAPL/earnings-estimate")
    assert_api_error(response, 404, "No earnings estimate data found for AAPL")


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_is_404_without_upstream_call(api, yahoo, raw):
    response = api.get(f"/v2/analysis/{raw}/recommendations")
    assert_api_error(response, 404)
    assert response["Content-Type"].startswith("application/json")
    assert len(yahoo.mock.calls) == 0


def test_encoded_slash_in_symbol_is_404(api, yahoo):
    """A slash is never part of a symbol: ``AAPL%2Frecommendations`` decodes into this
    route, and the raw target (as servers pass it) shows the encoded slash."""
    for path in ("/v2/analysis/AAPL%2Frecommendations", "/v2/analysis/A%2FB/recommendations"):
        assert_api_error(api.get(path, REQUEST_URI=path), 404)
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("kind", list(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, f"{QUERY2}/v10/finance/quoteSummary/AAPL", kind)
    response = api.get("/v2/analysis/AAPL/earnings-history")
    status, _ = FAILURES[kind]
    body = assert_api_error(response, status)
    assert body["provider"] == "yahoo"


# -- the one type table ------------------------------------------------------------------------
def test_v2_enum_is_the_tables_v2_names():
    assert v2.ANALYSIS_TYPES == tuple(services.V2_TYPES)
    assert V2AnalysisView.path_choices == {"type": v2.ANALYSIS_TYPES}
    for name, kind in services.V2_TYPES.items():
        assert kind.route == name and kind.v2_list in kind.v2_members
        assert MODULES[name] == kind.module


def test_v1_choices_and_aliases_derive_from_the_table():
    assert services.ANALYSIS_TYPES == (
        "recommendations", "upgrades_downgrades", "price_targets", "earnings_estimate",
        "revenue_estimate", "earnings_history", "sustainability")
    assert services.ALIASES == {
        "upgrades-downgrades": "upgrades_downgrades", "price-targets": "price_targets",
        "earnings-estimate": "earnings_estimate", "revenue-estimate": "revenue_estimate",
        "earnings-history": "earnings_history"}
    assert {t.v1_name for t in services.TYPES.values()} == set(services.TYPES)


def test_v1_and_v2_agree_on_the_same_cached_module(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/recommendationTrend/AAPL.json"))
    v1 = api.get("/v1/analysis/AAPL/recommendations").json()["recommendations"]
    new = api.get("/v2/analysis/AAPL/recommendations").json()["trend"]
    assert [r["strong_buy"] for r in v1] == [r["strongBuy"] for r in new]
    assert len(summary_calls(yahoo)) == 1, "one cache entry per (symbol, module)"


def test_docstring_documents_every_type():
    text = V2AnalysisView.__doc__ or ""
    for name, kind in services.V2_TYPES.items():
        assert f"`{name}` -> {kind.module}" in text
        assert f"Paged: `{kind.v2_list}`" in text


# -- OpenAPI ------------------------------------------------------------------------------------
def openapi() -> dict[str, Any]:
    """The served document, built once per test process (tests/openapi_validation.py)."""
    from tests.openapi_validation import served_document

    return served_document()


def test_openapi_operation():
    op = openapi()["paths"]["/v2/analysis/{symbol}/{type}"]["get"]
    assert op["operationId"] == "get_analysis_v2" and op["tags"] == ["Analysis (v2)"]
    params = {p["name"]: p for p in op["parameters"]}
    assert sorted(params["type"]["schema"]["enum"]) == sorted(v2.ANALYSIS_TYPES)
    assert {"symbol", "fields", "cursor", "limit"} <= params.keys()
    body = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert body["type"] == "object" and body["additionalProperties"] is True
    assert {"trend", "history", "maxAge"} <= body["properties"].keys()
    assert {"400", "404", "429", "500"} <= op["responses"].keys()
    assert "earningsTrend" in op["description"]


# -- sandbox ------------------------------------------------------------------------------------
def no_formatted_values(value: Any) -> bool:
    if isinstance(value, dict):
        return not ({"raw", "fmt"} & value.keys()) and all(map(no_formatted_values,
                                                               value.values()))
    if isinstance(value, list):
        return all(map(no_formatted_values, value))
    return True


@pytest.mark.parametrize("analysis_type", v2.ANALYSIS_TYPES)
def test_sandbox_serves_every_type(api, sandbox_upstream, analysis_type):
    kind = services.V2_TYPES[analysis_type]
    response = api.get(f"/v2/analysis/AAPL/{analysis_type}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) <= set(kind.v2_members) and kind.v2_list in body
    rows = body[kind.v2_list]
    assert isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows)
    assert no_formatted_values(body)
    paged = api.get(f"/v2/analysis/AAPL/{analysis_type}?limit=1").json()[kind.v2_list]
    assert paged["nodes"] == rows[:1]


def test_sandbox_unknown_symbol_is_404(api, sandbox_upstream):
    response = api.get("/v2/analysis/ZZZZZZZZ/recommendations")
    assert_api_error(response, 404)


# -- plain() ------------------------------------------------------------------------------------
def test_plain_reduces_formatted_values_at_any_depth():
    value = {"a": {"raw": 1.5, "fmt": "1.50"}, "b": [{"raw": 2, "fmt": "2", "longFmt": "2"},
                                                    {"c": {"raw": None, "fmt": None}}],
             "d": {}, "e": "", "f": None, "g": {"fmt": "x"}, "h": {"raw": 1, "other": 2},
             "i": float("nan"), "j": True}
    assert plain(value) == {"a": 1.5, "b": [2, {"c": None}], "d": None, "e": "", "f": None,
                            "g": None, "h": {"raw": 1, "other": 2}, "i": None, "j": True}


def test_raw_module_keeps_top_level_and_order():
    assert raw_module(None) == {} and raw_module([1]) == {}
    assert list(raw_module({"z": {}, "a": {"raw": 1}})) == ["z", "a"]
    assert raw_module({"z": {}, "a": {"raw": 1}}) == {"z": None, "a": 1}
