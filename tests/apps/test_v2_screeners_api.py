"""GET /v2/screeners/{screener} and POST /v2/screeners/custom: the recordings through the
endpoint (values exact), the upstream requests, format, fields and paging, every error
status, the custom body validated member by member before any upstream call (examples and a
property test), caching, and the sandbox for every screener."""

from __future__ import annotations

import copy
import json
import math
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import responses
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from marketdata.records.members import member_names
from marketdata.records.screeners import (
    EQUITY_FIELDS,
    FUND_FIELDS,
    INCLUDE_FIELDS,
    PREDEFINED,
    SCREENERS,
    ScreenerRow,
)
from tests.apps.payloads import FAILURES, fail_url
from tests.conftest import calls_to

SCREENER_QUOTE_MEMBERS = member_names(ScreenerRow)

QUERY1 = "https://query1.finance.yahoo.com"
PREDEFINED_URL = f"{QUERY1}/v1/finance/screener/predefined/saved"
CUSTOM_URL = f"{QUERY1}/v1/finance/screener"
CUSTOM = "/v2/screeners/custom"
DIR = "yahoo/v1-screener-predefined"
GAINERS, LOSERS = f"{DIR}/day_gainers.json", f"{DIR}/day_losers.json"
ACTIVES = f"{DIR}/most_actives-finance-query.json"
TOP = ["quotes", "type", "description", "lastUpdated", "total"]


def _result(payload: dict[str, Any]) -> dict[str, Any]:
    return payload["finance"]["result"][0] if "finance" in payload else payload


def _query(call: Any) -> dict[str, list[str]]:
    return parse_qs(urlsplit(call.request.url).query)


def predefined_calls(yahoo: Any) -> list[Any]:
    return calls_to(yahoo.mock, "/v1/finance/screener/predefined/saved")


def custom_calls(yahoo: Any) -> list[Any]:
    return [c for c in yahoo.mock.calls
            if urlsplit(c.request.url).path == "/v1/finance/screener"]


def post(api: Any, body: Any, query: str = "") -> Any:
    raw = body if isinstance(body, bytes) else json.dumps(body)
    return api.post(CUSTOM + query, raw, content_type="application/json")


def api_error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and body["error"], body
    return body


# -- predefined: the recordings, exactly ---------------------------------------------------------
@pytest.mark.parametrize(("path", "name", "kind"), [
    ("day-gainers", GAINERS, "DAY_GAINERS"),
    ("losers", LOSERS, "DAY_LOSERS"),
    ("most-actives", ACTIVES, "MOST_ACTIVES"),
])
def test_recordings_exactly(api, yahoo, recording, path, name, kind):
    payload = recording(name)
    yahoo.get(PREDEFINED_URL, payload)
    response = api.get(f"/v2/screeners/{path}")
    assert response.status_code == 200, response.content
    body = response.json()
    want = _result(payload)
    assert list(body) == TOP
    assert body["type"] == kind
    assert body["description"] == want["description"]
    assert body["lastUpdated"] == want["lastUpdated"]
    assert body["total"] == want.get("total")
    assert [q["symbol"] for q in body["quotes"]] == [q["symbol"] for q in want["quotes"]]
    for got, sent in zip(body["quotes"], want["quotes"], strict=True):
        assert list(got) == list(SCREENER_QUOTE_MEMBERS)
        for member in SCREENER_QUOTE_MEMBERS:
            assert got[member] == sent.get(member), (sent["symbol"], member)


def test_values_of_the_first_gainer(api, yahoo, recording):
    yahoo.get(PREDEFINED_URL, recording(GAINERS))
    body = api.get("/v2/screeners/gainers").json()
    assert (body["type"], body["total"], body["lastUpdated"]) == ("DAY_GAINERS", 76,
                                                                  1699393457948)
    first = body["quotes"][0]
    assert first["symbol"] == "U" and first["displayName"] == "Unity Software"
    assert (first["regularMarketPrice"], first["regularMarketChange"],
            first["regularMarketChangePercent"]) == (28, 6.53, 30.4145)
    assert (first["marketCap"], first["averageAnalystRating"]) == (11279519744, "2.2 - Buy")
    assert first["fiftyTwoWeekChange"] is None  # Yahoo's screeners do not send it
    assert first["trailingPE"] is None  # not in this row


