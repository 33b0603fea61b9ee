"""What /mcp refuses before the SDK sees it (apps.mcp.wire.inbound): a body that is not one
JSON-RPC 2.0 message as MCP has them (a batch, a malformed id, method or params, not JSON)
is answered 400 with a JSON-RPC error, after taking its rate-limit token; a valid message
reaches the SDK as the bytes that came."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from apps.mcp import wire
from apps.mcp.asgi import McpEndpoint

PROTOCOL = "2025-11-25"


class EmptyApi:
    """The service's HTTP application with no operations: no tools, and no tool call made
    (each request it gets is noted)."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def __call__(self, scope, receive, send) -> None:
        self.paths.append(scope["path"])
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": b'{"openapi": "3.1.0", "paths": {}}'})


class Answer:
    def __init__(self, events: list[dict[str, Any]]) -> None:
        start = next(e for e in events if e["type"] == "http.response.start")
        self.status = start["status"]
        self.headers = {k.decode(): v.decode() for k, v in start["headers"]}
        self.body = b"".join(e.get("body", b"") for e in events
                             if e["type"] == "http.response.body")

    def json(self) -> Any:
        return json.loads(self.body)


class Driver:
    """An :class:`McpEndpoint` driven in process on one event loop (its SDK session manager
    starts once for the test), noting the bodies the SDK is given."""

    def __init__(self, monkeypatch) -> None:
        self.loop = asyncio.new_event_loop()
        self.endpoint = McpEndpoint(EmptyApi())
        self.sdk_bodies: list[bytes] = []
        replay = wire.replay

        def noted(body: bytes, receive):
            self.sdk_bodies.append(body)
            return replay(body, receive)

        monkeypatch.setattr(wire, "replay", noted)

    def post(self, body: bytes, client: str = "192.0.2.30", **extra: str) -> Answer:
        """``body`` POSTed to /mcp (more headers by name, ``_`` for ``-``)."""
        # The body whole, then the client leaves once answered.
        inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        inbox.put_nowait({"type": "http.request", "body": body, "more_body": False})
        events: list[dict[str, Any]] = []

        async def send(event: dict[str, Any]) -> None:
            events.append(event)
            if event["type"] == "http.response.body" and not event.get("more_body"):
                inbox.put_nowait({"type": "http.disconnect"})

        headers = {"host": "testserver", "content-type": "application/json",
                   "content-length": str(len(body)), "mcp-protocol-version": PROTOCOL,
                   "accept": "application/json, text/event-stream",
                   **{k.replace("_", "-"): v for k, v in extra.items()}}
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "POST", "scheme": "http", "path": "/mcp", "raw_path": b"/mcp",
                 "query_string": b"", "root_path": "", "client": (client, 40000),
                 "server": ("testserver", 80),
                 "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}
        self.loop.run_until_complete(self.endpoint(scope, inbox.get, send))
        return Answer(events)

    def close(self) -> None:
        runner = self.endpoint._runner
        if runner is not None:
            runner.cancel()
            self.loop.run_until_complete(asyncio.gather(runner, return_exceptions=True))
        self.loop.run_until_complete(self.loop.shutdown_default_executor())
        self.loop.close()


@pytest.fixture
def driver(settings, monkeypatch):
    settings.V2_RATE_LIMIT_CAPACITY = 0  # the bucket off, but where a test turns it on
    mcp = Driver(monkeypatch)
    yield mcp
    mcp.close()


def _invalid(message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}


