"""The OpenAPI schema says what validation does (issue 13, item 7).

schemathesis found requests the schema called invalid that were accepted (an empty
``count=``, ``region=``, ``frequency=``, ``interval=`` read as absent), requests the schema
called valid that were refused (``symbols=``, a NUL in a symbol or search query, an unknown
``functions`` name), and an undocumented 404 (``/v1/sectors/details/<control characters>``).
Each case is checked here from both sides: what ``/openapi.json`` says about the value, and
what the endpoint answers (never after an upstream call).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlencode

import jsonschema
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from apps.indicators.serializers import FUNCTION_NAMES, function_list
from marketdata.errors import InvalidParameters
from marketdata.indicators.functions import ALL_PARAMS


def openapi() -> dict[str, Any]:
    """The served document, built once per test process (tests/openapi_validation.py)."""
    from tests.openapi_validation import served_document

    return served_document()


def operation(path: str) -> dict[str, Any]:
    """The path's operation: its GET, or its POST for the one POST endpoint (backtests)."""
    item = openapi()["paths"][path]
    return item["get"] if "get" in item else item["post"]


def parameter(path: str, name: str) -> dict[str, Any]:
    found = [p for p in operation(path)["parameters"] if p["name"] == name]
    assert len(found) == 1, (path, name)
    return found[0]


def schema_accepts(path: str, name: str, value: str) -> bool:
    """Whether the parameter's schema admits the string (as a query value is sent)."""
    schema = parameter(path, name)["schema"]
    if schema.get("type") in ("integer", "boolean"):
        assert value == "", "only the empty value is checked for non-string parameters"
        return False  # a query value is a string; "" is no integer or boolean
    return jsonschema.Draft4Validator(schema).is_valid(value)


def assert_no_upstream_call(yahoo) -> None:
    assert [c.request.url for c in yahoo.mock.calls] == []


# -- empty values: the schema rejects "", and so does the endpoint ------------------------------
# A valid value for every required parameter, so that only the empty one is wrong.
_VALID_QUERY = {"symbol": "AAPL", "symbols": "AAPL,MSFT", "query": "apple", "function": "SMA",
                "range": "1y", "interval": "1d", "statement": "income",
                "analysis_type": "recommendations", "holder_type": "major",
                "q": "apple",  # /v2/search, /v2/lookup
                "name": "berkshire"}  # /v2/filings/13f/search
_VALID_PATH = {"symbol": "AAPL", "sector": "Technology", "analysis_type": "recommendations",
               "holder_type": "major", "id": "DGS10", "from": "EUR", "to": "USD",
               "screener": "gainers", "statement": "income", "cik": "1067983"}
# v2's `{type}` path segment: a valid value per endpoint.
_VALID_TYPE = {"/v2/analysis/": "recommendations", "/v2/holders/": "major"}


def _path_value(path: str, name: str) -> str:
    if path.startswith("/v2/sectors/") and name == "sector":
        return "technology"  # v2 takes the key; v1's `sector` is the display name
    if name == "industry":
        return "semiconductors"
    if path.startswith("/v2/crypto/coins/") and name == "id":
        return "bitcoin"  # a CoinGecko coin id (`id` elsewhere is a FRED series)
    if name == "type":
        return next(v for prefix, v in _VALID_TYPE.items() if path.startswith(prefix))
    return _VALID_PATH[name]
# `fields` (v2) is documented to accept "" (it selects everything); the stream is an SSE
# endpoint with its own tests (its 422 comes from the same symbol_list()).
_EMPTY_ALLOWED = {"fields"}
_SKIPPED_PATHS = {"/v1/stream/quotes"}


def _query_parameters() -> list[tuple[str, str]]:
    out = []
    for path, item in openapi()["paths"].items():
        if path in _SKIPPED_PATHS or "get" not in item:
            continue
        for param in item["get"].get("parameters", []):
            if param["in"] == "query" and param["name"] not in _EMPTY_ALLOWED:
                out.append((path, param["name"]))
    return out


def _url(path: str, empty: str) -> str:
    concrete = re.sub(r"\{(\w+)\}", lambda m: quote(_path_value(path, m.group(1)), safe=""),
                      path)
    query = {p["name"]: _VALID_QUERY[p["name"]] for p in operation(path)["parameters"]
             if p["in"] == "query" and p.get("required") and p["name"] != empty}
    return f"{concrete}?{urlencode(query)}&{empty}=" if query else f"{concrete}?{empty}="


