"""The MCP tools (apps.mcp) generated from the served OpenAPI document: one per operation
(minus the documented exclusions), valid names and JSON Schemas, arguments turned into the
endpoint's request, answers into results, and the endpoint's own front (apps.mcp.wire): Host
and Origin checks, body limits, the v2 bucket for messages that are not tool calls,
compression and CORS."""

from __future__ import annotations

import json
import re
from functools import cache, lru_cache
from typing import Any
from urllib.parse import parse_qsl

import pytest
from jsonschema import Draft202012Validator

from apps.mcp import tools as mcp_tools
from apps.mcp.server import Answer, api_scope, refusal_result, tool_result
from apps.mcp.tools import ApiRequest, ToolSpec, build_tools
from marketdata.errors import InvalidParameters

# The strictest rule clients apply to tool names (the MCP spec, SEP-986, also allows '.').
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# Not tools, on purpose (apps/mcp/tools.py): the probes of one process.
PROBES = {"readyz", "ping", "get_ping"}


@cache
def _served_document() -> str:
    from django.test import Client

    response = Client().get("/openapi.json")
    assert response.status_code == 200
    return response.content.decode()


@lru_cache(maxsize=2)
def _document_and_tools(text: str) -> tuple[dict[str, Any], dict[str, ToolSpec]]:
    """The served document parsed and its tools built once per text (~1.4 s a build);
    a test that changes the document changes a copy of it."""
    document = json.loads(text)
    return document, build_tools(document)


@pytest.fixture
def document(unvalidated_responses) -> dict[str, Any]:
    return _document_and_tools(_served_document())[0]


@pytest.fixture
def tools(unvalidated_responses) -> dict[str, ToolSpec]:
    return _document_and_tools(_served_document())[1]


def _operations(document) -> dict[tuple[str, str], dict[str, Any]]:
    return {(method, path): operation for path, item in document["paths"].items()
            for method, operation in item.items() if method in ("get", "post")}


def _is_json(operation) -> bool:
    return "application/json" in operation["responses"]["200"].get("content", {})


# -- one tool per operation -------------------------------------------------------------------
def test_every_operation_has_exactly_one_tool(document, tools):
    operations = _operations(document)
    expected = {key for key, operation in operations.items()
                if operation["operationId"] not in PROBES and _is_json(operation)}
    made = [(spec.method, spec.path) for spec in tools.values()]
    assert len(made) == len(set(made))
    assert set(made) == expected
    assert len(tools) == len(expected) > 90
    # Each tool is named after its operation.
    for spec in tools.values():
        assert operations[spec.method, spec.path]["operationId"] == spec.operation_id


def test_the_exclusions_are_the_probes_and_the_streams(document, tools):
    operations = _operations(document)
    excluded = {operation["operationId"] for key, operation in operations.items()
                if key not in {(s.method, s.path) for s in tools.values()}}
    streams = {operation["operationId"] for operation in operations.values()
               if not _is_json(operation)}
    assert excluded == PROBES | streams
    assert "stream_quotes" in streams  # Server-Sent Events
    # The health reports are tools (an agent learns which upstreams fail, and whether the
    # data is the sandbox's); the backtest and the custom screener (POST) are too.
    assert {"health", "get_health", "run_backtest", "run_custom_screener"} <= set(tools)


def test_a_new_operation_gets_its_tool(document):
    document = json.loads(json.dumps(document))
    document["paths"]["/v2/brand-new/{symbol}"] = {"get": {
        "operationId": "get_brand_new", "summary": "Brand new",
        "parameters": [{"in": "path", "name": "symbol", "required": True,
                        "schema": {"type": "string"}}],
        "responses": {"200": {"content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/ApiError"}}}}}}}
    spec = build_tools(document)["get_brand_new"]
    assert spec.path == "/v2/brand-new/{symbol}"
    assert spec.output_schema["properties"]["error"]["type"] == "string"


def test_names_are_unique_and_valid_for_mcp(tools):
    from mcp.shared.tool_name_validation import validate_tool_name

    names = [spec.tool().name for spec in tools.values()]
    assert len(names) == len(set(names))
    for name in names:
        assert NAME.match(name), name
        result = validate_tool_name(name)
        assert result.is_valid and not result.warnings, (name, result.warnings)


