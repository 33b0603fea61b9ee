"""Hostile input through Django (the test client, which does not pass through the serving
front): JSON bodies bounded in size and depth with no parser message echoed, OPTIONS on
every page outside the API, and what the runs of a parked request share."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.core.middleware import CORRELATION_KEY, LIMIT_HEADERS_KEY, RUNS_KEY
from apps.core.parsers import MAX_DEPTH, nesting_depth_exceeds

URL = "/v2/backtest/AAPL"


def post(api, data: bytes, content_type: str = "application/json"):
    return api.post(URL, data, content_type=content_type)


def api_error(response, status: int) -> str:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error", "status"} and body["status"] == status, body
    return body["error"]


@pytest.mark.parametrize("data", [b"[" * 1000 + b"]" * 1000,
                                  b'{"a":' * 1000 + b"1" + b"}" * 1000,
                                  b'{"strategy": "sma_crossover", "params": ' + b"[" * 40
                                  + b"]" * 40 + b"}"])
def test_deeply_nested_json_is_a_400(api, data):
    assert api_error(post(api, data), 400) == f"body: JSON nested deeper than {MAX_DEPTH} levels"


@pytest.mark.parametrize("data", [b'{"strategy": ', b"\xff\xfe", b"{'a': 1}", b"NaN"])
def test_malformed_json_is_a_400_that_echoes_no_parser_message(api, data):
    message = api_error(post(api, data), 400)
    assert message in ("body: Input should be valid JSON",
                       "body: Input should be a JSON object")
    for internal in ("Expecting", "line 1", "char", "column", "orjson", "JSONDecodeError"):
        assert internal not in message


def test_an_oversized_body_is_a_413_in_the_v2_shape(api, settings):
    settings.REQUEST_BODY_MAX_BYTES = settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    message = api_error(post(api, b'{"strategy": "' + b"x" * 2000 + b'"}'), 413)
    assert message == "Request body too large: at most 1000 bytes are accepted"


def test_a_body_within_the_limits_still_reaches_validation(api):
    message = api_error(post(api, json.dumps({"strategy": "nope"}).encode()), 400)
    assert message.startswith("strategy:")


@settings(max_examples=50, deadline=None)
@given(depth=st.integers(1, 80))
def test_nesting_depth_is_measured_without_recursion(depth):
    value: object = 1
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    assert nesting_depth_exceeds(value, MAX_DEPTH) == (depth > MAX_DEPTH)


@pytest.mark.django_db
@pytest.mark.parametrize("path, allow", [
    ("/", "GET, HEAD, OPTIONS"), ("/docs", "GET, HEAD, OPTIONS"),
    ("/redoc", "GET, HEAD, OPTIONS"), ("/openapi.json", "GET, HEAD, OPTIONS"),
    ("/readyz", "GET, HEAD, OPTIONS"), ("/metrics", "GET, HEAD, OPTIONS"),
    ("/admin/", "GET, HEAD, POST, OPTIONS"), ("/admin/login/", "GET, HEAD, POST, OPTIONS"),
    ("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui.css", "GET, HEAD, OPTIONS"),
])
def test_options_on_every_page_outside_the_api(api, path, allow):
    response = api.options(path)
    assert response.status_code == 200, response.content
    assert response["Allow"] == allow
    assert response.content == b""
    assert response["X-Correlation-ID"]


@pytest.mark.django_db
def test_options_outside_the_api_on_no_page_is_the_json_404(api):
    for path in ("/nope", "/static/nope.css", "/static/../config/settings.py"):
        response = api.options(path)
        assert response.status_code == 404 and response.json() == {"detail": "Not Found"}


@pytest.mark.django_db
def test_options_in_the_api_stay_drfs(api):
    response = api.options("/v2/health")
    assert response.status_code == 200 and response.json()["name"]


@pytest.mark.django_db
def test_a_parked_request_runs_again_with_its_correlation_id_and_counted_once(api, limited):
    """A rerun (the bridge's second run of a parked request) keeps the first run's id and
    is not counted again; it carries the rate-limit headers the first run got."""
    scope = {}
    first = api.get("/v1/ping", **{"asgi.scope": scope})  # /v1/ping is never limited
    assert scope[CORRELATION_KEY] == first["X-Correlation-ID"]

    scope = {}
    first = api.get("/v1/no-such-route", **{"asgi.scope": scope})
    assert first["X-RateLimit-Remaining"] == "4"
    assert dict(scope[LIMIT_HEADERS_KEY])["X-RateLimit-Remaining"] == "4"
    scope[RUNS_KEY] = 2
    again = api.get("/v1/no-such-route", **{"asgi.scope": scope})
    assert again["X-Correlation-ID"] == first["X-Correlation-ID"]
    assert again["X-RateLimit-Remaining"] == "4"
    third = api.get("/v1/no-such-route")
    assert third["X-RateLimit-Remaining"] == "3"  # the rerun took nothing