def test_the_upstream_request(api, yahoo, recording):
    yahoo.get(PREDEFINED_URL, recording(GAINERS))
    assert api.get("/v2/screeners/gainers?count=7").status_code == 200
    (call,) = predefined_calls(yahoo)
    query = _query(call)
    assert query["scrIds"] == ["day_gainers"] and query["count"] == ["7"]
    assert query["formatted"] == ["true"] and query["crumb"]
    assert set(query["fields"][0].split(",")) == set(SCREENER_QUOTE_MEMBERS)


@pytest.mark.parametrize(("name", "scr_id"), sorted(
    (name, s.scr_id) for name, s in SCREENERS.items()))
def test_every_name_and_alias_asks_for_its_screener(api, yahoo, recording, name, scr_id):
    yahoo.get(PREDEFINED_URL, recording(GAINERS))
    assert api.get(f"/v2/screeners/{name}").status_code == 200
    (call,) = predefined_calls(yahoo)
    assert _query(call)["scrIds"] == [scr_id] and _query(call)["count"] == ["25"]


def test_count_cuts_and_one_cached_call(api, yahoo, recording):
    yahoo.get(PREDEFINED_URL, recording(ACTIVES))
    first = api.get("/v2/screeners/actives?count=3").json()
    assert [q["symbol"] for q in first["quotes"]] == [
        q["symbol"] for q in recording(ACTIVES)["quotes"][:3]]
    assert api.get("/v2/screeners/actives?count=3&format=pretty").status_code == 200
    assert api.get("/v2/screeners/most-actives?count=3").status_code == 200
    assert len(predefined_calls(yahoo)) == 1  # alias, format: the same cache entry


def _formatted(payload: dict[str, Any]) -> dict[str, Any]:
    """The body as Yahoo sends it with formatted=true (a few members)."""
    out = copy.deepcopy(payload)
    quote = _result(out)["quotes"][0]
    quote["regularMarketPrice"] = {"raw": 28, "fmt": "28.00"}
    quote["marketCap"] = {"raw": 11279519744, "fmt": "11.28B", "longFmt": "11,279,519,744"}
    return out


@pytest.mark.parametrize(("value_format", "price", "cap", "change"), [
    (None, 28, 11279519744, 6.53),
    ("raw", 28, 11279519744, 6.53),
    ("nonsense", 28, 11279519744, 6.53),  # unknown: the default
    ("pretty", "28.00", "11.28B", None),  # a bare number has no display string
    ("FMT", "28.00", "11.28B", None),
    ("both", {"raw": 28, "fmt": "28.00"},
     {"raw": 11279519744, "fmt": "11.28B", "longFmt": "11,279,519,744"}, {"raw": 6.53}),
    ("full", {"raw": 28, "fmt": "28.00"},
     {"raw": 11279519744, "fmt": "11.28B", "longFmt": "11,279,519,744"}, {"raw": 6.53}),
])
def test_format(api, yahoo, recording, value_format, price, cap, change):
    yahoo.get(PREDEFINED_URL, _formatted(recording(GAINERS)))
    query = f"?format={value_format}" if value_format else ""
    first = api.get(f"/v2/screeners/gainers{query}").json()["quotes"][0]
    assert (first["regularMarketPrice"], first["marketCap"]) == (price, cap)
    assert first["regularMarketChange"] == change
    assert first["symbol"] == "U" and first["bid"] != {}


