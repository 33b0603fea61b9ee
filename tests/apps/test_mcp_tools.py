"""The MCP tools (apps.mcp): the catalog's declarations made concrete with the served OpenAPI
document (valid names and compact JSON Schemas within the tools/list budget, every route's
operation real), arguments checked strictly and turned into the endpoint's request, answers
into bounded results, and the endpoint's own front (apps.mcp.wire): Host and Origin checks,
body limits, the v2 bucket for messages that are not tool calls, compression and CORS."""

from __future__ import annotations

import json
import re
from functools import cache, lru_cache
from typing import Any
from urllib.parse import parse_qsl

import pytest
from jsonschema import Draft202012Validator

from apps.core.inprocess import Answer, ApiRequest, api_scope
from apps.mcp import catalog
from apps.mcp.server import tool_result
from apps.mcp.tools import (
    RESULT_MAX_BYTES,
    ArgumentsRefused,
    ToolSpec,
    build_tools,
    without_edges,
)
from marketdata.records.members import member_names
from marketdata.records.quotes import GqlQuote
from tests.mcp import post_mcp

# The strictest rule clients apply to tool names (the MCP spec, SEP-986, also allows '.').
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
TOOLS_LIST_MAX_BYTES = 60_000  # the whole tools/list, as JSON (~15k tokens)


@cache
def _served_document() -> str:
    from django.test import Client

    response = Client().get("/openapi.json")
    assert response.status_code == 200
    return response.content.decode()


@lru_cache(maxsize=2)
def _document_and_tools(text: str) -> tuple[dict[str, Any], dict[str, ToolSpec]]:
    """The served document parsed and the tools built once per text; a test that changes
    the document changes a copy of it."""
    document = json.loads(text)
    return document, build_tools(document)


@pytest.fixture
def document(unvalidated_responses) -> dict[str, Any]:
    return _document_and_tools(_served_document())[0]


@pytest.fixture
def tools(unvalidated_responses) -> dict[str, ToolSpec]:
    return _document_and_tools(_served_document())[1]


def _operations(document) -> dict[str, tuple[str, str, dict[str, Any]]]:
    return {operation["operationId"]: (method, path, operation)
            for path, item in document["paths"].items()
            for method, operation in item.items() if method in ("get", "post")}


def _listing(tools: dict[str, ToolSpec]) -> bytes:
    """tools/list's result as the SDK writes it (compact JSON, aliases, no nulls)."""
    from mcp_types import ListToolsResult

    result = ListToolsResult(tools=[spec.tool() for spec in tools.values()])
    return result.model_dump_json(by_alias=True, exclude_none=True).encode()


# -- the catalog ------------------------------------------------------------------------------
@pytest.mark.slow("builds every tool's SDK model to measure tools/list")
def test_a_curated_set_within_the_token_budget(tools):
    assert 25 <= len(tools) <= 40
    listing = _listing(tools)
    assert len(listing) <= TOOLS_LIST_MAX_BYTES, len(listing)
    for spec in tools.values():
        # One or two sentences: what it answers, units, defaults.
        assert 40 <= len(spec.description) <= 500, spec.name
        assert spec.description.count(". ") <= 3, spec.name


def test_every_v2_capability_has_a_tool(document, tools):
    """Every v2 operation that answers JSON is some tool's route, but the probes, the
    batch twins of per-symbol operations, the transcript list and the lookups a tool
    makes itself (a symbol's CIK, its quote type) — each named here, on purpose."""
    routed = {route.operation for spec in tools.values() for route in spec.declared.routes}
    not_tools = {
        "get_ping",  # a liveness probe of one process
        "get_quote_v2",  # get_quote takes a list of symbols: /v2/quotes
        "get_charts_batch", "get_indicators_batch", "get_options_batch",
        "get_dividends_batch", "get_splits_batch", "get_capital_gains_batch",
        "get_financials_batch", "get_recommendations_batch",  # per-symbol tools
        "get_filings_cik", "get_quote_type_v2",  # in the filings' and quotes' answers
        "get_v2_transcripts_all", "get_v2_earnings_transcript",  # get_transcript
        "get_currencies", "get_exchanges",  # resources an agent reads without a call
    }
    v2 = {oid for oid, (_, path, operation) in _operations(document).items()
          if path.startswith("/v2/")
          and "application/json" in operation["responses"]["200"].get("content", {})}
    assert v2 - routed == not_tools
    assert not routed - v2  # no v1 operation


