"""Malformed symbols never reach Yahoo and never cause a 500."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlsplit

import pytest

from tests.conftest import calls_to

# (id, the symbol as it appears in the raw query string)
MALFORMED = [
    ("path-traversal", "../../etc/passwd"),
    ("path-traversal-encoded", quote("../../etc/passwd", safe="")),
    ("slash", "A/B"),
    ("encoded-slash", "AAPL%2FX"),
    ("space", "A%20B"),
    ("plus-space", "A+B"),
    ("long", "A" * 500),
    ("non-ascii", quote("ÄAPL")),
    ("query-in-symbol", quote("AAPL?x=1", safe="")),
    ("semicolon", ";"),
    ("nul", "%00"),
    ("hash", "%23AAPL"),
    ("backslash", "%5C..%5Cwin"),
    ("crlf", "AAPL%0D%0AX-Evil:1"),
    ("dotdot", "AAPL..B"),
    ("percent", "%25"),
]
IDS = [name for name, _ in MALFORMED]
VALUES = [value for _, value in MALFORMED]


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_historical_malformed_symbol(api, yahoo, raw):
    response = api.get(f"/v1/historical?symbol={raw}&range=1mo&interval=1d")
    assert response.status_code in (404, 422), response.content
    body = response.json()
    assert "detail" in body
    if response.status_code == 404:
        assert set(body) == {"detail"}
        assert isinstance(body["detail"], str)
        assert len(body["detail"]) < 200, "the echoed symbol is trimmed"
    assert len(yahoo.mock.calls) == 0
    assert response["X-Correlation-ID"]


@pytest.mark.parametrize("endpoint", ["/v1/quotes", "/v1/simple-quotes"])
@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_quotes_only_malformed_symbol_404(api, yahoo, endpoint, raw):
    response = api.get(f"{endpoint}?symbols={raw}")
    assert response.status_code in (404, 422), response.content
    body = response.json()
    assert "detail" in body
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_full_quotes_malformed_items_dropped(api, yahoo, recording, raw):
    yahoo.summary("AAPL", recording("yahoo/v10-quoteSummary/_all-modules/AAPL.json"))
    response = api.get(f"/v1/quotes?symbols={raw},AAPL")
    assert response.status_code in (200, 422), response.content
    if response.status_code == 200:
        assert [q["symbol"] for q in response.json()] == ["AAPL"]
    summary_calls = calls_to(yahoo.mock, "/quoteSummary/")
    assert all(urlsplit(c.request.url).path == "/v10/finance/quoteSummary/AAPL"
               for c in summary_calls), [c.request.url for c in summary_calls]
    non_auth = [c for c in yahoo.mock.calls if "getcrumb" not in c.request.url
                and "fc.yahoo.com" not in c.request.url]
    assert len(non_auth) == len(summary_calls) <= 1


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_simple_quotes_malformed_items_dropped(api, yahoo, recording, raw):
    yahoo.quote(recording("yahoo/v7-quote/quote-AAPL.json"))
    response = api.get(f"/v1/simple-quotes?symbols=AAPL,{raw}")
    assert response.status_code in (200, 422), response.content
    if response.status_code == 200:
        assert [q["symbol"] for q in response.json()] == ["AAPL"]
    for call in calls_to(yahoo.mock, "/v7/finance/quote"):
        assert parse_qs(urlsplit(call.request.url).query)["symbols"] == ["AAPL"]