def test_fields_select_top_level_and_quote_members(api, yahoo, recording):
    yahoo.get(PREDEFINED_URL, recording(GAINERS))
    assert api.get("/v2/screeners/gainers?fields=type,total").json() == {
        "type": "DAY_GAINERS", "total": 76}
    body = api.get("/v2/screeners/gainers?fields=quotes,regularMarketPrice,nope").json()
    assert body["quotes"][0] == {"symbol": "U", "regularMarketPrice": 28}
    assert list(body) == ["quotes"]
    only_quote_members = api.get("/v2/screeners/gainers?fields=trailingPE").json()
    assert list(only_quote_members) == TOP
    assert only_quote_members["quotes"][1] == {"symbol": "FTAI", "trailingPE": None}


def test_limit_and_cursor_page_the_quotes(api, yahoo, recording):
    yahoo.get(PREDEFINED_URL, recording(LOSERS))
    symbols = ["TFII", "WRD", "FRPT", "FCN", "NICE"]
    first = api.get("/v2/screeners/losers?limit=2").json()
    assert [q["symbol"] for q in first["quotes"]["nodes"]] == symbols[:2]
    assert first["quotes"]["pageInfo"]["hasNextPage"] is True and first["total"] == 259
    after = first["quotes"]["pageInfo"]["endCursor"]
    second = api.get(f"/v2/screeners/losers?limit=5&cursor={after}").json()
    assert [q["symbol"] for q in second["quotes"]["nodes"]] == symbols[2:]
    assert second["quotes"]["pageInfo"]["hasNextPage"] is False


# -- predefined: errors ---------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "named"), [
    ("/v2/screeners/nope", "screener"),
    ("/v2/screeners/DAY-GAINERS", "screener"),
    ("/v2/screeners/day_gainers", "screener"),
    ("/v2/screeners/gainers?count=0", "count"),
    ("/v2/screeners/gainers?count=251", "count"),
    ("/v2/screeners/gainers?count=ten", "count"),
    ("/v2/screeners/gainers?count=", "count"),
    ("/v2/screeners/gainers?cursor=%25%25", "cursor"),
    ("/v2/screeners/gainers?limit=-1", "limit"),
])
def test_bad_requests_are_400_before_any_upstream_call(api, yahoo, path, named):
    assert api_error(api.get(path), 400)["error"].startswith(f"{named}: ")
    assert predefined_calls(yahoo) == []


def test_yahoo_not_knowing_a_screener_is_a_502(api, yahoo):
    yahoo.get(PREDEFINED_URL, {"finance": {"result": None, "error": {
        "code": "Not Found", "description": "No predefined screener found"}}}, status=404)
    body = api_error(api.get("/v2/screeners/top-mutual-funds"), 502)
    assert body["provider"] == "yahoo"


def test_a_finance_error_is_a_502(api, yahoo):
    yahoo.get(PREDEFINED_URL, {"finance": {"result": None, "error": {
        "code": "Internal", "description": "boom"}}})
    api_error(api.get("/v2/screeners/gainers"), 502)


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, PREDEFINED_URL, kind)
    status, _ = FAILURES[kind]
    assert api_error(api.get("/v2/screeners/gainers"), status)["provider"] == "yahoo"


# -- custom: the upstream request and the answer ---------------------------------------------------
RECORDS = {"finance": {"result": [{"start": 0, "count": 3, "total": 1234, "records": [
    {"ticker": "NVDA", "companyshortname": "NVIDIA Corporation",
     "intradayprice": {"raw": 135.5, "fmt": "135.50"},
     "intradaypricechange": {"raw": 2.25, "fmt": "2.25"},
     "percentchange": {"raw": 1.69, "fmt": "1.69%"},
     "intradaymarketcap": {"raw": 3.3e12, "fmt": "3.3T", "longFmt": "3,300,000,000,000"},
     "dayvolume": 250000000, "peratio.lasttwelvemonths": {"raw": 53.1, "fmt": "53.10"},
     "exchange": "NMS", "currency": "USD"},
    {"ticker": "aapl", "intradayprice": 230.1},  # no name: the symbol stands in
    {"companyshortname": "No ticker Inc.", "intradayprice": 1.0},  # dropped
]}], "error": None}}