QUERY_PARAMETERS = _query_parameters()
_PYTHON_NAMES = {param.alias: param.name for param in ALL_PARAMS.values()}


def test_the_parameter_list_covers_the_cases_schemathesis_found():
    found = set(QUERY_PARAMETERS)
    for case in [("/v1/gainers", "count"), ("/v1/indices", "region"),
                 ("/v1/financials/{symbol}", "frequency"), ("/v1/indicators", "interval"),
                 ("/v1/quotes", "symbols"), ("/v2/indicators", "cursor")]:
        assert case in found, case


@pytest.mark.parametrize(("path", "name"), QUERY_PARAMETERS,
                         ids=[f"{p}:{n}" for p, n in QUERY_PARAMETERS])
def test_an_empty_value_is_invalid_in_the_schema_and_refused(api, yahoo, path, name):
    assert not schema_accepts(path, name, ""), "the schema must not admit an empty value"
    response = api.get(_url(path, name))
    v2 = path.startswith("/v2/")
    assert response.status_code == (400 if v2 else 422), response.content
    assert str(response.status_code) in operation(path)["responses"]
    body = response.json()
    if v2:
        assert body["error"].startswith(f"{name}: "), body
    else:
        errors = body.get("errors") or {e["loc"][-1]: [e["msg"]] for e in body["detail"]}
        keys = {name, _PYTHON_NAMES.get(name, name)}  # indicator periods: python names
        assert any(key in keys or key.startswith(f"{name}.") for key in errors), body
    assert_no_upstream_call(yahoo)


@pytest.mark.parametrize(("url", "param", "message"), [
    ("/v1/gainers?count=", "count", "Input should be '25', '50' or '100'"),
    ("/v1/actives?count=", "count", "Input should be '25', '50' or '100'"),
    ("/v1/losers?count=", "count", "Input should be '25', '50' or '100'"),
    ("/v1/indices?region=", "region",
     "Input should be 'US', 'NA', 'SA', 'EU', 'AS', 'AF', 'ME', 'OCE' or 'global'"),
    ("/v1/indicators?symbol=AAPL&interval=", "interval",
     "Input should be '1m', '5m', '15m', '30m', '1h', '1d', '1wk' or '1mo'"),
    ("/v1/search?query=apple&hits=", "hits",
     "Input should be a valid integer, unable to parse string as an integer"),
    ("/v1/historical?symbol=AAPL&range=1y&interval=1d&epoch=", "epoch",
     "Input should be a valid boolean, unable to interpret input"),
])
def test_empty_values_get_the_parameters_usual_message(api, yahoo, url, param, message):
    response = api.get(url)
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request", "errors": {param: [message]}}
    assert_no_upstream_call(yahoo)


def test_the_422_description_says_empty_values_are_invalid():
    for path in ("/v1/gainers", "/v1/indices", "/v1/financials/{symbol}", "/v1/indicators"):
        assert "An empty value" in operation(path)["responses"]["422"]["description"], path


# -- symbols: blank is a 422, anything else non-blank that is malformed is a 404 ---------------
SYMBOL_ENDPOINTS = {
    "/v1/historical": "/v1/historical?range=1y&interval=1d&symbol={}",
    "/v1/similar": "/v1/similar?symbol={}",
    "/v1/news": "/v1/news?symbol={}",
    "/v1/indicator": "/v1/indicator?function=SMA&symbol={}",
    "/v1/indicators": "/v1/indicators?symbol={}",
}


@pytest.mark.parametrize("path", list(SYMBOL_ENDPOINTS))
@pytest.mark.parametrize("raw", ["A%00", "%00", "%1F%07", "AA%00PL", "%C2%92%00u"])
def test_a_symbol_with_control_characters_is_an_unknown_symbol(api, yahoo, path, raw):
    # schemathesis: `symbol=1%06...%00...` was a 422 "Null characters are not allowed."
    # although the schema admits any non-blank text; it is a malformed symbol, so 404.
    from urllib.parse import unquote

    assert schema_accepts(path, "symbol", unquote(raw))
    response = api.get(SYMBOL_ENDPOINTS[path].format(raw))
    assert response.status_code == 404, response.content
    assert response.json()["detail"].startswith("Symbol not found: ")
    assert "\x00" not in response.json()["detail"]
    assert_no_upstream_call(yahoo)