def test_a_name_clash_is_an_error(document):
    document = json.loads(json.dumps(document))
    item = document["paths"]["/v2/quote/{symbol}"]
    document["paths"]["/v2/quote-again/{symbol}"] = item
    with pytest.raises(ValueError, match="get_quote_v2"):
        build_tools(document)


def test_operation_ids_outside_the_rule_are_made_valid():
    assert mcp_tools.tool_name("get.quote/v2") == "get_quote_v2"
    assert len(mcp_tools.tool_name("x" * 100)) == 64


# -- schemas --------------------------------------------------------------------------------
def test_input_schemas_are_valid_json_schemas(document, tools):
    operations = _operations(document)
    for spec in tools.values():
        schema = spec.input_schema
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object", spec.name
        assert schema["additionalProperties"] is False
        assert set(schema.get("required", ())) <= set(schema["properties"]), spec.name
        operation = operations[spec.method, spec.path]
        for parameter in operation.get("parameters", ()):
            if parameter["in"] == "header" or parameter.get("x-representation"):
                assert parameter["name"] not in schema["properties"]
                continue
            assert parameter["name"] in schema["properties"], (spec.name, parameter["name"])
            if parameter.get("required") or parameter["in"] == "path":
                assert parameter["name"] in schema["required"], (spec.name, parameter["name"])
        assert "$ref" not in json.dumps(schema), spec.name


@pytest.mark.slow("resolves every tool's output schema from the OpenAPI document")
def test_output_schemas_are_objects_with_every_reference_resolved(document, tools):
    operations = _operations(document)
    for spec in tools.values():
        schema = spec.output_schema
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object", spec.name
        assert "$ref" not in json.dumps(schema), spec.name
        ok = operations[spec.method, spec.path]["responses"]["200"]["content"]
        declared = ok["application/json"]["schema"]
        if "$ref" not in declared:
            assert spec.wrapped == (declared.get("type") != "object"), spec.name
        if spec.wrapped:
            assert schema["required"] == ["result"]
    # A list answer is wrapped; an object answer is not.
    assert tools["get_quotes"].wrapped and not tools["get_quote_v2"].wrapped
    quotes = tools["get_quotes"].output_schema["properties"]["result"]
    assert quotes["type"] == "array" and quotes["items"]["properties"]["symbol"]


def test_descriptions_come_from_the_document(document, tools):
    operation = _operations(document)["get", "/v2/quote/{symbol}"]
    spec = tools["get_quote_v2"]
    assert spec.title == operation["summary"]
    assert operation["description"].strip() in spec.description
    assert spec.description.endswith("HTTP: GET /v2/quote/{symbol}")