def add_custom(yahoo: Any, body: Any = None, status: int = 200) -> None:
    yahoo.mock.add(responses.POST, re.compile(re.escape(CUSTOM_URL) + r"(\?.*)?$"),
                   json=RECORDS if body is None else body, status=status)


def test_custom_screen_upstream_body_and_answer(api, yahoo):
    add_custom(yahoo)
    response = post(api, {
        "quoteType": "stocks", "size": 3, "offset": 6, "sortType": "ascending",
        "sortField": "percentchange", "filters": [
            {"field": "region", "operator": "=", "value": "us"},
            {"field": "percentchange", "operator": ">=", "value": 1.5},
            {"field": "intradaymarketcap", "operator": "BETWEEN", "value": [2e9, 1e13]}]})
    assert response.status_code == 200, response.content
    (call,) = custom_calls(yahoo)
    query = _query(call)
    assert (query["formatted"], query["useRecordsResponse"]) == (["true"], ["true"])
    assert (query["lang"], query["region"]) == (["en-US"], ["US"]) and query["crumb"]
    assert call.request.headers["Content-Type"] == "application/json"
    assert json.loads(call.request.body) == {
        "size": 3, "offset": 6, "sortType": "ASC", "sortField": "percentchange",
        "includeFields": list(INCLUDE_FIELDS["EQUITY"]), "topOperator": "and",
        "query": {"operator": "and", "operands": [
            {"operator": "eq", "operands": ["region", "us"]},
            {"operator": "gte", "operands": ["percentchange", 1.5]},
            {"operator": "btwn", "operands": ["intradaymarketcap", 2e9, 1e13]}]},
        "quoteType": "EQUITY"}
    body = response.json()
    assert list(body) == TOP
    assert (body["type"], body["lastUpdated"], body["total"]) == ("custom", None, 1234)
    nvda, aapl = body["quotes"]
    assert (nvda["symbol"], nvda["shortName"], nvda["quoteType"]) == (
        "NVDA", "NVIDIA Corporation", "EQUITY")
    assert (nvda["regularMarketPrice"], nvda["regularMarketChange"],
            nvda["regularMarketChangePercent"], nvda["marketCap"], nvda["regularMarketVolume"],
            nvda["trailingPE"], nvda["exchange"], nvda["currency"]) == (
        135.5, 2.25, 1.69, 3.3e12, 250000000, 53.1, "NMS", "USD")
    assert nvda["bid"] is None and nvda["longName"] is None
    assert (aapl["symbol"], aapl["shortName"], aapl["regularMarketPrice"]) == (
        "AAPL", "AAPL", 230.1)


def test_custom_defaults_for_funds_and_format_fields_paging(api, yahoo):
    add_custom(yahoo)
    body = post(api, {"quoteType": "Fund", "format": "pretty",
                      "fields": "total,regularMarketPrice,quotes"}, "?limit=1").json()
    sent = json.loads(custom_calls(yahoo)[0].request.body)
    assert (sent["quoteType"], sent["sortField"], sent["sortType"], sent["size"],
            sent["offset"]) == ("MUTUALFUND", "intradayprice", "DESC", 25, 0)
    assert sent["query"] == {"operator": "and", "operands": []}
    assert sent["includeFields"] == list(INCLUDE_FIELDS["MUTUALFUND"])
    assert body["total"] == 1234 and list(body) == ["quotes", "total"]
    assert body["quotes"]["nodes"] == [{"symbol": "NVDA", "regularMarketPrice": "135.50"}]
    assert body["quotes"]["pageInfo"]["hasNextPage"] is True


def test_the_same_screen_is_one_upstream_call(api, yahoo):
    add_custom(yahoo)
    screen = {"filters": [{"field": "beta", "operator": "lt", "value": 1}]}
    assert post(api, screen).status_code == 200
    assert post(api, {**screen, "sortType": "desc", "format": "both"}).status_code == 200
    assert len(custom_calls(yahoo)) == 1
    assert post(api, {**screen, "size": 5}).status_code == 200
    assert len(custom_calls(yahoo)) == 2


