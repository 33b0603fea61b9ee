"""The MCP endpoint (/mcp) through the real service process (bin/serve) over loopback,
driven by the official SDK's own client over Streamable HTTP, with the sandbox as a
separate HTTP server standing in for every provider (UPSTREAM_HOST_MAP), so a fault can be
injected for one upstream path.

Tool calls must answer what the HTTP API answers for the same request: the same JSON, the
same error bodies (a bad argument, an upstream failure naming its provider), the same rate
limits (the client counted by X-Forwarded-For as TRUSTED_PROXIES allows, the admin key in
X-API-Key exempt). Each test counts against a client address of its own.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import uuid
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlencode

import pytest

from apps.mcp.catalog import QUOTE_FIELDS
from tests.integration.servers import http

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("the official MCP client through a service process")]

V1_QUOTA = 5
# Every /mcp message but a tool call takes a token too: a session's handshake and its first
# tools/list (the SDK's client lists the tools to check results) take three.
V2_CAPACITY = 10
ADMIN_KEY = uuid.uuid4().hex
_addresses = (f"198.18.{n // 250}.{n % 250 + 1}" for n in itertools.count())


@pytest.fixture(scope="module")
def stack(server_pool):
    env = {"USE_SECURITY": "true", "APP_RATE_LIMIT_PER_DAY": str(V1_QUOTA),
           "V2_RATE_LIMIT_SCOPE": "ip", "V2_RATE_LIMIT_CAPACITY": str(V2_CAPACITY),
           "V2_RATE_LIMIT_REFILL_PER_SECOND": "0.01", "TRUSTED_PROXIES": "127.0.0.1",
           "ADMIN_API_KEY": ADMIN_KEY, "ALLOWED_HOSTS": "127.0.0.1,localhost",
           "CORS_ALLOWED_ORIGINS": "http://allowed.example",
           "REQUEST_BODY_TIMEOUT_SECONDS": "1", "REQUEST_BODY_MAX_BYTES": "65536"}
    return server_pool.stack(env)


@pytest.fixture
def address() -> str:
    """A client address of the test's own (its quota and bucket start full)."""
    return next(_addresses)


@asynccontextmanager
async def connect(service, address: str, mode: str = "legacy", **headers: str):
    """The SDK's client on /mcp, as the client at ``address`` behind the trusted proxy."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers={"X-Forwarded-For": address, **headers},
                                  timeout=httpx2.Timeout(30, read=120)) as http_client:
        transport = streamable_http_client(f"{service.base_url}/mcp", http_client=http_client)
        async with Client(transport, mode=mode) as client:
            yield client


def call(service, address: str, name: str, arguments: dict[str, Any], mode: str = "legacy",
         **headers: str):
    return calls(service, address, [(name, arguments)], mode, **headers)[0]


def calls(service, address: str, wanted: list[tuple[str, dict[str, Any]]],
          mode: str = "legacy", **headers: str) -> list[Any]:
    """Several tool calls in one session (one handshake). The tools are listed first, as
    the client would after the first call (it checks results against the output schemas):
    a session's messages are then the same, in the same order, whatever the calls."""
    async def run():
        async with connect(service, address, mode, **headers) as client:
            await client.list_tools()
            return [await client.call_tool(name, arguments) for name, arguments in wanted]

    return asyncio.run(run())


def api(service, address: str, method: str, path: str, body: Any = None,
        **headers: str) -> tuple[int, Any]:
    status, answer_headers, raw = http(method, f"{service.base_url}{path}", body, timeout=60,
                                       headers={"X-Forwarded-For": address,
                                                "Accept": "application/json", **headers})
    assert "json" in answer_headers.get("Content-Type", ""), (path, answer_headers)
    return status, json.loads(raw)


def _yahoo_calls(sandbox) -> int:
    status, _, raw = http("GET", f"{sandbox.base_url}/__sandbox__/requests?provider=yahoo")
    assert status == 200
    return json.loads(raw)["count"]