def test_the_readme_table_lists_every_tool_and_its_routes(tools):
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    rows = {line.split("|")[1].strip(" `"): line for line in readme.splitlines()
            if line.startswith("| `") and "/v2/" in line}
    for spec in tools.values():
        assert spec.name in rows, spec.name
        for operation in spec.operations.values():
            assert f"`{operation.method} {operation.path}`" in rows[spec.name], spec.name


def test_names_are_unique_and_valid_for_mcp(tools):
    from mcp.shared.tool_name_validation import validate_tool_name

    names = [spec.tool().name for spec in tools.values()]
    assert len(names) == len(set(names)) == len(catalog.TOOLS)
    for name in names:
        assert NAME.match(name), name
        result = validate_tool_name(name)
        assert result.is_valid and not result.warnings, (name, result.warnings)


def test_a_route_to_an_unknown_operation_is_an_error(document):
    broken = catalog.Declared("broken", "Broken", "Broken tool.", (),
                              (catalog.Route("no_such_operation"),), {}, {})
    with pytest.raises(ValueError, match="no_such_operation"):
        build_tools(document, catalog=(broken,))
    unknown_arg = catalog.Declared("broken", "Broken", "Broken tool.",
                                   (catalog.Arg("colour"),),
                                   (catalog.Route("get_chart"),), {}, {})
    with pytest.raises(ValueError, match="colour"):
        build_tools(document, catalog=(unknown_arg,))


def test_annotations_say_read_only_and_which_call_upstream(tools):
    for spec in tools.values():
        annotations = spec.tool().annotations
        assert annotations.read_only_hint is True and annotations.destructive_hint is False
        assert annotations.open_world_hint is (spec.name != "get_service_status")


# -- schemas --------------------------------------------------------------------------------
def _schemas(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, list):
        return [s for item in node for s in _schemas(item)]
    if not isinstance(node, dict):
        return []
    return [node] + [s for value in node.values() for s in _schemas(value)]


def test_input_schemas_are_compact_bounded_json_schemas(tools):
    for spec in tools.values():
        schema = spec.input_schema
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert set(schema.get("required", ())) <= set(schema["properties"]), spec.name
        text = json.dumps(schema)
        assert "$ref" not in text and "$defs" not in text, spec.name
        assert "examples" not in text and "* `" not in text, spec.name
        for node in _schemas(schema["properties"]):
            if node.get("type") == "string" and "enum" not in node:
                assert node.get("maxLength"), (spec.name, node)
            if node.get("type") == "array":
                assert node.get("maxItems"), (spec.name, node)
            assert len(node.get("pattern", "")) <= 100, spec.name
        assert spec.tool().output_schema is None  # measured: see apps/mcp/tools.py


def test_argument_schemas_are_the_documents(document, tools):
    """Types, enums and bounds come from the endpoint's parameter: a tool accepts what
    the endpoint accepts."""
    _, _, chart = _operations(document)["get_chart"]
    interval = next(p for p in chart["parameters"] if p["name"] == "interval")["schema"]
    schema = tools["get_chart"].input_schema["properties"]
    assert schema["interval"]["enum"] == interval["enum"]
    assert schema["limit"]["maximum"] == 1000 and schema["limit"]["default"] == 100
    assert schema["symbol"]["maxLength"] == 24
    assert "format" not in schema  # a tool always answers JSON


# -- arguments -> the endpoint's request ------------------------------------------------------
def test_every_example_and_worst_case_reaches_a_route_of_its_tool(tools):
    from django.urls import resolve

    for spec in tools.values():
        for arguments in (spec.declared.example, spec.declared.worst):
            request = spec.request(arguments)
            operation = spec.operations[spec.route(arguments).operation]
            assert request.method == operation.method
            match = resolve(request.path)
            route = "/" + match.route.replace("<", "{").replace(">", "}")
            route = re.sub(r"\{\w+:(\w+)\}", r"{\1}", route)
            assert route == operation.path, (spec.name, request.path, route)


def _query(request: ApiRequest) -> dict[str, str]:
    return dict(parse_qsl(request.query_string.decode()))