_POST_FAILURES = {
    "yahoo_500": {"body": "<html>Internal error</html>", "status": 500},
    "yahoo_429": {"body": "Too Many Requests", "status": 429},
    "connection_error": {"body": requests.exceptions.ConnectionError("connection refused")},
    "timeout": {"body": requests.exceptions.ReadTimeout("read timed out")},
}


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_custom_upstream_failures_name_the_provider(api, yahoo, kind):
    status, _ = FAILURES[kind]
    yahoo.mock.add(responses.POST, re.compile(re.escape(CUSTOM_URL) + r"(\?.*)?$"),
                   **_POST_FAILURES[kind])
    assert api_error(post(api, {}), status)["provider"] == "yahoo"


def test_custom_finance_error_is_a_502(api, yahoo):
    add_custom(yahoo, {"finance": {"result": None, "error": {"code": "Bad Request",
                                                             "description": "invalid"}}})
    api_error(post(api, {}), 502)


# -- custom: bad bodies, member by member, before any upstream call --------------------------------
@pytest.mark.parametrize(("body", "messages"), [
    ({"size": 251}, ["size: Input should be less than or equal to 250"]),
    ({"size": 0}, ["size: Input should be greater than or equal to 1"]),
    ({"size": "5"}, ["size: Input should be a valid integer"]),
    ({"offset": -1}, ["offset: Input should be greater than or equal to 0"]),
    ({"sortType": "up"}, ["sortType: Input should be 'ASC' or 'DESC'"]),
    ({"quoteType": "ETF"}, ["quoteType: Input should be 'EQUITY' or 'MUTUALFUND'"]),
    ({"quoteType": 1}, ["quoteType: Input should be a valid string"]),
    ({"sortField": "categoryname"}, ["sortField: Input should be one of the EQUITY"]),
    ({"quoteType": "fund", "sortField": "beta"}, ["sortField: Input should be one of the "
                                                  "MUTUALFUND"]),
    ({"filters": {}}, ["filters: Input should be a valid list"]),
    ({"filters": [{}] * 51}, ["filters: List should have at most 50 items"]),
    ({"filters": [5]}, ["filters[0]: Input should be an object"]),
    ({"filters": [{"field": "beta", "operator": "gt", "value": 1},
                  {"field": "beta", "operator": "like", "value": 1}]},
     ["filters[1].operator: Input should be one of eq, gt"]),
    ({"filters": [{"field": "nope", "operator": "gt", "value": 1}]},
     ["filters[0].field: Input should be one of the EQUITY screen fields"]),
    ({"filters": [{"operator": "gt", "value": 1}]}, ["filters[0].field: Field required"]),
    ({"filters": [{"field": "beta", "value": 1}]}, ["filters[0].operator: Field required"]),
    ({"filters": [{"field": "beta", "operator": "gt"}]}, ["filters[0].value: Field required"]),
    ({"filters": [{"field": "beta", "operator": "gt", "value": "1"}]},
     ["filters[0].value: Input should be a valid number"]),
    ({"filters": [{"field": "beta", "operator": "lte", "value": True}]},
     ["filters[0].value: Input should be a valid number"]),
    ({"filters": [{"field": "sector", "operator": "gt", "value": 1}]},
     ["filters[0].operator: Input should be eq: sector is a text field"]),
    ({"filters": [{"field": "sector", "operator": "eq", "value": 1}]},
     ["filters[0].value: Input should be a non-empty string"]),
    ({"filters": [{"field": "beta", "operator": "eq", "value": "high"}]},
     ["filters[0].value: Input should be a valid number (a numeric field)"]),
    ({"filters": [{"field": "beta", "operator": "btwn", "value": [1]}]},
     ["filters[0].value: Input should be a list of two numbers"]),
    ({"filters": [{"field": "beta", "operator": "btwn", "value": [2, 1]}]},
     ["filters[0].value: Input should be [min, max] with min <= max"]),
    ({"filters": [{"field": "beta", "operator": "btwn", "value": 1, "extra": 0}]},
     ["filters[0].extra: Unknown member", "filters[0].value: Input should be a list"]),
    ({"quoteType": "fund", "filters": [{"field": "beta", "operator": "gt", "value": 1}]},
     ["filters[0].field: Input should be one of the MUTUALFUND screen fields"]),
    ({"format": 1, "fields": []}, ["format: Input should be a valid string",
                                   "fields: Input should be a valid string"]),
])
def test_bad_bodies_are_400_naming_the_member(api, yahoo, body, messages):
    error = api_error(post(api, body), 400)["error"]
    for message in messages:
        assert message in error
    assert custom_calls(yahoo) == []


