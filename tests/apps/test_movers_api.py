"""GET /v1/actives, /v1/gainers, /v1/losers: values from the recorded screener bodies,
formatting, the `count` rules and 422, upstream failures, caching, hostile input, and the
endpoints against the sandbox through the real client."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.apps.payloads import FAILURES, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.conftest import calls_to, clear_cache
from tests.marketdata.providers.test_yahoo_screener import formatted

SCREENER = "https://query1.finance.yahoo.com/v1/finance/screener/predefined/saved"
GAINERS = "yahoo/v1-screener-predefined/day_gainers.json"
LOSERS = "yahoo/v1-screener-predefined/day_losers.json"
ACTIVES = "yahoo/v1-screener-predefined/most_actives-finance-query.json"

ENDPOINTS = {"actives": "MOST_ACTIVES", "gainers": "DAY_GAINERS", "losers": "DAY_LOSERS"}
BAD_COUNT = {"detail": "Invalid request",
             "errors": {"count": ["Input should be '25', '50' or '100'"]}}


def screener_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "/v1/finance/screener/predefined/saved")


def _query(call) -> dict[str, list[str]]:
    return parse_qs(urlsplit(call.request.url).query)


# -- 200 from the recordings -----------------------------------------------------------------
def test_gainers_from_recording(api, yahoo, recording):
    yahoo.get(SCREENER, recording(GAINERS))
    response = api.get("/v1/gainers")
    assert response.status_code == 200
    assert response.json() == [
        {"symbol": "U", "name": "Unity Software Inc.", "price": "28.00", "change": "+6.53",
         "percentChange": "+30.41%"},
        {"symbol": "FTAI", "name": "FTAI Aviation Ltd.", "price": "143.82", "change": "+18.07",
         "percentChange": "+14.37%"},
        {"symbol": "DBRG", "name": "DigitalBridge Group, Inc.", "price": "12.24",
         "change": "+1.49", "percentChange": "+13.86%"},
        {"symbol": "HAS", "name": "Hasbro, Inc.", "price": "69.06", "change": "+7.92",
         "percentChange": "+12.95%"},
        {"symbol": "GDS", "name": "GDS Holdings Limited", "price": "48.50", "change": "+5.49",
         "percentChange": "+12.76%"},
    ]


def test_losers_from_recording(api, yahoo, recording):
    yahoo.get(SCREENER, recording(LOSERS))
    body = api.get("/v1/losers?count=25").json()
    assert [m["symbol"] for m in body] == ["TFII", "WRD", "FRPT", "FCN", "NICE"]
    assert body[0] == {"symbol": "TFII", "name": "TFI International Inc.", "price": "101.48",
                       "change": "-26.13", "percentChange": "-20.48%"}
    assert all(m["change"].startswith("-") and m["percentChange"].startswith("-")
               for m in body)


def test_actives_from_bare_result_recording(api, yahoo, recording):
    yahoo.get(SCREENER, recording(ACTIVES))
    body = api.get("/v1/actives?count=25").json()
    assert len(body) == 25
    assert body[0] == {"symbol": "AAL", "name": "American Airlines Group Inc.",
                       "price": "14.98", "change": "+0.33", "percentChange": "+2.25%"}
    assert body[1] == {"symbol": "INTC", "name": "Intel Corporation", "price": "124.57",
                       "change": "+7.61", "percentChange": "+6.51%"}
    assert all(set(m) == {"symbol", "name", "price", "change", "percentChange"} for m in body)
    assert all(isinstance(v, str) for m in body for v in m.values())


@pytest.mark.parametrize("name", [GAINERS, LOSERS, ACTIVES])
def test_formatted_upstream_values_give_the_same_movers(api, yahoo, recording, name):
    yahoo.get(SCREENER, formatted(recording(name)))
    first = api.get("/v1/actives").json()
    yahoo.mock.reset()
    yahoo.auth()
    from django.core.cache import cache

    clear_cache(cache)
    yahoo.get(SCREENER, recording(name))
    assert api.get("/v1/actives").json() == first


def test_formatting_thousands_zero_and_precision(api, yahoo, recording):
    payload = recording(GAINERS)
    quotes = payload["finance"]["result"][0]["quotes"]
    quotes[0].update(regularMarketPrice=1234.5, regularMarketChange=1001.254,
                     regularMarketChangePercent=0.004)
    quotes[1].update(regularMarketChange=0, regularMarketChangePercent=0)
    quotes[2].update(regularMarketPrice=0.51234, regularMarketChange=-0.00051,
                     regularMarketChangePercent=-0.0999, priceHint=4)
    yahoo.get(SCREENER, payload)
    body = api.get("/v1/gainers").json()
    assert (body[0]["price"], body[0]["change"], body[0]["percentChange"]) == (
        "1,234.50", "+1,001.25", "+0.00%")
    assert (body[1]["change"], body[1]["percentChange"]) == ("+0.00", "+0.00%")
    assert (body[2]["price"], body[2]["change"], body[2]["percentChange"]) == (
        "0.5123", "-0.0005", "-0.10%")


# -- count -------------------------------------------------------------------------------------
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_upstream_request_per_endpoint_default_count_50(api, yahoo, recording, endpoint):
    yahoo.get(SCREENER, recording(GAINERS))
    assert api.get(f"/v1/{endpoint}").status_code == 200
    calls = screener_calls(yahoo)
    assert len(calls) == 1
    query = _query(calls[0])
    assert query["scrIds"] == [ENDPOINTS[endpoint]]
    assert query["count"] == ["50"]
    assert query["crumb"] == ["haT3oykhHqZ"]


@pytest.mark.parametrize("count", ["25", "50", "100"])
def test_count_is_passed_on_and_never_exceeded(api, yahoo, recording, count):
    payload = recording(ACTIVES)
    payload["quotes"] = payload["quotes"] * 5  # 125 rows, more than any count
    yahoo.get(SCREENER, payload)
    body = api.get(f"/v1/actives?count={count}").json()
    assert len(body) == int(count)
    assert _query(screener_calls(yahoo)[0])["count"] == [count]


def test_fewer_rows_than_count(api, yahoo, recording):
    yahoo.get(SCREENER, recording(GAINERS))
    assert len(api.get("/v1/gainers?count=100").json()) == 5


@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
@pytest.mark.parametrize("count", ["42", "0", "-25", "25.0", "abc", "1000", "%2025", "fifty"])
def test_invalid_count_422(api, yahoo, endpoint, count):
    response = api.get(f"/v1/{endpoint}?count={count}")
    assert response.status_code == 422
    assert response.json() == BAD_COUNT
    assert screener_calls(yahoo) == []


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_hostile_count_values_422_and_no_upstream_call(api, yahoo, raw):
    response = api.get(f"/v1/gainers?count={raw}")
    assert response.status_code == 422, response.content
    assert response.json() == BAD_COUNT
    assert len(yahoo.mock.calls) == 0


def test_unknown_parameters_are_ignored(api, yahoo, recording):
    yahoo.get(SCREENER, recording(GAINERS))
    response = api.get("/v1/gainers?scrIds=../../v7/finance/quote&foo=bar")
    assert response.status_code == 200
    assert _query(screener_calls(yahoo)[0])["scrIds"] == ["DAY_GAINERS"]
    assert all(urlsplit(c.request.url).path in ("/", "/v1/test/getcrumb",
                                                "/v1/finance/screener/predefined/saved")
               for c in yahoo.mock.calls)


# -- upstream failures -------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(FAILURES))
def test_upstream_failures(api, yahoo, kind):
    fail_url(yahoo.mock, SCREENER, kind)
    response = api.get("/v1/losers")
    status, code = FAILURES[kind]
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body == {"detail": body["detail"], "provider": "yahoo", "code": code}
    assert isinstance(body["detail"], str) and body["detail"]


def test_yahoo_404_is_a_bad_gateway_not_a_404(api, yahoo):
    yahoo.get(SCREENER, {"finance": {"result": None, "error": {
        "code": "Not Found", "description": "HTTP 404 Not Found"}}}, status=404)
    response = api.get("/v1/gainers")
    assert response.status_code == 502
    assert response.json()["provider"] == "yahoo"
    assert response.json()["code"] == "upstream_bad_response"


def test_yahoo_error_body_is_a_bad_gateway(api, yahoo):
    yahoo.get(SCREENER, {"finance": {"result": None, "error": {
        "code": "Bad Request", "description": "Invalid scrIds"}}})
    response = api.get("/v1/gainers")
    assert response.status_code == 502
    assert response.json()["provider"] == "yahoo"


def test_rejected_crumb_is_refreshed(api, yahoo, recording):
    yahoo.get(SCREENER, {"finance": {"result": None, "error": {
        "code": "Unauthorized", "description": "Invalid Crumb"}}}, status=401)
    yahoo.get(SCREENER, recording(GAINERS))
    response = api.get("/v1/gainers")
    assert response.status_code == 200
    assert response.json()[0]["symbol"] == "U"
    assert len(calls_to(yahoo.mock, "/v1/test/getcrumb")) == 2


# -- caching -----------------------------------------------------------------------------------
def test_second_request_is_a_cache_hit(api, yahoo, recording):
    yahoo.get(SCREENER, recording(GAINERS))
    first = api.get("/v1/gainers?count=25")
    second = api.get("/v1/gainers?count=25")
    assert first["X-Cache"] == "MISS"
    assert second["X-Cache"] == "HIT"
    assert second.json() == first.json()
    assert len(screener_calls(yahoo)) == 1


def test_each_screener_and_count_has_its_own_entry(api, yahoo, recording):
    yahoo.get(SCREENER, recording(GAINERS))
    api.get("/v1/gainers?count=25")
    api.get("/v1/gainers?count=50")
    api.get("/v1/losers?count=25")
    keys = [(_query(c)["scrIds"][0], _query(c)["count"][0]) for c in screener_calls(yahoo)]
    assert keys == [("DAY_GAINERS", "25"), ("DAY_GAINERS", "50"), ("DAY_LOSERS", "25")]


# -- against the sandbox, through the real client ------------------------------------------------
FIXED = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)  # a Friday, 12:00 in New York


@pytest.fixture
def sandbox(sandbox_upstream, monkeypatch):
    monkeypatch.setattr(sandbox_upstream, "clock", lambda: FIXED)
    return sandbox_upstream


def _number(text: str) -> float:
    return float(text.replace(",", "").rstrip("%"))


@pytest.mark.parametrize(("endpoint", "count"), [("actives", 50), ("gainers", 25),
                                                 ("losers", 100)])
def test_sandbox_movers(api, sandbox, endpoint, count):
    response = api.get(f"/v1/{endpoint}?count={count}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert 0 < len(body) <= count
    assert all(set(m) == {"symbol", "name", "price", "change", "percentChange"} for m in body)
    percents = [_number(m["percentChange"]) for m in body]
    if endpoint == "gainers":
        assert all(m["percentChange"].startswith("+") for m in body)
        assert percents == sorted(percents, reverse=True)
    elif endpoint == "losers":
        assert all(m["percentChange"].startswith("-") for m in body)
        assert percents == sorted(percents)
    calls = sandbox.requests_matching("/v1/finance/screener/predefined/saved")
    assert len(calls) == 1 and calls[0]["status"] == 200


def test_sandbox_mover_prices_match_the_quotes(api, sandbox):
    movers = api.get("/v1/gainers?count=25").json()
    symbols = [m["symbol"] for m in movers[:10]]
    simple = api.get("/v1/simple-quotes?symbols=" + ",".join(symbols)).json()
    by_symbol = {q["symbol"]: q for q in simple}
    for mover in movers[:10]:
        quote = by_symbol[mover["symbol"]]
        assert mover["price"].replace(",", "") == quote["price"]
        assert mover["change"].replace(",", "") == quote["change"]
        assert mover["percentChange"] == quote["percentChange"]
        assert mover["name"] == quote["name"]
    full = api.get(f"/v1/quotes?symbols={movers[0]['symbol']}").json()[0]
    assert (full["price"], full["change"], full["percentChange"]) == (
        movers[0]["price"], movers[0]["change"], movers[0]["percentChange"])


def test_sandbox_upstream_failure_names_the_provider(api, sandbox):
    sandbox.configure(fail_rate=1.0)
    try:
        response = api.get("/v1/actives")
    finally:
        sandbox.configure(fail_rate=0.0)
    assert response.status_code in (502, 503)
    assert response.json()["provider"] == "yahoo"
