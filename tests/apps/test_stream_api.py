"""GET /v1/stream/quotes before the stream starts: 422/404/upstream errors as JSON whatever
the Accept header says, HEAD, the WSGI guard, and the OpenAPI entry. (The stream itself is
tested through the ASGI application in test_stream_asgi.py and over loopback in
tests/integration/test_stream.py.)"""

from __future__ import annotations

import pytest

from tests.apps.payloads import FAILURES, register_failure

URL = "/v1/stream/quotes"
AAPL_QUOTE = "yahoo/v7-quote/quote-AAPL.json"
EVENT_STREAM = {"HTTP_ACCEPT": "text/event-stream"}


@pytest.mark.parametrize("query, message", [
    ("", "Field required"),
    ("?symbols=", "String should have at least 1 character"),
    ("?symbols=,,%20,", "String should have at least 1 character"),
    ("?symbols=" + ",".join(f"S{i}" for i in range(51)),
     "List should have at most 50 items after validation, not 51"),
])
@pytest.mark.parametrize("accept", [{}, EVENT_STREAM])
def test_invalid_symbols_are_422_json(api, query, message, accept):
    response = api.get(URL + query, **accept)
    assert response.status_code == 422
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Invalid request", "errors": {"symbols": [message]}}


def test_eventsource_accept_header_is_not_refused(api, yahoo, recording):
    """DRF would answer Accept: text/event-stream with 406; the view never negotiates."""
    yahoo.quote({"quoteResponse": {"result": [], "error": None}})
    response = api.get(URL + "?symbols=ZZZZZ", HTTP_ACCEPT="text/event-stream")
    assert response.status_code == 404
    assert response.json() == {"detail": "No quotes found for symbols: ZZZZZ"}


@pytest.mark.parametrize("symbols", ["ZZZZZ,QQQQQ", "$$$,@@@"])
def test_no_symbol_resolves_is_404(api, yahoo, symbols):
    yahoo.quote({"quoteResponse": {"result": [], "error": None}})
    response = api.get(f"{URL}?symbols={symbols}", **EVENT_STREAM)
    assert response.status_code == 404
    assert response.json()["detail"].startswith("No quotes found for symbols: ")


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failure_before_the_stream_is_json_naming_the_provider(api, yahoo, kind):
    register_failure(yahoo.mock, "simple-quotes", kind)
    response = api.get(URL + "?symbols=AAPL", **EVENT_STREAM)
    status, code = FAILURES[kind]
    assert response.status_code == status
    assert response.json()["provider"] == "yahoo"
    assert response.json()["code"] == code


def test_under_wsgi_the_stream_is_refused_with_503(api, yahoo, recording):
    """An endless body under a WSGI server would hold a worker thread forever."""
    yahoo.quote(recording(AAPL_QUOTE))
    response = api.get(URL + "?symbols=AAPL", **EVENT_STREAM)
    assert response.status_code == 503
    assert "ASGI" in response.json()["detail"]


def test_head_answers_the_stream_headers_without_a_body(api, yahoo, recording):
    yahoo.quote(recording(AAPL_QUOTE))
    response = api.head(URL + "?symbols=AAPL")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-cache"
    assert response["X-Accel-Buffering"] == "no"
    assert "X-Cache" not in response, "a stream is not a cached response"
    assert response.content == b""


def test_openapi_documents_the_event_stream(api):
    operation = api.get("/openapi.json").json()["paths"]["/v1/stream/quotes"]["get"]
    assert operation["operationId"] == "stream_quotes"
    assert list(operation["responses"]["200"]["content"]) == ["text/event-stream"]
    assert {"404", "422"} <= set(operation["responses"])
    assert operation["responses"]["422"]["content"].keys() == {"application/json"}
    assert [p["name"] for p in operation["parameters"] if p["in"] == "query"] == ["symbols"]


def test_a_stream_request_counts_once_against_the_daily_quota(api, limited):
    """Whatever happens to the stream, the request that opened it is one request."""
    for remaining in (4, 3):
        response = api.get(URL + "?symbols=ZZZZ1", **EVENT_STREAM)  # 404: resolved nothing
        assert response.status_code == 404
        assert response["X-RateLimit-Remaining"] == str(remaining)
    for _ in range(3):
        api.get(URL + "?symbols=", **EVENT_STREAM)
    response = api.get(URL + "?symbols=AAPL", **EVENT_STREAM)
    assert response.status_code == 429
    assert response.json()["detail"] == "Rate limit exceeded"


def test_a_reader_watch_drops_a_client_whose_unsent_bytes_never_fall_to_zero():
    from apps.stream.services import ReaderWatch

    now, unsent, dropped = [0.0], [0], []
    watch = ReaderWatch({"unsent_bytes": lambda: unsent[0], "drop": lambda: dropped.append(1)},
                        timeout=30, clock=lambda: now[0])
    assert not watch.stalled()
    unsent[0] = 900  # the client is behind...
    assert not watch.stalled()
    now[0] = 20.0
    unsent[0] = 0  # ...and caught up: a reading client
    assert not watch.stalled()
    unsent[0] = 500
    assert not watch.stalled()  # behind again, from now
    now[0] = 49.0
    assert not watch.stalled() and not dropped
    now[0] = 50.0
    assert watch.stalled() and dropped == [1]
    assert not ReaderWatch(None, 30).stalled()  # a server that cannot tell: never


def test_the_connection_extension_is_named_alike_on_both_sides():
    from apps.stream import views
    from config import protocol

    assert views.CONNECTION_EXTENSION == protocol.CONNECTION_EXTENSION