@pytest.mark.parametrize("raw", [b"{", b"[1]", b"null", b"\"x\"", b"{\"size\": NaN}"])
def test_malformed_or_non_object_json_is_400(api, yahoo, raw):
    api_error(post(api, raw), 400)
    assert custom_calls(yahoo) == []


def test_other_methods_are_405(api):
    for response in (api.get(CUSTOM), api.put(CUSTOM), api.delete(CUSTOM),
                     api.post("/v2/screeners/gainers")):
        api_error(response, 405)


# One bad member at a time on top of a valid body: whatever the value, a 400 and no call.
# Only what JSON can carry: an infinity is no JSON number (the body would be unreadable).
_ANY_JSON = st.recursive(st.none() | st.booleans() | st.integers()
                         | st.floats(allow_nan=False, allow_infinity=False)
                         | st.text(max_size=8), lambda inner: st.lists(inner, max_size=3)
                         | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                         max_leaves=6)
_NOT_A_NUMBER = _ANY_JSON.filter(
    lambda v: isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v))
_BAD_MEMBERS = st.one_of(
    st.tuples(st.just("size"), st.integers(max_value=0) | st.integers(min_value=251)
              | _NOT_A_NUMBER.filter(lambda v: not isinstance(v, float))),
    st.tuples(st.just("offset"), st.integers(max_value=-1) | st.text(max_size=4)),
    st.tuples(st.just("sortType"), _ANY_JSON.filter(
        lambda v: not (isinstance(v, str) and v.strip().lower() in {
            "asc", "desc", "ascending", "descending"}))),
    st.tuples(st.just("quoteType"), _ANY_JSON.filter(
        lambda v: not (isinstance(v, str) and v.strip().lower() in {
            "equity", "stock", "stocks", "mutualfund", "mutual-fund", "mutual_fund", "fund",
            "funds"}))),
    st.tuples(st.just("sortField"), _ANY_JSON.filter(lambda v: v not in EQUITY_FIELDS)),
    st.tuples(st.just("filters"), _ANY_JSON.filter(lambda v: not isinstance(v, list))),
    st.tuples(st.just("filter.field"), _ANY_JSON.filter(lambda v: v not in EQUITY_FIELDS)),
    st.tuples(st.just("filter.operator"), _ANY_JSON.filter(
        lambda v: not (isinstance(v, str) and v.strip().lower() in {
            "eq", "gt", "gte", "lt", "lte", "btwn", "=", "==", ">", ">=", "<", "<=",
            "between"}))),
    st.tuples(st.just("filter.value"), _NOT_A_NUMBER),
    st.tuples(st.just("filter.btwn"), _ANY_JSON.filter(
        lambda v: not (isinstance(v, list) and len(v) == 2
                       and all(isinstance(x, int | float) and not isinstance(x, bool)
                               for x in v) and v[0] <= v[1]))),
)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bad=_BAD_MEMBERS, position=st.integers(min_value=0, max_value=2))
def test_random_bad_bodies_are_400_and_never_reach_upstream(api, yahoo, bad, position):
    member, value = bad
    filters: list[Any] = [{"field": "percentchange", "operator": "gt", "value": 1},
                          {"field": "beta", "operator": "lt", "value": 2}]
    body: dict[str, Any] = {"size": 10, "sortField": "dayvolume", "filters": filters}
    bad_filter = {"field": "intradayprice", "operator": "gt", "value": 5}
    if member.startswith("filter."):
        key = member.split(".")[1]
        if key == "btwn":
            bad_filter["operator"] = "btwn"
            key = "value"
        bad_filter[key] = value
        filters.insert(position, bad_filter)
    else:
        body[member] = value
    response = post(api, body)
    assert response.status_code == 400, (body, response.content)
    error = response.json()["error"]
    named = f"filters[{position}]" if member.startswith("filter.") else member
    assert named in error, (body, error)
    assert custom_calls(yahoo) == []