@pytest.mark.parametrize("path", list(SYMBOL_ENDPOINTS))
@pytest.mark.parametrize("raw", ["", "%20", "%20%09%20", "%1E", "%C2%85%E3%80%80"])
def test_a_blank_symbol_is_invalid_in_the_schema_and_a_422(api, yahoo, path, raw):
    from urllib.parse import unquote

    assert not schema_accepts(path, "symbol", unquote(raw))
    response = api.get(SYMBOL_ENDPOINTS[path].format(raw))
    assert response.status_code == 422, response.content
    assert response.json()["errors"] == {"symbol": ["String should have at least 1 character"]}
    assert_no_upstream_call(yahoo)


@pytest.mark.parametrize("path", ["/v1/quotes", "/v1/simple-quotes"])
@pytest.mark.parametrize("raw", ["", ",", "%20,%20,", ",,,", "%1E", "%1C,%1F"])
def test_symbols_without_an_item_are_invalid_in_the_schema_and_a_422(api, yahoo, path, raw):
    # schemathesis: `symbols=` was schema-valid (no minLength) but refused.
    from urllib.parse import unquote

    assert not schema_accepts(path, "symbols", unquote(raw))
    response = api.get(f"{path}?symbols={raw}")
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request", "errors": {
        "symbols": ["String should have at least 1 character"]}}
    assert_no_upstream_call(yahoo)


@pytest.mark.parametrize("value", ["AAPL", "AAPL,,MSFT", " aapl ", "A\x00B", ",AAPL,",
                                   "\ufeff"])
def test_symbols_with_an_item_are_valid_in_the_schema(value):
    for path in ("/v1/quotes", "/v1/simple-quotes", "/v2/indicators"):
        assert schema_accepts(path, "symbols", value), (path, value)


def test_v2_symbols_without_an_item_are_a_400(api, yahoo):
    assert not schema_accepts("/v2/indicators", "symbols", ", ,")
    response = api.get("/v2/indicators?symbols=,%20,")
    assert response.status_code == 400
    assert response.json() == {"error": "symbols: String should have at least 1 character",
                               "status": 400}
    assert_no_upstream_call(yahoo)


def test_a_v2_symbol_list_item_with_a_nul_is_an_unknown_symbol_not_a_400(api, yahoo):
    response = api.get("/v2/indicators?symbols=AA%00PL")
    assert response.status_code == 200
    body = response.json()
    assert body["indicators"] == []
    assert [e["symbol"] for e in body["errors"]] == ["AA\x00PL"]
    assert_no_upstream_call(yahoo)


# -- search query: blank or with a NUL is a 422, and the schema says so ------------------------
@pytest.mark.parametrize(("raw", "message"), [
    ("%20%20", "String should have at least 1 character"),
    ("%1C%C2%A0", "String should have at least 1 character"),
    ("ab%00c", "Null characters are not allowed."),
])
def test_search_query_rules_are_in_the_schema(api, yahoo, raw, message):
    from urllib.parse import unquote

    assert not schema_accepts("/v1/search", "query", unquote(raw))
    response = api.get(f"/v1/search?query={raw}")
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request", "errors": {"query": [message]}}
    assert_no_upstream_call(yahoo)


@pytest.mark.parametrize("value", ["apple", " apple ", "Ñ", "a\x14b"])
def test_search_query_values_the_schema_admits(value):
    assert schema_accepts("/v1/search", "query", value)


# -- functions (/v1/indicators): the schema's pattern is exactly what function_list() takes ----
def _accepted(text: str) -> bool:
    try:
        function_list(text)
    except InvalidParameters:
        return False
    return True


_NAMES = [*FUNCTION_NAMES, "SUPER_TREND"]
_ITEMS = st.one_of(
    st.sampled_from(_NAMES),
    st.sampled_from(_NAMES).map(str.lower),
    st.sampled_from(_NAMES).map(str.title),
    st.sampled_from(["", " ", "0", "X", "SMAX", "S MA", "\u017fma", "rsi\u00a0", "\tRSI ",
                     "\x1eRSI", "\ufeffRSI", "RSI\x85", "\u3000"]),
)