# -- the handshake and the tool list ----------------------------------------------------------
def test_initialize_and_list_the_curated_tools_within_budget(stack, address):
    from apps.mcp.catalog import TOOLS

    service, _ = stack

    async def run():
        async with connect(service, address) as client:
            listed = await client.list_tools()
            return client.protocol_version, client.server_info, client.server_capabilities, \
                listed

    version, info, capabilities, listed = asyncio.run(run())
    assert version == "2025-11-25"  # the initialize handshake
    assert info.name == "marketdata" and capabilities.tools is not None
    assert [tool.name for tool in listed.tools] == [d.name for d in TOOLS]
    assert listed.next_cursor is None  # one page: the whole list is within budget
    size = len(listed.model_dump_json(by_alias=True, exclude_none=True))
    assert size <= 60_000, size
    backtest = next(tool for tool in listed.tools if tool.name == "run_backtest")
    assert backtest.input_schema["required"] == ["symbol", "strategy"]
    assert backtest.output_schema is None
    assert backtest.annotations.read_only_hint is True


def test_the_2026_protocol_without_a_handshake(stack, address):
    service, _ = stack

    async def run():
        async with connect(service, address, mode="auto") as client:
            return client.protocol_version, await client.call_tool(
                "get_quote", {"symbols": ["AAPL"], "fields": "symbol"})

    version, result = asyncio.run(run())
    assert version == "2026-07-28"
    assert not result.is_error
    assert result.structured_content["quotes"] == [{"symbol": "AAPL"}]


# -- tool calls answer what the API answers -------------------------------------------------
CASES = {
    "quotes, curated fields": (
        "get_quote", {"symbols": ["AAPL", "MSFT"]}, "GET",
        "/v2/quotes?" + urlencode({"symbols": "AAPL,MSFT", "fields": QUOTE_FIELDS}), None),
    "chart, newest first": (
        "get_chart", {"symbol": "MSFT", "range": "1mo"}, "GET",
        "/v2/chart/MSFT?range=1mo&limit=100&order=desc", None),
    "list with fields": (
        "get_screener", {"screener": "day-gainers", "count": 5,
                         "fields": "symbol,regularMarketChangePercent"},
        "GET", "/v2/screeners/day-gainers?" + urlencode(
            {"count": 5, "fields": "symbol,regularMarketChangePercent", "limit": 25}), None),
    "path with symbol": ("get_index_constituents", {"symbol": "^DJI", "fields": "symbol"},
                         "GET", "/v2/index-constituents/%5EDJI?fields=symbol", None),
    "backtest": ("run_backtest", {"symbol": "AAPL", "strategy": "sma_crossover",
                                  "range": "2y", "equityLimit": 5, "tradesLimit": 3,
                                  "params": {"fastPeriod": 5, "slowPeriod": 15}},
                 "POST", "/v2/backtest/AAPL",
                 {"strategy": "sma_crossover", "range": "2y", "equityLimit": 5,
                  "tradesLimit": 3, "params": {"fastPeriod": 5, "slowPeriod": 15}}),
}


def _without_edges(data: Any) -> Any:
    if isinstance(data, list):
        return [_without_edges(item) for item in data]
    if not isinstance(data, dict):
        return data
    connection = {"edges", "nodes", "pageInfo"} <= set(data)
    return {k: _without_edges(v) for k, v in data.items() if not (connection and k == "edges")}


@pytest.mark.parametrize("case", list(CASES))
def test_structured_content_is_the_apis_json(stack, address, case):
    service, _ = stack
    name, arguments, method, path, body = CASES[case]
    result = call(service, address, name, arguments)
    assert not result.is_error, result.structured_content
    status, expected = api(service, address, method, path, body)
    assert status == 200, expected
    expected = _without_edges(expected)
    if not isinstance(expected, dict):
        expected = {"result": expected}
    assert result.structured_content == expected
    assert json.loads(result.content[0].text) == expected
    http_meta = result.meta["marketdata/http"]
    assert http_meta["status"] == 200
    assert http_meta["headers"]["x-data-source"] == "live"  # the sandbox behind a host map


