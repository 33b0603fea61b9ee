"""Cross-cutting behaviour: correlation ids and headers on every status, JSON 404/405/500,
the OpenAPI document and offline docs, and the access log."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from tests.apps.payloads import CHART_NOT_FOUND, register_failure, simple_chart

SANE_ID = re.compile(r"^[A-Za-z0-9._\-]{6,64}$")


def _setup_statuses(yahoo):
    yahoo.chart("AAPL", simple_chart("AAPL", "1d"))
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    register_failure(yahoo.mock, "quotes", "yahoo_500")


# (expected status, method, path)
STATUS_REQUESTS = [
    (200, "get", "/v1/historical?symbol=AAPL&range=1mo&interval=1d"),
    (200, "get", "/v1/ping"),
    (200, "get", "/v1/health"),
    (400, "get", "/v1/historical?symbol=AAPL&range=max&interval=1d"),
    (404, "get", "/v1/historical?symbol=ZZZZ&range=1mo&interval=1d"),
    (404, "get", "/v1/no-such-route"),
    (404, "get", "/no-such-route"),
    (405, "post", "/v1/quotes?symbols=AAPL"),
    (422, "get", "/v1/historical?symbol=AAPL"),
    (422, "get", "/v1/quotes"),
    (502, "get", "/v1/quotes?symbols=AAPL"),
]


@pytest.mark.parametrize(("status", "method", "path"), STATUS_REQUESTS)
def test_every_response_has_correlation_id_and_data_source(api, yahoo, status, method, path):
    _setup_statuses(yahoo)
    response = getattr(api, method)(path)
    assert response.status_code == status
    assert SANE_ID.match(response["X-Correlation-ID"])
    assert response["X-Data-Source"] == "live"
    assert response["Content-Type"].startswith("application/json")
    json.loads(response.content)


def test_unhandled_error_is_json_500_with_correlation_id(api, monkeypatch):
    from apps.health import views

    def explode():
        raise RuntimeError("boom")

    monkeypatch.setattr(views, "health_report", explode)
    client = Client(raise_request_exception=False)
    response = client.get("/v1/health")
    assert response.status_code == 500
    assert response.json() == {"detail": "Internal server error"}
    assert "boom" not in response.content.decode()
    assert "Traceback" not in response.content.decode()
    assert SANE_ID.match(response["X-Correlation-ID"])
    assert response["X-Data-Source"] == "live"


def test_correlation_ids_differ_per_request(api):
    ids = {api.get("/v1/ping")["X-Correlation-ID"] for _ in range(5)}
    assert len(ids) == 5


def test_a_fresh_correlation_id_has_the_shape_it_always_had():
    """16 hex digits, the first 16 of a version-4 UUID's (the 13th is the version, 4)."""
    import re

    from apps.core.middleware import new_correlation_id

    ids = [new_correlation_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[0-9a-f]{12}4[0-9a-f]{3}", i) for i in ids)
    assert {i[0] for i in ids} == set("0123456789abcdef"), "every digit comes up"


def test_a_forked_worker_never_repeats_its_parents_ids():
    """The random digits are drawn ahead (4 KB per thread): a child process (a gunicorn
    worker) draws its own, never the rest of its parent's."""
    import os

    from apps.core.middleware import new_correlation_id

    new_correlation_id()  # the parent's pool is drawn
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        try:
            os.write(write, ",".join(new_correlation_id() for _ in range(5)).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        child = set(pipe.read().split(","))
    os.waitpid(pid, 0)
    parent = {new_correlation_id() for _ in range(5)}
    assert len(child) == 5 and not child & parent


@pytest.mark.parametrize("inbound", ["abc123", "req-42.trace_7", "0123456789abcdef" * 4])
def test_sane_inbound_correlation_id_is_echoed(api, inbound):
    response = api.get("/v1/ping", HTTP_X_CORRELATION_ID=inbound)
    assert response["X-Correlation-ID"] == inbound


@pytest.mark.parametrize("inbound", [
    "abc123\nX-Evil: 1",
    "abc123\r\nSet-Cookie: x=1",
    "a" * 200,
    "<script>alert(1)</script>",
    "abc 123",
    "abc",
    "",
    "ab\x00cdef",
])
def test_malicious_inbound_correlation_id_is_replaced(api, inbound):
    response = api.get("/v1/ping", HTTP_X_CORRELATION_ID=inbound)
    replaced = response["X-Correlation-ID"]
    assert replaced != inbound
    assert SANE_ID.match(replaced)
    assert "\n" not in replaced and "\r" not in replaced


def test_unknown_route_404_json(api):
    for path in ("/v1/nope", "/nope", "/v1/quotes/", "/v1/historical/AAPL"):
        response = api.get(path)
        assert response.status_code == 404, path
        assert response.json() == {"detail": "Not Found"}
    # Under /v2 the body is v2's ApiError.
    response = api.get("/v2/no-such-route")
    assert response.status_code == 404
    assert response.json() == {"error": "Not Found", "status": 404}


@pytest.mark.parametrize("path", ["/v1/quotes?symbols=AAPL", "/v1/simple-quotes?symbols=AAPL",
                                  "/v1/historical?symbol=AAPL&range=1d&interval=1d"])
@pytest.mark.parametrize("method", ["post", "put", "delete", "patch"])
def test_write_methods_405_json(api, yahoo, path, method):
    response = getattr(api, method)(path)
    assert response.status_code == 405
    assert response.json() == {"detail": f'Method "{method.upper()}" not allowed.'}
    assert "GET" in response["Allow"]
    assert SANE_ID.match(response["X-Correlation-ID"])
    assert len(yahoo.mock.calls) == 0


# -- OpenAPI and docs ----------------------------------------------------------------------------
def _schema(api) -> dict:
    response = api.get("/openapi.json", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    return json.loads(response.content)


def test_openapi_json_is_json_by_default(api):
    response = api.get("/openapi.json")
    assert response.status_code == 200
    assert "json" in response["Content-Type"], response["Content-Type"]
    document = json.loads(response.content)
    assert document["openapi"].startswith("3.")


def _params(schema: dict, path: str) -> dict[str, dict]:
    """The operation's query parameters (the optional x-api-key header is on every limited
    v1 operation; test_ratelimit_api checks it)."""
    return {p["name"]: p for p in schema["paths"][path]["get"]["parameters"]
            if p["in"] != "header"}


def test_openapi_lists_the_endpoints(api):
    schema = _schema(api)
    for path in ("/v1/historical", "/v1/quotes", "/v1/simple-quotes", "/v1/ping", "/v1/health"):
        assert path in schema["paths"], path
        assert set(schema["paths"][path]) == {"get"}


def test_openapi_historical_parameters_and_enums(api):
    params = _params(_schema(api), "/v1/historical")
    assert set(params) == {"symbol", "range", "interval", "epoch", "format"}
    assert all(p["in"] == "query" for p in params.values())
    assert params["format"]["schema"]["enum"] == ["json", "csv"]  # the CSV alternative
    assert params["symbol"]["required"] is True
    assert params["range"]["required"] is True
    assert params["interval"]["required"] is True
    assert not params["epoch"].get("required", False)
    assert params["range"]["schema"]["enum"] == ["1d", "5d", "1mo", "3mo", "6mo", "ytd", "1y",
                                                 "2y", "5y", "10y", "max"]
    assert params["interval"]["schema"]["enum"] == ["1m", "5m", "15m", "30m", "1h", "1d",
                                                    "1wk", "1mo"]
    assert params["epoch"]["schema"]["type"] == "boolean"
    assert params["epoch"]["schema"].get("default") is False


@pytest.mark.parametrize("path", ["/v1/quotes", "/v1/simple-quotes"])
def test_openapi_quotes_parameters(api, path):
    schema = _schema(api)
    params = _params(schema, path)
    assert set(params) == {"symbols"}
    assert params["symbols"]["in"] == "query"
    assert params["symbols"]["required"] is True
    assert params["symbols"]["schema"]["type"] == "string"
    responses = schema["paths"][path]["get"]["responses"]
    assert {"200", "404", "422"} <= set(responses)


def test_openapi_historical_statuses(api):
    responses = _schema(api)["paths"]["/v1/historical"]["get"]["responses"]
    assert {"200", "400", "404", "422"} <= set(responses)


_ASSET = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_docs_reference_only_local_static_assets(api, path):
    response = api.get(path)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assets = _ASSET.findall(html)
    assert assets, "the page loads its UI from somewhere"
    remote = [a for a in assets if re.match(r"^(https?:)?//", a)]
    assert remote == [], f"{path} loads assets from outside the service: {remote}"
    assert not re.search(r"https?://", html), "no CDN URL anywhere in the page"
    assert "/openapi.json" in html
    scripts = [a for a in assets if a.endswith(".js")]
    assert scripts and all(a.startswith("/static/") for a in scripts)


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_docs_static_assets_are_served(api, path):
    html = api.get(path).content.decode()
    local = [a for a in _ASSET.findall(html) if a.startswith("/static/")]
    assert local
    for asset in local:
        response = api.get(asset)
        assert response.status_code == 200, asset
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert body


def test_the_websocket_streams_page_is_linked_and_self_contained(api):
    response = api.get("/docs/websockets")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert not re.search(r"https?://", html), "no request to another host"
    for frame in ('"subscribe"', '"unsubscribe"', '"alerts"', "crossesAbove", "volumeAbove",
                  "/v2/feeds/stream", "WS_SEND_TIMEOUT_SECONDS"):
        assert frame.replace('"', "&quot;") in html or frame in html, frame
    from apps.quotes.services import TICK_MEMBERS

    assert [m for m in TICK_MEMBERS if f"<code>{m}</code>" not in html] == []
    assert api.get("/").json()["links"]["websockets"] == "/docs/websockets"
    assert "/docs/websockets" in api.get("/openapi.json").json()["info"]["description"]


# -- access log --------------------------------------------------------------------------------
def _access_lines(records: list[dict], path: str) -> list[dict]:
    return [r for r in records if r.get("api_response") and r.get("path") == path]


def test_access_log_line_is_json_with_request_fields(api, yahoo, logs):
    yahoo.chart("AAPL", simple_chart("AAPL", "1d"))
    response = api.get("/v1/historical?symbol=AAPL&range=1mo&interval=1d")
    lines = logs.lines()
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    access = _access_lines(records, "/v1/historical")
    assert len(access) == 1
    line = access[0]
    assert line["correlation_id"] == response["X-Correlation-ID"]
    assert line["method"] == "GET"
    assert line["path"] == "/v1/historical"
    assert line["status_code"] == 200
    assert isinstance(line["duration_ms"], int | float) and line["duration_ms"] >= 0
    assert line["level"] == "INFO"
    for key in ("asctime", "level", "logger", "module", "correlation_id", "message"):
        assert key in line
    assert re.match(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$", line["asctime"])
    assert line["message"].startswith("API response sent - GET /v1/historical (200)")


def test_access_log_redacts_secret_looking_parameters(api, logs):
    api.get("/v2/hours?region=US&apikey=s3cr3t-one&fred_api_key=s3cr3t-two&token=s3cr3t-3")
    access = _access_lines(logs.records(), "/v2/hours")
    assert len(access) == 1
    assert access[0]["params"] == ("region=US&apikey=REDACTED&fred_api_key=REDACTED"
                                   "&token=REDACTED")
    assert "s3cr3t" not in logs.text()


@pytest.mark.parametrize(("query", "logged"), [
    ("symbols=AAPL&fields=a,b", "symbols=AAPL&fields=a,b"),
    ("API_KEY=x&keyword=y&monkey=z", "API_KEY=REDACTED&keyword=y&monkey=z"),
    ("x-api-key=1&crumb=2&access_token=3&password=4&sig=5",
     "x-api-key=REDACTED&crumb=REDACTED&access_token=REDACTED&password=REDACTED&sig=REDACTED"),
    ("api%5Fkey=1&my-token=2&key=", "api%5Fkey=REDACTED&my-token=REDACTED&key=REDACTED"),
    ("keys=1&hotkey=2&tokens=3", "keys=1&hotkey=2&tokens=3"),
])
def test_redact_query(query, logged):
    from marketdata.logs import redact_query

    assert redact_query(query) == logged


@pytest.mark.parametrize(("path", "status"), [
    ("/v1/historical?symbol=AAPL&range=max&interval=1d", 400),
    ("/v1/no-such-route", 404),
    ("/v1/quotes", 422),
])
def test_access_log_for_client_errors(api, logs, path, status):
    response = api.get(path)
    assert response.status_code == status
    access = _access_lines(logs.records(), path.split("?")[0])
    assert len(access) == 1
    assert access[0]["status_code"] == status
    assert access[0]["correlation_id"] == response["X-Correlation-ID"]


def test_access_log_for_upstream_failure_is_error(api, yahoo, logs):
    register_failure(yahoo.mock, "historical", "connection_error")
    response = api.get("/v1/historical?symbol=AAPL&range=1mo&interval=1d")
    assert response.status_code == 503
    access = _access_lines(logs.records(), "/v1/historical")
    assert len(access) == 1
    assert access[0]["status_code"] == 503
    assert access[0]["level"] == "ERROR"


def test_inbound_correlation_id_appears_in_log_lines(api, logs):
    api.get("/v1/ping", HTTP_X_CORRELATION_ID="trace-abc-123")
    access = _access_lines(logs.records(), "/v1/ping")
    assert access[0]["correlation_id"] == "trace-abc-123"


def test_every_log_line_of_a_request_carries_its_correlation_id(api, yahoo, logs):
    register_failure(yahoo.mock, "historical", "yahoo_500")
    response = api.get("/v1/historical?symbol=AAPL&range=1mo&interval=1d")
    assert response.status_code == 502
    records = logs.records()
    assert records
    wrong = [(r["logger"], r["message"], r["correlation_id"]) for r in records
             if r["correlation_id"] != response["X-Correlation-ID"]]
    assert wrong == []


def test_no_secrets_in_log_lines(api, yahoo, recording, logs):
    yahoo.quote(recording("yahoo/v7-quote/quote-AAPL.json"))
    api.get("/v1/simple-quotes?symbols=AAPL")
    text = "\n".join(logs.lines())
    assert "haT3oykhHqZ" not in text, "the Yahoo crumb must never be logged"


def test_slow_request_logs_warning(settings, logs):
    settings.PERFORMANCE_THRESHOLD_MS = 0
    client = Client()  # the middleware reads the threshold when the chain is built
    response = client.get("/v1/ping")
    assert response.status_code == 200
    slow = [r for r in logs.records() if r["message"].startswith("Slow operation detected")]
    assert len(slow) == 1
    line = slow[0]
    assert line["level"] == "WARNING"
    assert line["correlation_id"] == response["X-Correlation-ID"]
    assert line["threshold_ms"] == 0
    assert line["duration_ms"] > 0
    assert "GET /v1/ping" in line["message"]


def test_fast_request_logs_no_slow_warning(settings, logs):
    settings.PERFORMANCE_THRESHOLD_MS = 60_000
    client = Client()
    client.get("/v1/ping")
    assert not [r for r in logs.records() if "Slow operation" in r["message"]]


@pytest.mark.parametrize("path, body", [
    ("/v1/quotes", {"detail": "Too many query parameters"}),
    ("/v2/indicators", {"error": "Too many query parameters", "status": 400}),
])
def test_too_many_query_parameters_is_a_400_not_a_500(api, path, body):
    """Django refuses more than DATA_UPLOAD_MAX_NUMBER_FIELDS (1,000) query parameters."""
    query = "&".join(f"symbols=A{i}" for i in range(1500))
    response = api.get(f"{path}?{query}")
    assert response.status_code == 400
    assert response.json() == body