@hypothesis_settings(max_examples=300, deadline=None)
@given(st.lists(_ITEMS, min_size=1, max_size=5).map(",".join))
def test_functions_pattern_matches_what_the_endpoint_accepts(text):
    schema = parameter("/v1/indicators", "functions")["schema"]
    in_schema = jsonschema.Draft4Validator(schema).is_valid(text)
    # DRF trims the value before function_list() sees it; a blank value is DRF's 422.
    assert in_schema == (bool(text.strip()) and _accepted(text.strip())), text


@pytest.mark.parametrize("raw", ["0", "RSI,0", "%C5%BFma", "", "%20,%20"])
def test_unknown_or_missing_function_names_are_a_422(api, yahoo, raw):
    # schemathesis: `functions=0` was schema-valid (any string) but refused.
    from urllib.parse import unquote

    assert not schema_accepts("/v1/indicators", "functions", unquote(raw))
    response = api.get(f"/v1/indicators?symbol=AAPL&functions={raw}")
    assert response.status_code == 422
    assert set(response.json()["errors"]) == {"functions"}
    assert_no_upstream_call(yahoo)


def test_the_indicator_function_is_not_upper_cased_from_a_long_s(api, yahoo):
    response = api.get("/v1/indicator?function=%C5%BFma&symbol=AAPL")  # U+017F + "ma"
    assert response.status_code == 422
    assert set(response.json()["errors"]) == {"function"}
    assert_no_upstream_call(yahoo)


def test_indicator_periods_document_their_bounds():
    schema = parameter("/v1/indicator", "lookBackPeriod")["schema"]
    assert (schema["minimum"], schema["maximum"]) == (1, 1000)
    assert parameter("/v1/indicator", "stdDev")["schema"]["maximum"] == 10
    assert parameter("/v1/indicator", "multiplier")["schema"]["maximum"] == 100


# -- rules between parameters: documented 400/422, not expressible per parameter ---------------
@pytest.mark.parametrize(("url", "body"), [
    ("/v1/historical?symbol=AAPL&range=max&interval=1m",
     {"detail": "If range is max, interval must be 1mo"}),
    ("/v1/indicator?function=SMA&symbol=AAPL&range=2y&interval=1m",
     {"detail": "If interval is 1m, range must be 1d, 5d"}),
    ("/v2/indicators?symbols=AAPL&range=max&interval=1m",
     {"error": "If range is max, interval must be 1mo", "status": 400}),
    ("/v2/indicators/AAPL?interval=1m",
     {"error": "If interval is 1m, range must be 1d, 5d", "status": 400}),
])
def test_interval_and_range_400_is_documented(api, yahoo, url, body):
    # Each value is in its parameter's enum: only the combination is wrong, which OpenAPI 3.0
    # parameter schemas cannot express; the operation documents it (description + 400), and
    # schemathesis.toml tells the fuzzer.
    response = api.get(url)
    assert response.status_code == 400
    assert response.json() == body
    assert_no_upstream_call(yahoo)
    path = "/v2/indicators/{symbol}" if url.startswith("/v2/indicators/") else url.split("?")[0]
    op = operation(path)
    assert "400" in op["responses"]
    text = op["description"] + op["responses"]["400"]["description"]
    assert "interval" in text and "range" in text


def test_the_fuzz_config_names_exactly_the_operations_with_cross_parameter_rules():
    import tomllib
    from pathlib import Path

    config = tomllib.loads((Path(__file__).parents[2] / "schemathesis.toml").read_text())
    paths: dict[str, list[str]] = {}
    for entry in config["operations"]:
        include = entry["include-path"]
        if "positive_data_acceptance" not in entry["checks"]:
            # the keyed-only operation whose keyless answer is its documented 501
            assert entry["checks"] == {"not_a_server_error": {
                "expected-statuses": ["2xx", "3xx", "4xx", "501"]}}
            assert include == "/v2/filings/{symbol}/congressional-trades"
            assert "501" in operation(include)["responses"]
            continue
        for path in [include] if isinstance(include, str) else include:
            statuses = entry["checks"]["positive_data_acceptance"]["expected-statuses"]
            paths[path] = statuses
            assert path in openapi()["paths"], path
            for status in statuses:
                if status.isdigit() and status.startswith("4") and status not in (
                        "401", "403", "404", "409", "429"):
                    assert status in operation(path)["responses"], (path, status)
    assert set(paths) == {"/v1/historical", "/v1/indicator", "/v2/indicators",
                          "/v2/indicators/{symbol}", "/v2/chart/{symbol}", "/v2/charts",
                          "/v2/backtest/{symbol}", "/v2/spark", "/v2/risk/{symbol}",
                          "/v2/financials", "/v2/financials/{symbol}/{statement}",
                          "/v2/screeners/custom", "/v2/filings/search"}