# -- errors ---------------------------------------------------------------------------------
def test_a_bad_value_is_a_tool_error_with_the_endpoints_body(stack, address):
    service, sandbox = stack
    before = _yahoo_calls(sandbox)
    result = call(service, address, "get_chart", {"symbol": "AAPL", "range": "max",
                                                  "interval": "1d"})
    status, body = api(service, address, "GET",
                       "/v2/chart/AAPL?range=max&interval=1d&limit=100&order=desc")
    assert status == 400, body
    assert result.is_error and result.structured_content == body
    assert result.meta["marketdata/http"]["status"] == 400
    assert _yahoo_calls(sandbox) == before  # refused before any upstream call


@pytest.mark.parametrize(("arguments", "named"), [
    ({"symbols": 123}, "symbols"),
    ({"symbols": [True]}, "symbols[0]"),
    ({"symbols": ["A" * 50_000]}, "symbols[0]"),  # a larger body is a 413 (REQUEST_BODY_MAX_BYTES)
    ({"symbols": ["AAPL"], "colour": "blue"}, "colour"),
])
def test_wrong_types_and_oversized_strings_are_json_rpc_errors(stack, address, arguments,
                                                               named):
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    service, sandbox = stack
    before = _yahoo_calls(sandbox)
    with pytest.raises((MCPError, BaseExceptionGroup)) as caught:
        call(service, address, "get_quote", arguments)
    error = caught.value
    while isinstance(error, BaseExceptionGroup):  # the client's task group wraps it
        error = error.exceptions[0]
    assert isinstance(error, MCPError) and error.code == INVALID_PARAMS
    assert named in error.message and len(error.message) < 300
    assert _yahoo_calls(sandbox) == before
    log = service.log()
    assert "A" * 1000 not in log  # never written to the access log


def test_an_upstream_failure_is_a_tool_error_naming_the_provider(stack, address):
    service, sandbox = stack
    status, _, raw = http("POST", f"{sandbox.base_url}/__sandbox__/config", {
        "faults": [{"path_prefix": "/v1/finance/sectors/", "fail_rate": 1.0}]})
    assert status == 200, raw
    try:
        result = call(service, address, "get_sector", {"sector": "energy"})
    finally:
        http("POST", f"{sandbox.base_url}/__sandbox__/config", {"faults": []})
    assert result.is_error
    body = result.structured_content
    assert body["provider"] == "yahoo" and body["status"] in (502, 503, 504), body
    assert result.meta["marketdata/http"]["status"] == body["status"]
    assert json.loads(result.content[0].text) == body


def _remaining(value: str) -> int:
    """``r`` of a ``RateLimit`` header."""
    return int(value.split(";r=", 1)[1].split(";", 1)[0])


def test_rate_limits_are_the_apis(stack, address):
    service, _ = stack
    # The admin key (X-API-Key on the MCP request) is exempt, as over HTTP.
    admin = calls(service, address, [("get_quote", {"symbols": ["AAPL"]})] * (V2_CAPACITY + 2),
                  **{"X-API-Key": ADMIN_KEY})
    assert not any(result.is_error for result in admin)
    # v2: the token bucket of this client, which the two sessions' handshakes and tool
    # lists have drawn on too; each tool call takes exactly one token (its HTTP request's,
    # not one more for its MCP message); the 429 says when to retry.
    results = calls(service, address, [("get_quote", {"symbols": ["MSFT"], "fields": "symbol"})]
                    * V2_CAPACITY)
    passed = [r for r in results if not r.is_error]
    left = [_remaining(r.meta["marketdata/http"]["headers"]["ratelimit"]) for r in passed]
    assert 0 < len(passed) <= V2_CAPACITY - 3
    assert left == list(range(len(passed) - 1, -1, -1))
    refused = results[len(passed)]
    assert refused.is_error and refused.meta["marketdata/http"]["status"] == 429
    assert refused.structured_content["error"] == "Rate limit exceeded"
    assert refused.structured_content["retryAfterSeconds"] > 0
    assert int(refused.meta["marketdata/http"]["headers"]["retry-after"]) > 0
    # Another client is not limited by this one's count.
    other = call(service, next(_addresses), "get_quote", {"symbols": ["MSFT"]})
    assert not other.is_error