def test_recursive_references_go_through_defs():
    document = {"paths": {"/v2/tree": {"get": {
        "operationId": "get_tree", "responses": {"200": {"content": {"application/json": {
            "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}}}}}},
        "components": {"schemas": {"Node": {"type": "object", "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}}}}
    spec = build_tools(document)["get_tree"]
    schema = spec.output_schema
    Draft202012Validator.check_schema(schema)
    assert spec.wrapped and schema["$defs"]["Node"]["properties"]["children"]["items"] == {
        "$ref": "#/$defs/Node"}
    validator = Draft202012Validator(schema)
    assert validator.is_valid({"result": [{"name": "a", "children": [{"name": "b"}]}]})
    assert not validator.is_valid({"result": [{"name": "a", "children": [{"name": 1}]}]})


def test_enum_value_lists_leave_the_descriptions(tools):
    strategy = tools["run_backtest"].input_schema["properties"]["strategy"]
    assert "sma_crossover" in strategy["enum"]
    assert "* `sma_crossover` - sma_crossover" not in strategy.get("description", "")
    assert "allOf" not in strategy


# -- arguments -> the endpoint's request ------------------------------------------------------
def _example(schema: dict[str, Any]) -> Any:
    for key in ("examples", "enum"):
        if schema.get(key):
            return schema[key][0]
    if "default" in schema:
        return schema["default"]
    return {"integer": 1, "number": 1, "boolean": True}.get(schema.get("type"), "AAPL")


def test_every_tool_with_example_arguments_reaches_its_own_route(tools):
    from django.urls import resolve

    for spec in tools.values():
        properties = spec.input_schema["properties"]
        arguments = {name: _example(properties[name])
                     for name in spec.input_schema.get("required", ())}
        request = spec.request(arguments)
        assert request.method == spec.method.upper()
        match = resolve(request.path)
        route = "/" + match.route.replace("<", "{").replace(">", "}")
        route = re.sub(r"\{\w+:(\w+)\}", r"{\1}", route)
        assert route == spec.path, (spec.name, request.path, route)


def test_query_values_as_the_endpoints_read_them(tools):
    request = tools["get_indices"].request({"index": ["snp", "dax"], "region": "EU"})
    assert parse_qsl(request.query_string.decode()) == [
        ("index", "snp"), ("index", "dax"), ("region", "EU")]
    request = tools["get_chart"].request({"symbol": "AAPL", "patterns": True,
                                          "events": False, "limit": 2.0})
    assert dict(parse_qsl(request.query_string.decode())) == {
        "patterns": "true", "events": "false", "limit": "2"}
    # Absent and null arguments are left out (the endpoint's defaults apply).
    request = tools["get_quote_v2"].request({"symbol": "AAPL", "fields": None})
    assert request.query_string == b""


def test_path_values_are_encoded_as_a_client_would(tools):
    request = tools["get_index_constituents"].request({"symbol": "^GSPC"})
    assert request.path == "/v2/index-constituents/^GSPC"
    assert request.raw_path == b"/v2/index-constituents/%5EGSPC"
    request = tools["get_quote_v2"].request({"symbol": "A/B"})
    assert request.raw_path == b"/v2/quote/A%2FB"  # the API's 404, as over HTTP
    request = tools["get_forex"].request({"from": "{to}", "to": "USD"})
    assert request.path == "/v2/forex/{to}/USD"


def test_a_body_goes_beside_the_parameters(tools):
    spec = tools["run_backtest"]
    assert spec.body == "flat" and "strategy" in spec.input_schema["required"]
    request = spec.request({"symbol": "AAPL", "strategy": "sma_crossover", "range": "2y",
                            "params": {"fastPeriod": 5}, "fields": "symbol,metrics"})
    assert (request.method, request.path) == ("POST", "/v2/backtest/AAPL")
    assert json.loads(request.body) == {"strategy": "sma_crossover", "range": "2y",
                                        "params": {"fastPeriod": 5}}
    # `fields`, a query parameter and a body member alike, goes in the query.
    assert parse_qsl(request.query_string.decode()) == [("fields", "symbol,metrics")]
    custom = tools["run_custom_screener"].request({"size": 5, "filters": []})
    assert json.loads(custom.body) == {"size": 5, "filters": []}


def test_arguments_no_request_can_carry_are_refused(tools):
    spec = tools["get_quote_v2"]
    with pytest.raises(InvalidParameters) as caught:
        spec.request({"fields": "symbol", "colour": "blue", "format": {"raw": 1}})
    errors = {e.param: e for e in caught.value.errors}
    assert set(errors) == {"colour", "format", "symbol"}
    assert errors["colour"].kind == "extra_forbidden"
    assert errors["format"].message == "Input should be a valid string"
    assert errors["symbol"].message == "Field required"


def test_refusals_have_the_endpoints_error_shape(tools):
    exc = InvalidParameters([mcp_tools.FieldError("nope", "Extra inputs are not permitted",
                                                  "extra_forbidden", 1)])
    v2 = refusal_result(tools["get_quote_v2"], exc)
    assert v2.is_error and v2.structured_content == {
        "error": "nope: Extra inputs are not permitted", "status": 400}
    assert json.loads(v2.content[0].text) == v2.structured_content
    # v1: each view's 422 shape (holders: {errors}; analysis: a pydantic-style list).
    holders = refusal_result(tools["get_holders"], exc)
    assert holders.structured_content == {"errors": {"nope": ["Extra inputs are not permitted"]}}
    analysis = refusal_result(tools["get_analysis"], exc).structured_content
    assert analysis["detail"][0]["msg"] == "Extra inputs are not permitted"
    quotes = refusal_result(tools["get_quotes"], exc).structured_content
    assert quotes == {"detail": "Invalid request",
                      "errors": {"nope": ["Extra inputs are not permitted"]}}


# -- answers -> results ---------------------------------------------------------------------
def _answer(status: int, body: Any, **headers: str) -> Answer:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Answer(status, [(k.replace("_", "-").encode(), v.encode())
                           for k, v in headers.items()], raw)


def test_a_success_is_structured_content(tools):
    spec = tools["get_quotes"]
    request = spec.request({"symbols": "AAPL"})
    result = tool_result(spec, request, _answer(200, [{"symbol": "AAPL"}], x_cache="HIT",
                                                x_data_source="sandbox"))
    assert not result.is_error
    assert result.structured_content == {"result": [{"symbol": "AAPL"}]}
    assert json.loads(result.content[0].text) == result.structured_content
    assert result.meta["marketdata/http"] == {
        "status": 200, "headers": {"x-cache": "HIT", "x-data-source": "sandbox"}}


def test_a_failure_is_a_tool_error_with_the_body(tools):
    spec = tools["get_quote_v2"]
    request = spec.request({"symbol": "AAPL"})
    body = {"error": "Yahoo is unavailable", "status": 503, "provider": "yahoo"}
    result = tool_result(spec, request, _answer(503, body, retry_after="30"))
    assert result.is_error and result.structured_content == body
    assert json.loads(result.content[0].text)["provider"] == "yahoo"
    assert result.meta["marketdata/http"]["headers"]["retry-after"] == "30"
    odd = tool_result(spec, request, _answer(500, b"<html>oops</html>"))
    assert odd.is_error and odd.structured_content["status"] == 500


def test_the_request_carries_the_mcp_requests_client_and_headers():
    outer = {"client": ("203.0.113.9", 4000), "server": ("127.0.0.1", 8000),
             "scheme": "http", "marketdata.arrival": 123.0,
             "headers": [(b"host", b"md.example"), (b"x-api-key", b"k"),
                         (b"x-forwarded-for", b"198.51.100.1"), (b"accept-language", b"de"),
                         (b"mcp-protocol-version", b"2025-11-25"),
                         (b"accept", b"application/json, text/event-stream"),
                         (b"accept-encoding", b"gzip"), (b"content-length", b"99")]}
    scope = api_scope(ApiRequest("GET", "/v2/quote/AAPL", b"/v2/quote/AAPL", b"a=1"), outer)
    headers = dict(scope["headers"])
    assert scope["client"] == ("203.0.113.9", 4000)
    assert scope["marketdata.arrival"] == 123.0  # the deadline counts from the MCP request
    assert headers == {b"host": b"md.example", b"x-api-key": b"k",
                       b"x-forwarded-for": b"198.51.100.1", b"accept-language": b"de",
                       b"accept": b"application/json"}
    assert (scope["path"], scope["query_string"]) == ("/v2/quote/AAPL", b"a=1")
    posted = api_scope(ApiRequest("POST", "/v2/backtest/A", b"/v2/backtest/A", b"", b"{}"),
                       None)
    assert dict(posted["headers"])[b"content-length"] == b"2"


# -- in process, through config.asgi's router -------------------------------------------------
def _post_mcp(message: dict[str, Any], headers: dict[str, str] | None = None
              ) -> tuple[int, dict[bytes, bytes], Any]:
    """One JSON-RPC message POSTed to /mcp through the server's HTTP router, on a loop of
    its own (as each worker has: the session manager starts on each loop's first request)."""
    import asyncio

    import config.asgi

    body = json.dumps(message).encode()
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(event: dict[str, Any]) -> None:
        sent.append(event)

    raw = {"host": "testserver", "content-type": "application/json",
           "content-length": str(len(body)), "accept": "application/json, text/event-stream",
           "mcp-protocol-version": "2025-11-25", **(headers or {})}
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/mcp", "raw_path": b"/mcp",
             "query_string": b"", "root_path": "", "client": ("127.0.0.1", 50000),
             "server": ("testserver", 80),
             "headers": [(k.encode(), v.encode()) for k, v in raw.items()]}
    asyncio.run(config.asgi.http_router(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    payload = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], dict(start["headers"]), json.loads(payload)


def test_a_tool_call_through_the_router(settings, unvalidated_responses):
    settings.MARKETDATA_UPSTREAM = "sandbox"
    status, headers, answer = _post_mcp({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                         "params": {"name": "get_quote_v2", "arguments": {
                                             "symbol": "AAPL", "fields": "symbol"}}})
    assert status == 200 and headers[b"x-data-source"] == b"sandbox"
    result = answer["result"]
    assert result["isError"] is False and result["structuredContent"] == {"symbol": "AAPL"}
    assert result["_meta"]["marketdata/http"]["status"] == 200
    # A second loop (another asyncio.run) gets a session manager of its own.
    status, _, answer = _post_mcp({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert status == 200 and len(answer["result"]["tools"]) > 90


def test_mcp_off_leaves_the_path_to_django(settings, unvalidated_responses):
    settings.MCP_ENABLED = False
    status, _, answer = _post_mcp({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert status == 404 and "detail" in answer


def test_the_representation_parameter_is_not_a_tool_argument(document, tools):
    """`format=csv` picks CSV over JSON: a tool always answers structured JSON, so the
    parameter the document marks as the representation's is no argument of any tool."""
    marked = {(method, path) for path, item in document["paths"].items()
              for method, operation in item.items() if isinstance(operation, dict)
              for parameter in operation.get("parameters", [])
              if parameter.get("x-representation")}
    assert ("get", "/v2/chart/{symbol}") in marked or ("get", "/v1/historical") in marked
    for spec in tools.values():
        if (spec.method, spec.path) in marked:
            assert "format" not in spec.input_schema["properties"], spec.name


# -- the endpoint around the SDK: body limits, rate limit, compression, CORS (apps.mcp.wire) --
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "get_quote_v2", "arguments": {"symbol": "AAPL", "fields": "symbol"}}}
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}}


class FakeApi:
    """The service's HTTP application as the MCP server sees it: the served OpenAPI document
    (the real tools), and ``{"symbol": "AAPL"}`` for any other request, each one noted."""

    def __init__(self) -> None:
        self.document = _served_document().encode()
        self.calls: list[str] = []

    async def __call__(self, scope, receive, send) -> None:
        self.calls.append(scope["path"])
        body = self.document if scope["path"] == "/openapi.json" else b'{"symbol":"AAPL"}'
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})


@pytest.fixture
def endpoint(unvalidated_responses):
    """An MCP endpoint in front of a :class:`FakeApi`, with the SDK's runs counted."""
    from apps.mcp.asgi import McpEndpoint

    mcp = McpEndpoint(FakeApi())
    mcp.sdk_runs = 0
    manager = mcp.manager

    async def counted_manager():
        mcp.sdk_runs += 1
        return await manager()

    mcp.manager = counted_manager
    return mcp


class Exchange:
    """One HTTP exchange with an ASGI app, as uvicorn would drive it."""

    def __init__(self, status: int, headers: list[tuple[bytes, bytes]], body: bytes,
                 received: int) -> None:
        self.status, self.body, self.received = status, body, received
        self.headers = {name.decode(): value.decode() for name, value in headers}
        self.vary = {member.strip().lower() for name, value in headers if name == b"vary"
                     for member in value.decode().split(",")}
        assert len([n for n, _ in headers if n == b"vary"]) <= 1  # merged into one

    def json(self) -> Any:
        return json.loads(self.body)


async def _request(app, message: Any = None, *, method: str = "POST",
                   chunks: list[bytes] | None = None, stall: bool = False,
                   client: str = "192.0.2.10", **headers: str) -> Exchange:
    """``message`` (JSON, or raw bytes) POSTed to /mcp (or ``chunks`` sent chunked, and
    ``stall``: the rest never comes); headers by name with ``_`` for ``-``."""
    import asyncio

    if chunks is None:
        body = message if isinstance(message, bytes) else \
            b"" if message is None else json.dumps(message).encode()
        chunks = [body]
        framing = {"content-length": str(len(body))} if method == "POST" else {}
    else:
        framing = {"transfer-encoding": "chunked"}
    pending = list(chunks)
    done = asyncio.Event()
    received = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal received
        if pending:
            received += 1
            chunk = pending.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(pending) or stall}
        await done.wait()  # a stalled body never comes; the client leaves after the answer
        return {"type": "http.disconnect"}

    async def send(event: dict[str, Any]) -> None:
        sent.append(event)
        if event["type"] == "http.response.body" and not event.get("more_body"):
            done.set()

    raw = {"host": "testserver", "content-type": "application/json",
           "accept": "application/json, text/event-stream",
           "mcp-protocol-version": "2025-11-25", **framing,
           **{k.replace("_", "-"): v for k, v in headers.items()}}
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": "/mcp", "raw_path": b"/mcp",
             "query_string": b"", "root_path": "", "client": (client, 50000),
             "server": ("testserver", 80),
             "headers": [(k.encode(), v.encode()) for k, v in raw.items()]}
    try:
        await app(scope, receive, send)
    finally:
        done.set()
    start = next(m for m in sent if m["type"] == "http.response.start")
    payload = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return Exchange(start["status"], start["headers"], payload, received)


def _run(coroutine):
    import asyncio

    return asyncio.run(coroutine)


def test_a_body_over_the_limit_is_a_413_before_the_sdk(settings, endpoint):
    settings.REQUEST_BODY_MAX_BYTES = 256
    declared = _run(_request(endpoint, b"{" + b" " * 298 + b"}"))
    assert declared.status == 413 and declared.received == 0  # refused before reading it
    assert declared.json() == {"detail": "Request body too large: 300 bytes, at most 256 "
                                         "are accepted"}
    assert declared.headers["connection"] == "close" and declared.headers["x-correlation-id"]
    chunked = _run(_request(endpoint, chunks=[b"{" + b" " * 99] * 3))
    assert chunked.status == 413 and chunked.received == 3
    assert chunked.json() == {"detail": "Request body too large: at most 256 bytes are "
                                        "accepted"}
    assert endpoint.sdk_runs == 0 and endpoint.api.calls == []


def test_a_body_that_stalls_is_a_408(settings, endpoint):
    import time

    settings.REQUEST_BODY_TIMEOUT_SECONDS = 0.3
    started = time.monotonic()
    answer = _run(_request(endpoint, chunks=[b'{"jsonrpc": "2.0",'], stall=True))
    assert answer.status == 408 and 0.25 < time.monotonic() - started < 3
    assert answer.json() == {"detail": "Request body not received within 0.3 s"}
    assert answer.headers["connection"] == "close"
    assert endpoint.sdk_runs == 0


def test_a_body_in_pieces_reaches_the_sdk_whole(endpoint):
    body = json.dumps(CALL).encode()
    answer = _run(_request(endpoint, chunks=[body[:10], body[10:40], body[40:]]))
    assert answer.status == 200 and answer.received == 3
    assert answer.json()["result"]["structuredContent"] == {"symbol": "AAPL"}
    assert endpoint.api.calls == ["/openapi.json", "/v2/quote/AAPL"]


def _bucket(settings, capacity: int) -> None:
    settings.V2_RATE_LIMIT_CAPACITY = capacity
    settings.V2_RATE_LIMIT_REFILL_PER_SECOND = 0.001
    settings.V2_RATE_LIMIT_SCOPE = "ip"


def _remaining(answer: Exchange) -> int:
    return int(re.search(r";r=(\d+);", answer.headers["ratelimit"]).group(1))


def test_messages_but_tool_calls_take_a_token_of_the_v2_bucket(settings, endpoint):
    _bucket(settings, 3)
    settings.ADMIN_API_KEY = "admin-key"
    notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}

    async def run():
        return [await _request(endpoint, INITIALIZE), await _request(endpoint, LIST),
                await _request(endpoint, b"{not json"),  # the SDK's parse error, counted
                await _request(endpoint, LIST), await _request(endpoint, notification),
                await _request(endpoint, CALL),
                await _request(endpoint, LIST, x_api_key="admin-key"),
                await _request(endpoint, LIST, client="192.0.2.99")]

    initialize, listed, malformed, spam, notified, called, admin, other = _run(run())
    assert [initialize.status, listed.status, malformed.status] == [200, 200, 400]
    assert [_remaining(a) for a in (initialize, listed, malformed)] == [2, 1, 0]
    assert initialize.headers["ratelimit-policy"] == '"bucket";q=3;w=3000'
    # No token left: refused before the SDK, with the v2 RateLimitError and its headers.
    for refused in (spam, notified):
        assert refused.status == 429
        body = refused.json()
        assert body["error"] == "Rate limit exceeded" and body["retryAfterSeconds"] > 0
        assert set(body) == {"error", "message", "retryAfterSeconds"}
        assert int(refused.headers["retry-after"]) == body["retryAfterSeconds"]
        assert _remaining(refused) == 0 and refused.headers["x-correlation-id"]
        assert refused.headers["content-type"] == "application/json"
    # A tool call is not counted here (its HTTP request is, by the API); nor the admin key.
    assert called.status == 200 and "ratelimit" not in called.headers
    assert admin.status == 200 and "ratelimit" not in admin.headers
    assert other.status == 200 and _remaining(other) == 2  # another client's bucket
    assert endpoint.sdk_runs == 6  # not for the two refusals
    assert endpoint.api.calls == ["/openapi.json", "/v2/quote/AAPL"]


def test_with_the_bucket_off_nothing_is_counted(settings, endpoint):
    settings.V2_RATE_LIMIT_CAPACITY = 0

    async def run():
        return [await _request(endpoint, LIST) for _ in range(3)]

    for answer in _run(run()):
        assert answer.status == 200 and "ratelimit" not in answer.headers


def test_a_tool_call_is_counted_once_by_the_api(settings, unvalidated_responses):
    """Through the server's router: the call's own HTTP request takes the one token."""
    import config.asgi

    _bucket(settings, 5)
    settings.MARKETDATA_UPSTREAM = "sandbox"

    async def run():
        return await _request(config.asgi.http_router, CALL, client="192.0.2.20"), \
            await _request(config.asgi.http_router, LIST, client="192.0.2.20")

    called, listed = _run(run())
    result = called.json()["result"]
    assert result["isError"] is False
    assert re.search(r";r=4;", result["_meta"]["marketdata/http"]["headers"]["ratelimit"])
    assert "ratelimit" not in called.headers
    assert listed.status == 200 and _remaining(listed) == 3


def _decoded(answer: Exchange) -> bytes:
    import gzip

    import brotli

    coding = answer.headers.get("content-encoding")
    assert int(answer.headers["content-length"]) == len(answer.body)
    if coding == "gzip":
        return gzip.decompress(answer.body)
    if coding == "br":
        return brotli.decompress(answer.body)
    assert coding is None
    return answer.body


def test_json_answers_are_compressed_as_accept_encoding_says(endpoint, monkeypatch):
    from apps.core import encoding

    compressions: list[tuple[int, str]] = []
    compress = encoding.compress

    def counted(body, coding, quality=encoding.ENTRY_QUALITY):
        compressions.append((len(body), coding))
        return compress(body, coding, quality)

    monkeypatch.setattr(encoding, "compress", counted)

    async def run():
        return [await _request(endpoint, LIST),
                await _request(endpoint, LIST, accept_encoding="gzip"),
                await _request(endpoint, LIST, accept_encoding="gzip, deflate, br"),
                await _request(endpoint, LIST, accept_encoding="br;q=0, gzip"),
                await _request(endpoint, LIST, accept_encoding="gzip;q=0.5, identity"),
                await _request(endpoint, {"jsonrpc": "2.0", "id": 3, "method": "ping"},
                               accept_encoding="br")]

    plain, gzipped, brotlied, gzipped_again, refused, ping = _run(run())
    assert plain.status == 200 and "content-encoding" not in plain.headers
    assert len(plain.body) > 500_000
    assert gzipped.headers["content-encoding"] == "gzip"
    assert brotlied.headers["content-encoding"] == "br"
    assert len(brotlied.body) < len(gzipped.body) < len(plain.body) // 5
    for answer in (plain, gzipped, brotlied, gzipped_again, refused):
        assert json.loads(_decoded(answer)) == plain.json()
        assert "accept-encoding" in answer.vary
    assert "content-encoding" not in refused.headers  # identity ranked higher
    # The tool list is compressed once per coding, not per call.
    big = [coding for size, coding in compressions if size == len(plain.body)]
    assert sorted(big) == ["br", "gzip"]
    # A small answer stays as it is.
    assert ping.status == 200 and "content-encoding" not in ping.headers
    assert "accept-encoding" not in ping.vary and ping.json()["result"] == {}


def test_an_event_stream_passes_untouched():
    import asyncio

    from apps.mcp.wire import Variants, compressing

    sent: list[dict[str, Any]] = []

    async def send(message):
        sent.append(message)

    start = {"type": "http.response.start", "status": 200,
             "headers": [(b"content-type", b"text/event-stream")]}
    event = {"type": "http.response.body", "body": b"data: " + b"x" * 4000 + b"\n\n",
             "more_body": True}

    async def run():
        wrapped = compressing(send, "gzip, br", Variants())
        await wrapped(start)
        await wrapped(event)
        assert sent == [start, event]  # as they come, not held
        await wrapped({"type": "http.response.body", "body": b""})

    asyncio.run(run())
    assert sent[:2] == [start, event] and len(sent) == 3


def test_large_variants_are_made_once_and_the_memo_is_bounded(monkeypatch):
    import asyncio
    import os

    from apps.core import encoding
    from apps.mcp.wire import Variants

    made: list[int] = []
    compress = encoding.compress

    def counted(body, coding, quality=encoding.ENTRY_QUALITY):
        made.append(len(body))
        return compress(body, coding, quality)

    monkeypatch.setattr(encoding, "compress", counted)
    variants = Variants(entries=2, large=1000)
    body = json.dumps([{"symbol": f"S{n}", "price": n} for n in range(500)]).encode()

    async def run():
        together = await asyncio.gather(*(variants.encode(body, "gzip") for _ in range(5)))
        assert len(set(together)) == 1 and len(made) == 1  # one compression, five answers
        for n in range(3):
            await variants.encode(body + b" " * (n + 1), "br")
        assert len(variants._memo) == 2
        assert await variants.encode(os.urandom(5000), "gzip") is None  # not smaller
        assert await variants.encode(b"[" + b"1," * 100 + b"1]", "gzip") is not None

    asyncio.run(run())


def test_the_cors_preflight_and_headers(settings, endpoint):
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example.com"]
    settings.CORS_ALLOW_ALL_ORIGINS = False
    settings.REQUEST_BODY_MAX_BYTES = 2048
    app = "https://app.example.com"
    asks = {"access_control_request_method": "POST",
            "access_control_request_headers": "content-type, mcp-protocol-version"}

    async def run():
        return [await _request(endpoint, method="OPTIONS", origin=app, **asks),
                await _request(endpoint, method="OPTIONS", origin="https://evil.test", **asks),
                await _request(endpoint, method="OPTIONS", origin=app),
                await _request(endpoint, INITIALIZE, origin=app),
                await _request(endpoint, b"{" + b" " * 3000 + b"}", origin=app)]

    preflight, evil, bare, posted, too_large = _run(run())
    assert preflight.status == 200 and preflight.body == b""
    assert preflight.headers["access-control-allow-origin"] == app and "origin" in preflight.vary
    assert preflight.headers["access-control-allow-methods"] == "POST"
    allowed = {h.strip() for h in preflight.headers["access-control-allow-headers"].split(",")}
    assert {"content-type", "accept", "mcp-protocol-version", "mcp-session-id",
            "last-event-id", "x-api-key", "x-correlation-id"} <= allowed
    assert preflight.headers["access-control-max-age"] == "86400"
    assert evil.status == 403 and "access-control-allow-origin" not in evil.headers
    assert bare.status == 405  # an OPTIONS that is no preflight
    for answer in (posted, too_large):
        assert answer.headers["access-control-allow-origin"] == app
        assert "origin" in answer.vary
        exposed = {h.strip().lower()
                   for h in answer.headers["access-control-expose-headers"].split(",")}
        assert {"mcp-session-id", "retry-after", "ratelimit", "ratelimit-policy"} <= exposed
    assert posted.status == 200 and too_large.status == 413
    assert endpoint.sdk_runs == 1  # the preflights never reach the SDK
    # Any origin allowed: "*", and the answers do not vary by Origin.
    settings.CORS_ALLOWED_ORIGINS = []
    settings.CORS_ALLOW_ALL_ORIGINS = True
    settings.STREAM_ALLOWED_ORIGINS = ["*"]
    anyone = _run(_request(endpoint, method="OPTIONS", origin="https://evil.test", **asks))
    assert anyone.status == 200 and anyone.headers["access-control-allow-origin"] == "*"
    assert "origin" not in anyone.vary