# -- path values: the 404 of a path with no route is documented, the sector takes any text -----
@pytest.mark.parametrize("raw", ["%07%0A%C3%86y%C3%92", "%0A", "Tech%0Anology", "A%2FB",
                                 "%00", "Technology%0A"])
def test_sector_details_with_control_characters_or_a_slash_is_its_422(api, yahoo, raw):
    # schemathesis: `/v1/sectors/details/%07%0A...` was the router's 404, which the endpoint
    # does not list (the spec gives it 200 and 422 only).
    response = api.get(f"/v1/sectors/details/{raw}")
    assert response.status_code == 422, response.content
    assert set(response.json()["errors"]) == {"sector"}
    assert_no_upstream_call(yahoo)
    assert "404" not in operation("/v1/sectors/details/{sector}")["responses"]


@pytest.mark.parametrize("raw", ["%0A", "AA%0APL", "A%2FB"])
def test_sector_for_a_symbol_with_control_characters_is_the_endpoints_404(api, yahoo, raw):
    response = api.get(f"/v1/sectors/symbol/{raw}")
    assert response.status_code == 404
    assert response.json()["detail"].startswith("Symbol not found: ")
    assert_no_upstream_call(yahoo)


def test_path_endpoints_document_the_404_of_a_path_without_a_route():
    for path in ("/v1/financials/{symbol}", "/v1/holders/{symbol}/{holder_type}",
                 "/v1/analysis/{symbol}", "/v1/earnings-transcript/{symbol}"):
        description = operation(path)["responses"]["404"]["description"]
        assert "matches no route" in description, path


def test_blank_in_patterns_is_exactly_what_python_strips():
    # The schema's patterns must not use `\s`, whose meaning differs between regex dialects
    # (schemathesis found `symbols=%1E`: blank to Python, a character to the fuzzer).
    import sys

    from apps.core.params import BLANK

    blank = re.compile(f"[{BLANK}]")
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        assert bool(blank.fullmatch(char)) == char.isspace(), hex(code)
    for path, name in [("/v1/quotes", "symbols"), ("/v1/historical", "symbol"),
                       ("/v1/search", "query"), ("/v1/indicators", "functions")]:
        assert "\\s" not in parameter(path, name)["schema"]["pattern"], (path, name)


def test_v2_fields_with_a_nul_is_an_unknown_name_not_a_400(api):
    # schemathesis: `/v2/health?fields=A\u00e38%00...` was a 400 "Null characters are not
    # allowed." though `fields` admits any text (unknown names are ignored).
    assert jsonschema.Draft4Validator(parameter("/v2/health", "fields")["schema"]).is_valid(
        "A\x00")
    response = api.get("/v2/health?fields=A%00,status")
    assert response.status_code == 200
    assert response.json() == {"status": "healthy"}


def test_no_oneof_admits_a_value_twice():
    """schemathesis: a 422's `input: null` failed `oneOf: [{}, {type: null}]` (null matches
    both). An empty alternative admits everything, so no oneOf may carry one, nor two
    alternatives that both take null."""
    def admits_null(schema: Any) -> bool:
        kind = schema.get("type") if isinstance(schema, dict) else None
        return schema == {} or kind == "null" or (isinstance(kind, list) and "null" in kind)

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            alternatives = node.get("oneOf")
            if isinstance(alternatives, list):
                assert {} not in alternatives, node
                assert sum(map(admits_null, alternatives)) <= 1, node
            for value in node.values():
                walk(value)

    walk(openapi())
    item = openapi()["components"]["schemas"]["ValidationErrorItem"]["properties"]["input"]
    assert item == {}