ID = f"Invalid Request: {wire.ID_RULE}"
RESPONSE_ID = f"Invalid Request: a response's {wire.ID_RULE}, or null in an error"
MALFORMED = {
    "batch": (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', wire.BATCH),
    "empty batch": (b"[]", wire.BATCH),
    "object id": (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', ID),
    "list id": (b'{"jsonrpc": "2.0", "id": [1], "method": "ping"}', ID),
    "bool id": (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', ID),
    "fractional id": (b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', ID),
    "float id": (b'{"jsonrpc": "2.0", "id": 1.0, "method": "ping"}', ID),
    "id past 64 bits": (b'{"jsonrpc": "2.0", "id": 123456789012345678901234567890, '
                        b'"method": "ping"}', ID),
    "null id": (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}',
                f"{ID}; a notification has none"),
    "a string": (b'"ping"', "Invalid Request: a message must be a JSON object"),
    "a number": (b"42", "Invalid Request: a message must be a JSON object"),
    "null": (b"null", "Invalid Request: a message must be a JSON object"),
    "no jsonrpc": (b'{"id": 1, "method": "ping"}', 'Invalid Request: jsonrpc must be "2.0"'),
    "jsonrpc 1.0": (b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}',
                    'Invalid Request: jsonrpc must be "2.0"'),
    "method a number": (b'{"jsonrpc": "2.0", "id": 1, "method": 5}',
                        "Invalid Request: method must be a string"),
    "params a list": (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}',
                      "Invalid Request: params must be an object when given"),
    "params null": (b'{"jsonrpc": "2.0", "method": "notifications/initialized", '
                    b'"params": null}', "Invalid Request: params must be an object when given"),
    "neither method nor result": (
        b'{"jsonrpc": "2.0", "id": 1}', "Invalid Request: a message needs a method (a request "
        "or a notification), or either a result or an error (a response)"),
    "result and error": (
        b'{"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}}',
        "Invalid Request: a message needs a method (a request or a notification), or either "
        "a result or an error (a response)"),
    "result a number": (b'{"jsonrpc": "2.0", "id": 1, "result": 5}',
                        "Invalid Request: result must be an object"),
    "error without code": (b'{"jsonrpc": "2.0", "id": 1, "error": {"message": "x"}}',
                           "Invalid Request: error must be an object with an integer code and "
                           "a string message"),
    "result with null id": (b'{"jsonrpc": "2.0", "id": null, "result": {}}', RESPONSE_ID),
    "response without id": (b'{"jsonrpc": "2.0", "result": {}}', RESPONSE_ID),
    "NaN, as the SDK reads it": (b'{"jsonrpc": "2.0", "id": NaN, "method": "ping"}', ID),
    "batch with Infinity": (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": '
                            b'{"a": Infinity}}]', wire.BATCH),
}


@pytest.mark.parametrize(("body", "message"), MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_message_is_a_json_rpc_error_before_the_sdk(driver, body, message):
    answer = driver.post(body)
    assert answer.status == 400 and answer.json() == _invalid(message)
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["content-length"] == str(len(answer.body))
    assert answer.headers["x-correlation-id"] and answer.headers["x-data-source"]
    assert driver.sdk_bodies == []


@pytest.mark.parametrize("body", [b"{not json", b"", b'{"jsonrpc": "2.0", "id": 1}}',
                                  b'{"jsonrpc": "2.0", "id": 1e999, "method": 5', b"\xff",
                                  b'\xef\xbb\xbf{"jsonrpc": "2.0", "method": "ping"}'])
def test_a_body_that_is_not_json_gets_the_sdks_parse_error(driver, body):
    """Neither orjson nor the SDK's parser takes it: the SDK's answer is the JSON-RPC parse
    error already."""
    answer = driver.post(body)
    error = answer.json()
    assert answer.status == 400 and answer.headers["content-type"] == "application/json"
    assert set(error) == {"jsonrpc", "id", "error"} and error["id"] is None
    assert error["jsonrpc"] == "2.0" and set(error["error"]) == {"code", "message"}
    assert error["error"]["code"] == -32700
    assert error["error"]["message"].startswith("Parse error: ")
    assert driver.sdk_bodies == [body]


VALID = {
    "string id": (b'{"jsonrpc":"2.0","id":"a-1","method":"ping"}', 200,
                  {"jsonrpc": "2.0", "id": "a-1", "result": {}}),
    "integer id": (b'{ "jsonrpc" : "2.0", "id" : 7, "method" : "ping", "params" : {} }', 200,
                   {"jsonrpc": "2.0", "id": 7, "result": {}}),
    "unknown method": (b'{"jsonrpc":"2.0","id":0,"method":"no/such"}', 200,
                       {"jsonrpc": "2.0", "id": 0,
                        "error": {"code": -32601, "message": "Method not found",
                                  "data": "no/such"}}),
    "NaN in params": (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":NaN}}', 200,
                      {"jsonrpc": "2.0", "id": 1, "result": {}}),  # orjson refuses it
    "notification": (b'{"jsonrpc":"2.0","method":"notifications/initialized"}', 202, None),
    "response": (b'{"jsonrpc":"2.0","id":3,"result":{}}', 202, None),
    "error with null id": (b'{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"x"}}',
                           202, None),
}


@pytest.mark.parametrize(("body", "status", "answer"), VALID.values(), ids=VALID.keys())
def test_a_valid_message_reaches_the_sdk_as_it_came(driver, body, status, answer):
    got = driver.post(body)
    assert got.status == status
    assert (got.json() if got.body else None) == answer
    assert driver.sdk_bodies == [body]  # the bytes as sent: not parsed and written again


def test_a_valid_tool_call_goes_to_the_sdk(driver):
    """The fake API's document has no operations, so no tool can be made: the call is
    answered by the SDK with a JSON-RPC error (the front does not refuse it)."""
    call = driver.post(b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
                       b'"params":{"name":"get_quote","arguments":{}}}')
    assert call.status == 200 and "message" in call.json()["error"]
    assert driver.endpoint.api.paths == ["/openapi.json"]


def test_a_refused_message_takes_its_token(settings, driver):
    """A malformed message costs a token (a malformed tool call too: it makes no API request
    to be counted by), so refusals cannot be sent in a loop for free."""
    settings.V2_RATE_LIMIT_CAPACITY = 2
    settings.V2_RATE_LIMIT_REFILL_PER_SECOND = 0.001
    settings.V2_RATE_LIMIT_SCOPE = "ip"
    batch = b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]'
    call = b'{"jsonrpc": "2.0", "id": {}, "method": "tools/call", "params": {"name": "x"}}'
    answers = [driver.post(batch), driver.post(call), driver.post(batch)]
    assert [a.status for a in answers] == [400, 400, 429]
    assert [re.search(r";r=(\d+);", a.headers["ratelimit"]).group(1)
            for a in answers] == ["1", "0", "0"]
    assert answers[1].json() == _invalid(ID)
    assert answers[2].json()["error"] == "Rate limit exceeded"
    assert driver.sdk_bodies == []


def test_a_refusal_has_the_fronts_headers_and_its_access_line(settings, driver, logs):
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example.com"]
    settings.CORS_ALLOW_ALL_ORIGINS = False
    answer = driver.post(b"[]", origin="https://app.example.com",
                         x_correlation_id="batch-refused-1")
    assert answer.status == 400 and answer.json() == _invalid(wire.BATCH)
    assert answer.headers["access-control-allow-origin"] == "https://app.example.com"
    assert answer.headers["x-correlation-id"] == "batch-refused-1"
    access = [r for r in logs.records() if r.get("api_response")]
    assert [(r["path"], r["status_code"], r["correlation_id"]) for r in access] == [
        ("/mcp", 400, "batch-refused-1")]


# -- any JSON value ----------------------------------------------------------------------------
# Integers within 64 bits (orjson reads larger ones as floats: refused as ids, tested above);
# text without lone surrogates (no JSON parser here takes them).
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=6)
INTEGERS = st.integers(-2**63, 2**63 - 1)
JSON = st.recursive(
    st.none() | st.booleans() | INTEGERS | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(TEXT, children, max_size=3),
    max_leaves=8)