# -- the sandbox ------------------------------------------------------------------------------
@pytest.mark.parametrize("screener", [s.slug for s in PREDEFINED])
def test_every_screener_through_the_sandbox(api, sandbox_upstream, screener):
    response = api.get(f"/v2/screeners/{screener}?count=5&format=both")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["type"] == screener.replace("-", "_").upper()
    assert 1 <= len(body["quotes"]) <= 5 and body["total"] >= len(body["quotes"])
    quote_type = SCREENERS[screener].quote_type
    for quote in body["quotes"]:
        assert quote["quoteType"] == quote_type and quote["currency"] == "USD"
        assert set(quote["regularMarketPrice"]) == {"raw", "fmt"}


def test_sandbox_movers_agree_with_the_screeners(api, sandbox_upstream):
    gainers = api.get("/v2/screeners/gainers?count=10").json()["quotes"]
    changes = [q["regularMarketChangePercent"] for q in gainers]
    assert changes == sorted(changes, reverse=True) and changes[-1] > 0
    v1 = api.get("/v1/gainers?count=25").json()
    assert [m["symbol"] for m in v1[:10]] == [q["symbol"] for q in gainers]


def test_custom_screens_through_the_sandbox(api, sandbox_upstream):
    equity = post(api, {"size": 10, "sortField": "intradaymarketcap", "filters": [
        {"field": "percentchange", "operator": "gt", "value": 0},
        {"field": "intradayprice", "operator": "btwn", "value": [10, 5000]}]}).json()
    assert equity["type"] == "custom" and equity["total"] >= len(equity["quotes"]) > 0
    caps = [q["marketCap"] for q in equity["quotes"]]
    assert caps == sorted(caps, reverse=True)
    for quote in equity["quotes"]:
        assert quote["regularMarketChangePercent"] > 0
        assert 10 <= quote["regularMarketPrice"] <= 5000
    aapl = post(api, {"filters": [{"field": "ticker", "operator": "eq", "value": "AAPL"}]})
    assert [q["symbol"] for q in aapl.json()["quotes"]] == ["AAPL"]
    funds = post(api, {"quoteType": "funds", "sortType": "asc", "filters": [
        {"field": "performanceratingoverall", "operator": ">=", "value": 4}]}).json()
    prices = [q["regularMarketPrice"] for q in funds["quotes"]]
    assert prices and prices == sorted(prices)
    assert {q["quoteType"] for q in funds["quotes"]} == {"MUTUALFUND"}
    assert "VFIAX" in {q["symbol"] for q in post(api, {"quoteType": "fund", "size": 250})
                       .json()["quotes"]}


def test_every_fund_field_and_equity_field_is_screenable_in_the_sandbox(api, sandbox_upstream):
    """Each field sorts a screen (the sandbox derives every one)."""
    for quote_type, fields in (("EQUITY", EQUITY_FIELDS), ("MUTUALFUND", FUND_FIELDS)):
        for field in fields[::7]:
            response = post(api, {"quoteType": quote_type, "sortField": field, "size": 2})
            assert response.status_code == 200, (field, response.content)
            assert len(response.json()["quotes"]) == 2