def test_the_default_quote_fields_are_quote_members():
    """The quote tools' default selections name GqlQuote members (the record declares them;
    an unknown name would be silently ignored by `fields`)."""
    members = set(member_names(GqlQuote))
    assert set(catalog.QUOTE_FIELDS.split(",")) <= members
    assert set(catalog.LIST_QUOTE_FIELDS.split(",")) <= members


def test_defaults_keep_answers_small_and_the_agent_can_ask_for_more(tools):
    request = tools["get_quote"].request({"symbols": ["AAPL", "MSFT"]})
    assert request.path == "/v2/quotes"
    assert _query(request) == {"symbols": "AAPL,MSFT", "fields": catalog.QUOTE_FIELDS}
    assert _query(tools["get_quote"].request({"symbols": ["AAPL"], "fields": "*"})) == {
        "symbols": "AAPL", "fields": "*"}
    chart = _query(tools["get_chart"].request({"symbol": "AAPL", "range": "5y"}))
    assert chart == {"range": "5y", "limit": "100", "order": "desc"}
    series = _query(tools["get_macro_series"].request({"id": "DGS10"}))
    assert series == {"limit": "25", "order": "desc"}
    assert _query(tools["get_macro_series"].request(
        {"id": "DGS10", "limit": 5, "order": "asc", "cursor": "MA"})) == {
        "limit": "5", "order": "asc", "cursor": "MA"}


def test_routes_are_chosen_by_the_arguments(tools):
    news = tools["get_news"]
    assert news.request({"symbol": "AAPL", "limit": 3}).path == "/v2/news/AAPL"
    assert _query(news.request({"symbol": "AAPL", "limit": 3})) == {"count": "3"}
    assert news.request({"topic": "crypto"}).path == "/v2/crypto/news"
    assert news.request({}).path == "/v2/news"
    ratings = tools["get_analyst_ratings"]
    assert ratings.request({"symbol": "AAPL"}).path == "/v2/recommendations/AAPL"
    graded = ratings.request({"symbol": "AAPL", "view": "grading_actions"})
    assert graded.path == "/v2/grading-actions/AAPL" and _query(graded) == {"limit": "25"}
    search = tools["search"]
    assert search.request({"query": "apple"}).path == "/v2/search"
    assert _query(search.request({"query": "apple", "type": "etf", "limit": 5})) == {
        "q": "apple", "type": "etf", "count": "5"}
    assert tools["get_sector"].request({"industry": "semiconductors"}).path == \
        "/v2/industries/semiconductors"


def test_path_values_are_encoded_as_a_client_would(tools):
    request = tools["get_index_constituents"].request({"symbol": "^GSPC"})
    assert request.path == "/v2/index-constituents/^GSPC"
    assert request.raw_path == b"/v2/index-constituents/%5EGSPC"
    request = tools["get_chart"].request({"symbol": "A/B"})
    assert request.raw_path == b"/v2/chart/A%2FB"  # the API's 404, as over HTTP
    request = tools["get_forex"].request({"from": "{to}", "to": "USD"})
    assert request.path == "/v2/forex/{to}/USD"


def test_a_body_goes_beside_the_parameters(tools):
    spec = tools["run_backtest"]
    assert "strategy" in spec.input_schema["required"]
    request = spec.request({"symbol": "AAPL", "strategy": "sma_crossover", "range": "2y",
                            "params": {"fastPeriod": 5}, "fields": "symbol,metrics"})
    assert (request.method, request.path) == ("POST", "/v2/backtest/AAPL")
    assert json.loads(request.body) == {"strategy": "sma_crossover", "range": "2y",
                                        "params": {"fastPeriod": 5}, "equityLimit": 25,
                                        "tradesLimit": 25}
    # `fields`, a query parameter and a body member alike, goes in the query.
    assert _query(request) == {"fields": "symbol,metrics"}
    custom = tools["run_custom_screener"].request({"size": 5, "filters": []})
    assert json.loads(custom.body) == {"size": 5, "filters": []}


def _refused(spec: ToolSpec, arguments: Any) -> dict[str, str]:
    with pytest.raises(ArgumentsRefused) as caught:
        spec.request(arguments)
    return {name: message for name, message in caught.value.errors}