# Messages: a valid one (a request, a notification, a result, an error) as it is, or with
# one member dropped or changed to any JSON value; most of them reach the SDK.
ID_VALUE = INTEGERS | TEXT
METHOD = st.sampled_from(["ping", "tools/list", "tools/call", "initialize", "no/such",
                          "notifications/initialized"]) | TEXT
PARAMS = st.dictionaries(TEXT, JSON, max_size=2)
VALID_MESSAGES = st.one_of(
    st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "id": ID_VALUE, "method": METHOD},
                          optional={"params": PARAMS}),
    st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "method": METHOD},
                          optional={"params": PARAMS}),
    st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "id": ID_VALUE, "result": PARAMS}),
    st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "id": ID_VALUE | st.none(),
                           "error": st.fixed_dictionaries({"code": INTEGERS, "message": TEXT},
                                                          optional={"data": JSON})}))
DROPPED = object()
CHANGE = st.none() | st.tuples(
    st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error"]),
    st.just(DROPPED) | JSON)


def _changed(message: dict[str, Any], change: tuple[str, Any] | None) -> dict[str, Any]:
    if change is None:
        return message
    key, value = change
    return {**{k: v for k, v in message.items() if k != key},
            **({} if value is DROPPED else {key: value})}


MESSAGES = st.builds(_changed, VALID_MESSAGES, CHANGE)


def _valid_notification_or_response(value: Any) -> bool:
    """By JSON-RPC 2.0 and MCP, independently of apps.mcp.wire."""
    def an_integer(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if not isinstance(value, dict) or value.get("jsonrpc") != "2.0":
        return False
    an_id = isinstance(value.get("id"), str) or an_integer(value.get("id"))
    if "method" in value:
        return "id" not in value and isinstance(value["method"], str) \
            and isinstance(value.get("params", {}), dict)
    if "result" in value:
        return "error" not in value and isinstance(value["result"], dict) and an_id
    error = value.get("error")
    return isinstance(error, dict) and isinstance(error.get("message"), str) \
        and an_integer(error.get("code")) and "id" in value \
        and (an_id or value["id"] is None)


@hypothesis_settings(max_examples=150, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(value=MESSAGES | JSON | st.lists(MESSAGES, max_size=2))
def test_any_json_value_is_answered_and_only_a_valid_one_dropped(driver, value):
    answer = driver.post(json.dumps(value).encode())
    assert answer.status < 500, answer.body
    assert (answer.status == 202) == _valid_notification_or_response(value), answer.body
    if answer.status == 400:
        error = answer.json()
        assert set(error) == {"jsonrpc", "id", "error"} and error["id"] is None
        assert error["error"]["code"] in (-32600, -32700)
        assert "validation error" not in error["error"]["message"].lower()
