"""GET /v2/currencies: Yahoo's list (the recording, values and order exact), fields, the
statuses, the cache, and the sandbox; the parser on bodies that are not a list."""

from __future__ import annotations

import pytest

from marketdata.errors import UpstreamBadResponse
from marketdata.providers.yahoo.currencies import parse_currencies
from tests.apps.payloads import FAILURES, fail_url
from tests.conftest import QUERY1, calls_to

RECORDING = "yahoo/v1-currencies/currencies-finance-query.json"
URL = f"{QUERY1}/v1/finance/currencies"


@pytest.fixture
def listed(yahoo, recording):
    # The recording keeps Yahoo's result list without its envelope.
    items = recording(RECORDING)
    yahoo.get(URL, {"currencies": {"result": items, "error": None}})
    return items


def test_currencies_exactly_as_recorded(api, yahoo, listed):
    response = api.get("/v2/currencies")
    assert response.status_code == 200, response.content
    body = response.json()
    assert len(body) == len(listed) == 160
    assert body == [{"symbol": c["symbol"], "shortName": c["shortName"],
                     "longName": c["longName"], "localLongName": c["localLongName"]}
                    for c in listed]
    assert body[0] == {"symbol": "FJD", "shortName": "FJD", "longName": "Fijian Dollar",
                       "localLongName": "Fijian Dollar"}


def test_fields_and_one_cached_call(api, yahoo, listed):
    assert api.get("/v2/currencies?fields=symbol").json()[:2] == [{"symbol": "FJD"},
                                                                  {"symbol": "MXN"}]
    api.get("/v2/currencies")
    (call,) = calls_to(yahoo.mock, "/v1/finance/currencies")
    assert "crumb=" in call.request.url and "region=US" in call.request.url


@pytest.mark.parametrize("body", [{}, {"currencies": {}}, [], "x"])
def test_a_body_without_a_list_is_a_bad_answer(body):
    with pytest.raises(UpstreamBadResponse):
        parse_currencies(body)


def test_items_without_a_symbol_are_skipped():
    found = parse_currencies({"currencies": {"result": [{"shortName": "X"}, "junk",
                                                        {"symbol": "EUR"}]}})
    assert [(c.symbol, c.long_name) for c in found] == [("EUR", None)]


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, URL, kind)
    status, _ = FAILURES[kind]
    response = api.get("/v2/currencies")
    assert response.status_code == status and response.json()["provider"] == "yahoo"


def test_bad_fields_are_ignored_and_the_sandbox_answers(api, sandbox_upstream):
    body = api.get("/v2/currencies?fields=nope").json()
    symbols = [c["symbol"] for c in body]
    assert {"USD", "EUR", "JPY", "GBp"} <= set(symbols)
    assert all(c["longName"] for c in body)