@pytest.mark.parametrize(("arguments", "argument", "message"), [
    ({"symbols": 123}, "symbols", "expected array, got 123"),
    ({"symbols": [123]}, "symbols[0]", "expected string, got 123"),
    ({"symbols": [True]}, "symbols[0]", "expected string, got true"),
    ({"symbols": ["A" * 1_000_000]}, "symbols[0]", "1000000 characters; at most 24"),
    ({"symbols": [f"S{n}" for n in range(51)]}, "symbols", "51 items; at most 50"),
    ({"symbols": []}, "symbols", "0 items; at least 1"),
    ({}, "symbols", "required"),
    ({"symbols": ["AAPL"], "fields": ["symbol"]}, "fields", 'expected string, got ["symbol"]'),
    ({"symbols": ["AAPL"], "colour": "blue"}, "", "unknown argument: colour"),
])
def test_types_are_checked_not_coerced(tools, arguments, argument, message):
    assert _refused(tools["get_quote"], arguments) == {argument: message}


def test_numbers_and_choices_are_checked(tools):
    chart = tools["get_chart"]
    assert _refused(chart, {"symbol": "AAPL", "limit": "5"}) == {
        "limit": 'expected integer, got "5"'}
    assert _refused(chart, {"symbol": "AAPL", "limit": 1.5}) == {
        "limit": "expected integer, got 1.5"}
    assert _refused(chart, {"symbol": "AAPL", "limit": True}) == {
        "limit": "expected integer, got true"}
    assert _refused(chart, {"symbol": "AAPL", "limit": 1001}) == {"limit": "1001; at most 1000"}
    assert "is not one of" in _refused(chart, {"symbol": "AAPL", "interval": "7d"})["interval"]
    assert _query(chart.request({"symbol": "AAPL", "limit": 2.0})) == {
        "limit": "2", "order": "desc"}


def test_arguments_of_another_route_and_missing_path_values_are_refused(tools):
    assert _refused(tools["search"], {"query": "a", "type": "etf", "news": 3}) == {
        "news": "does not apply with these arguments (type given)"}
    assert _refused(tools["get_sector"], {}) == {"sector": "required"}


def test_what_is_echoed_is_bounded(tools):
    with pytest.raises(ArgumentsRefused) as caught:
        tools["get_quote"].request({"symbols": ["AAPL"], "x" * 100_000: 1})
    assert len(str(caught.value)) < 200


def test_a_url_over_the_http_limit_is_refused(document):
    spec = build_tools(document, url_max_bytes=100)["get_quote"]
    with pytest.raises(ArgumentsRefused, match="over the 100-byte limit"):
        spec.request({"symbols": [f"SYM{n}" for n in range(30)]})


# -- answers -> results ---------------------------------------------------------------------
def _answer(status: int, body: Any, **headers: str) -> Answer:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Answer(status, [(k.replace("_", "-").encode(), v.encode())
                           for k, v in headers.items()], raw)


def test_a_success_is_text_and_structured_content(tools):
    spec = tools["get_index_constituents"]
    request = spec.request({"symbol": "^DJI"})
    result = tool_result(spec, request, _answer(200, [{"symbol": "AAPL"}], x_cache="HIT",
                                                x_data_source="sandbox"))
    assert not result.is_error
    assert result.structured_content == {"result": [{"symbol": "AAPL"}]}
    assert json.loads(result.content[0].text) == result.structured_content
    assert result.meta["marketdata/http"] == {
        "status": 200, "headers": {"x-cache": "HIT", "x-data-source": "sandbox"}}


def test_connections_lose_their_edges():
    page = {"edges": [{"cursor": "MA", "node": {"v": 1}}], "nodes": [{"v": 1}],
            "pageInfo": {"endCursor": "MA", "hasNextPage": True}}
    assert without_edges({"symbol": "X", "observations": page, "edges": 1}) == {
        "symbol": "X", "observations": {"nodes": [{"v": 1}], "pageInfo": page["pageInfo"]},
        "edges": 1}
    assert without_edges([page]) == [{"nodes": [{"v": 1}], "pageInfo": page["pageInfo"]}]