# -- the endpoint itself --------------------------------------------------------------------
def _initialize() -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}


def test_host_and_origin_as_the_api_allows(stack):
    service, _ = stack
    url = f"{service.base_url}/mcp"
    accept = {"Accept": "application/json, text/event-stream"}
    status, headers, raw = http("POST", url, _initialize(), headers=accept)
    assert status == 200, raw
    assert json.loads(raw)["result"]["serverInfo"]["name"] == "marketdata"
    assert headers["X-Data-Source"] == "live" and headers["X-Correlation-ID"]
    status, _, raw = http("POST", url, _initialize(),
                          headers={**accept, "Host": "rebound.attacker.test"})
    assert status == 400 and json.loads(raw) == {"detail": "Invalid Host header"}
    status, _, raw = http("POST", url, _initialize(),
                          headers={**accept, "Origin": "http://attacker.test"})
    assert status == 403 and "attacker.test" in json.loads(raw)["detail"]
    status, _, raw = http("POST", url, _initialize(),
                          headers={**accept, "Origin": "http://allowed.example"})
    assert status == 200, raw


def test_no_event_stream_and_no_session(stack):
    service, _ = stack
    url = f"{service.base_url}/mcp"
    status, headers, _ = http("GET", url, headers={"Accept": "text/event-stream"})
    assert status == 405 and headers["Allow"] == "POST"
    status, headers, _ = http("POST", url, _initialize(),
                                headers={"Accept": "application/json, text/event-stream"})
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    assert "Mcp-Session-Id" not in headers  # stateless: any process can answer the next


# -- the endpoint's front: body limits, the bucket, compression, CORS (apps.mcp.wire) --------
MCP_HEADERS = {"Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25"}
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def post(service, address: str, message: Any, **headers: str):
    """One JSON-RPC message POSTed to /mcp as the client at ``address``; the answer as sent
    (urllib decompresses nothing)."""
    return http("POST", f"{service.base_url}/mcp", message, timeout=60,
                headers={**MCP_HEADERS, "X-Forwarded-For": address, **headers})


def exchange(service, payload: bytes, wait: float = 10.0) -> tuple[int, dict[str, str], Any,
                                                                  float]:
    """``payload`` on a fresh connection, read until the server closes it: (status, headers,
    JSON body, seconds)."""
    import socket
    import time

    port = int(service.base_url.rsplit(":", 1)[1])
    started = time.monotonic()
    received = b""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(payload)
        while chunk := sock.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip()
               for name, _, value in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, json.loads(body), time.monotonic() - started


def test_a_body_too_large_is_a_413_and_one_that_stalls_a_408(stack):
    service, _ = stack
    head = (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\n")
    # Over REQUEST_BODY_MAX_BYTES (65536): refused at once, before a byte of it is read.
    status, headers, body, _ = exchange(service, head + b"Content-Length: 100000\r\n\r\n{")
    assert status == 413 and headers["connection"] == "close"
    assert body == {"detail": "Request body too large: 100000 bytes, at most 65536 are "
                              "accepted"}
    assert headers["x-correlation-id"] and headers["x-data-source"] == "live"
    # Not all there within REQUEST_BODY_TIMEOUT_SECONDS (1 s) of arrival.
    status, headers, body, seconds = exchange(
        service, head + b'Content-Length: 1000\r\n\r\n{"jsonrpc": "2.0"')
    assert status == 408 and headers["connection"] == "close"
    assert body == {"detail": "Request body not received within 1 s"}
    assert 0.8 < seconds < 5


def test_tools_list_spam_is_refused_but_tool_calls_are_not(stack, address):
    service, _ = stack
    answers = [post(service, address, LIST) for _ in range(V2_CAPACITY + 1)]
    assert [status for status, _, _ in answers] == [200] * V2_CAPACITY + [429]
    assert [_remaining(headers["RateLimit"]) for _, headers, _ in answers] == \
        [*range(V2_CAPACITY - 1, -1, -1), 0]
    _, headers, raw = answers[-1]
    body = json.loads(raw)
    assert body["error"] == "Rate limit exceeded" and body["retryAfterSeconds"] > 0
    assert int(headers["Retry-After"]) == body["retryAfterSeconds"]
    assert headers["RateLimit-Policy"] == f'"bucket";q={V2_CAPACITY};w=1000'
    assert headers["Content-Type"] == "application/json" and headers["X-Correlation-ID"]
    # A tool call still reaches the SDK; its HTTP request is what the API refuses.
    status, headers, raw = post(service, address, {
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "get_quote", "arguments": {"symbols": ["AAPL"]}}})
    assert status == 200 and "RateLimit" not in headers
    result = json.loads(raw)["result"]
    assert result["isError"] is True and result["structuredContent"]["error"] == \
        "Rate limit exceeded"
    assert result["_meta"]["marketdata/http"]["status"] == 429


def test_the_tool_list_compressed_is_the_same_json(stack, address):
    import gzip

    import brotli

    service, _ = stack
    status, headers, plain = post(service, address, LIST)
    assert status == 200 and "Content-Encoding" not in headers
    assert "Accept-Encoding" in headers["Vary"]
    sizes = {"identity": len(plain)}
    for coding, decode in (("gzip", gzip.decompress), ("br", brotli.decompress)):
        status, headers, raw = post(service, address, LIST, **{"Accept-Encoding": coding})
        assert status == 200 and headers["Content-Encoding"] == coding
        assert int(headers["Content-Length"]) == len(raw)
        assert "Accept-Encoding" in headers["Vary"]
        assert json.loads(decode(raw)) == json.loads(plain)
        sizes[coding] = len(raw)
    assert sizes["br"] < sizes["gzip"] < sizes["identity"] // 5, sizes


def test_a_browser_page_gets_the_cors_answers(stack, address):
    service, _ = stack
    url = f"{service.base_url}/mcp"
    ask = {"Access-Control-Request-Method": "POST",
           "Access-Control-Request-Headers": "content-type,mcp-protocol-version"}
    status, headers, raw = http("OPTIONS", url,
                                headers={"Origin": "http://allowed.example", **ask})
    assert status == 200 and raw == b""
    assert headers["Access-Control-Allow-Origin"] == "http://allowed.example"
    assert headers["Access-Control-Allow-Methods"] == "POST"
    allowed = {h.strip() for h in headers["Access-Control-Allow-Headers"].split(",")}
    assert {"content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id",
            "x-api-key"} <= allowed
    assert "Origin" in headers["Vary"]  # the origins are restricted
    status, headers, _ = http("OPTIONS", url, headers={"Origin": "http://attacker.test", **ask})
    assert status == 403 and "Access-Control-Allow-Origin" not in headers
    status, headers, _ = post(service, address, _initialize(), Origin="http://allowed.example")
    assert status == 200
    assert headers["Access-Control-Allow-Origin"] == "http://allowed.example"
    exposed = {h.strip().lower() for h in headers["Access-Control-Expose-Headers"].split(",")}
    assert {"mcp-session-id", "retry-after", "ratelimit", "ratelimit-policy"} <= exposed