def test_an_answer_over_the_budget_is_a_tool_error_saying_how_to_ask_for_less(tools):
    spec = tools["get_chart"]
    request = spec.request({"symbol": "AAPL"})
    big = {"candles": [{"close": 1.0, "note": "x" * 100}] * (RESULT_MAX_BYTES // 100)}
    result = tool_result(spec, request, _answer(200, big))
    assert result.is_error and result.structured_content["status"] == 413
    assert "Ask for less" in result.structured_content["error"]
    assert len(result.content[0].text) < 1000
    assert result.meta["marketdata/http"]["status"] == 413


def test_a_failure_is_a_tool_error_with_the_body(tools):
    spec = tools["get_chart"]
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
def test_a_tool_call_through_the_router(settings, unvalidated_responses):
    settings.MARKETDATA_UPSTREAM = "sandbox"
    status, headers, answer = post_mcp({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                         "params": {"name": "get_quote", "arguments": {
                                             "symbols": ["AAPL"], "fields": "symbol"}}})
    assert status == 200 and headers[b"x-data-source"] == b"sandbox"
    result = answer["result"]
    assert result["isError"] is False
    assert result["structuredContent"]["quotes"] == [{"symbol": "AAPL"}]
    assert result["_meta"]["marketdata/http"]["status"] == 200
    # A second loop (another asyncio.run) gets a session manager of its own.
    status, _, answer = post_mcp({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert status == 200 and len(answer["result"]["tools"]) == len(catalog.TOOLS)


# Tools whose sandbox answer is an error by design: what the error is.
EXPECTED_ERRORS = {"get_congressional_trades": 501}  # needs FMP_API_KEY


@pytest.mark.slow("every tool's example and worst case through the router on the sandbox")
@pytest.mark.parametrize("declared", catalog.TOOLS, ids=lambda d: d.name)
def test_every_tool_answers_its_example_and_worst_case_within_the_budget(
        settings, unvalidated_responses, declared):
    """The budget (RESULT_MAX_BYTES of text, ~25,000 tokens) holds by default for the
    largest input an agent realistically asks (10 years of daily bars, 50 quotes, a FRED
    series since 1962, a 10-year backtest, 250 coins): checked on the sandbox's data, whose
    shapes and sizes are the providers'; the guard in tool_result holds it for any other."""
    settings.MARKETDATA_UPSTREAM = "sandbox"
    for n, arguments in enumerate((declared.example, declared.worst)):
        status, _, answer = post_mcp({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                       "params": {"name": declared.name,
                                                  "arguments": arguments}})
        assert status == 200 and "result" in answer, answer
        result = answer["result"]
        text = result["content"][0]["text"]
        http_status = result["_meta"]["marketdata/http"]["status"]
        assert len(text.encode()) <= RESULT_MAX_BYTES
        if declared.name in EXPECTED_ERRORS:
            assert http_status == EXPECTED_ERRORS[declared.name] and result["isError"]
            continue
        assert http_status == 200 and not result["isError"], (arguments, text[:300])
        assert json.loads(text) == result["structuredContent"]
        assert '"edges"' not in text


def test_mcp_off_leaves_the_path_to_django(settings, unvalidated_responses):
    settings.MCP_ENABLED = False
    status, _, answer = post_mcp({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert status == 404 and "detail" in answer


# -- the endpoint around the SDK: body limits, rate limit, compression, CORS (apps.mcp.wire) --
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "get_quote", "arguments": {"symbols": ["AAPL"], "fields": "symbol"}}}
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
    assert endpoint.api.calls == ["/openapi.json", "/v2/quotes"]


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
    assert endpoint.api.calls == ["/openapi.json", "/v2/quotes"]


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
    assert len(plain.body) > 20_000
    assert gzipped.headers["content-encoding"] == "gzip"
    assert brotlied.headers["content-encoding"] == "br"
    assert len(brotlied.body) < len(gzipped.body) < len(plain.body) // 3
    for answer in (plain, gzipped, brotlied, gzipped_again, refused):
        assert json.loads(_decoded(answer)) == plain.json()
        assert "accept-encoding" in answer.vary
    assert "content-encoding" not in refused.headers  # identity ranked higher
    # The tool list (under LARGE_BODY now) is compressed on the loop, per answer.
    big = [coding for size, coding in compressions if size == len(plain.body)]
    assert sorted(big) == ["br", "gzip", "gzip"]
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
