"""The MCP server's resources and prompts (apps.mcp.resources, apps.mcp.prompts), and the
pieces of the stdio command that run in process (apps.mcp.stdio): the resources read
through the service's own HTTP router on the in-process sandbox, each compact JSON under
8 KB listing what the endpoints accept; a failed read an MCP error naming the provider;
prompts whose arguments are checked by the service's symbol rule."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
from typing import Any

import pytest

from apps.core.inprocess import ApiRequest, api_scope
from apps.mcp import prompts, resources
from apps.mcp.server import build_server
from apps.mcp.stdio import LOCAL_CLIENT, load_application, local_api, logs_to_stderr


def _client_run(api: Any, work: Any) -> Any:
    """``work(client)`` with the SDK's client connected in process to a server whose
    requests go to ``api``."""
    from mcp import Client

    async def run() -> Any:
        async with Client(build_server(api)) as client:
            return await work(client)

    return asyncio.run(run())


class FakeApi:
    """An HTTP application answering every request with ``status`` and ``body``; notes the
    scopes it gets."""

    def __init__(self, status: int = 200, body: Any = None,
                 headers: list[tuple[bytes, bytes]] | None = None) -> None:
        self.status, self.body, self.headers = status, body, headers or []
        self.scopes: list[dict[str, Any]] = []

    async def __call__(self, scope, receive, send) -> None:
        self.scopes.append(scope)
        await send({"type": "http.response.start", "status": self.status,
                    "headers": [(b"content-type", b"application/json"), *self.headers]})
        await send({"type": "http.response.body", "body": json.dumps(self.body).encode()})


# -- resources -------------------------------------------------------------------------------
def test_every_resource_is_compact_json_under_8_kb_read_through_the_router(
        sandbox_upstream, unvalidated_responses):
    async def work(client):
        listed = (await client.list_resources()).resources
        return listed, {r.uri: await client.read_resource(r.uri) for r in listed}

    listed, read = _client_run(load_application(), work)
    assert [r.uri for r in listed] == list(resources.RESOURCES)
    assert {r.uri for r in listed} == {f"marketdata://{name}" for name in (
        "screeners", "sectors", "exchanges", "currencies", "macro-series", "indices")}
    for resource in listed:
        assert resource.name and resource.title and resource.mime_type == "application/json"
        assert resource.description and "\n" not in resource.description
        (content,) = read[resource.uri].contents
        assert content.uri == resource.uri and content.mime_type == "application/json"
        data = json.loads(content.text)
        assert data, resource.uri
        assert len(content.text.encode()) < resources.MAX_BYTES, resource.uri
        assert content.text == json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    contents = {uri: json.loads(result.contents[0].text) for uri, result in read.items()}
    exchanges = contents["marketdata://exchanges"]["exchanges"]
    assert {"country", "market", "suffix"} == set(exchanges[0])
    assert any(row["suffix"] == ".L" for row in exchanges)
    currencies = contents["marketdata://currencies"]["currencies"]
    assert currencies["USD"] and currencies["EUR"]
    groups = contents["marketdata://indices"]["groups"]
    assert "^GSPC" in {row["symbol"] for row in groups["americas"]}
    assert set(groups) <= {"americas", "europe", "asia-pacific", "middle-east-africa",
                           "currencies", "other"}


def test_the_screeners_and_sectors_are_what_the_paths_accept(document):
    """Every name the resources list is in the path's enum of the served document, and
    every enum value is listed (a name or an alias)."""
    def enum(path: str, name: str) -> set[str]:
        (parameter,) = [p for p in document["paths"][path]["get"]["parameters"]
                        if p["name"] == name]
        return set(parameter["schema"]["enum"])

    screeners = asyncio.run(resources.screeners(FakeApi(), None))
    names = {n for s in screeners["screeners"] for n in (s["name"], *s.get("aliases", ()))}
    assert names == enum("/v2/screeners/{screener}", "screener")
    assert {s["quoteType"] for s in screeners["screeners"]} == {"EQUITY", "MUTUALFUND"}
    sectors = asyncio.run(resources.sectors(FakeApi(), None))
    names = {n for s in sectors["sectors"] for n in (s["key"], *s["aliases"])}
    assert names == enum("/v2/sectors/{sector}", "sector")
    industries = {slug for s in sectors["sectors"] for slug in s["industries"]}
    assert industries == enum("/v2/industries/{industry}", "industry")


@pytest.fixture
def document(unvalidated_responses) -> dict[str, Any]:
    from django.test import Client

    response = Client().get("/openapi.json")
    assert response.status_code == 200
    return json.loads(response.content)


def test_the_macro_series_are_valid_distinct_and_known_to_the_sandbox():
    from marketdata.records.macro import normalize_series_id
    from marketdata.sandbox.fred.series import is_known_series

    ids = [series[0] for series in resources.MACRO_SERIES]
    assert len(ids) == len(set(ids)) >= 10
    for id_, frequency, units, meaning in resources.MACRO_SERIES:
        assert normalize_series_id(id_) == id_ and is_known_series(id_), id_
        assert meaning and units and frequency in ("daily", "weekly", "monthly", "quarterly")
    assert set(prompts.MACRO_SNAPSHOT_SERIES) <= set(ids)


def test_a_macro_series_read_through_the_router_answers(sandbox_upstream,
                                                        unvalidated_responses):
    """One suggested series, read as an agent would (the newest observation)."""
    request = ApiRequest("GET", "/v2/macro/series/T10Y2Y", b"/v2/macro/series/T10Y2Y",
                         b"order=desc&limit=1")
    from apps.core.inprocess import call_api

    answer = asyncio.run(call_api(load_application(), request, None))
    assert answer.status == 200, answer.body
    assert json.loads(answer.body)["id"] == "T10Y2Y"


def test_a_failed_upstream_is_an_mcp_error_naming_the_provider(yahoo, unvalidated_responses):
    """Live mode, Yahoo's quote batch failing: /v2/indices answers its error body, and the
    read is an INTERNAL_ERROR that says so, with the body as data."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import INTERNAL_ERROR

    yahoo.quote(status=500, body={"finance": {"error": "down"}})
    with pytest.raises(MCPError) as raised:
        asyncio.run(resources.read(load_application(), "marketdata://indices", None))
    error = raised.value
    assert error.code == INTERNAL_ERROR
    assert "marketdata://indices" in error.message and "yahoo" in error.message.lower()
    assert "GET /v2/indices answered 5" in error.message
    assert error.data["status"] >= 500 and error.data["body"]["provider"] == "yahoo"


def test_a_refusal_carries_its_status_and_retry_after():
    from mcp.shared.exceptions import MCPError

    api = FakeApi(429, {"error": "Rate limit exceeded", "status": 429},
                  [(b"retry-after", b"7")])
    with pytest.raises(MCPError) as raised:
        asyncio.run(resources.read(api, "marketdata://currencies", None))
    assert "answered 429: Rate limit exceeded" in raised.value.message
    assert raised.value.data == {"uri": "marketdata://currencies", "status": 429,
                                 "body": {"error": "Rate limit exceeded", "status": 429},
                                 "retryAfter": "7"}


def test_an_unknown_resource_is_invalid_params():
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    with pytest.raises(MCPError) as raised:
        asyncio.run(resources.read(FakeApi(), "marketdata://nothing", None))
    assert raised.value.code == INVALID_PARAMS and "marketdata://nothing" in raised.value.message


def test_a_read_carries_the_mcp_request_scope():
    """Over /mcp, the read's request carries the MCP request's client and headers (its
    rate limit is the caller's), as a tool call's does."""
    api = FakeApi(200, [{"symbol": "USD", "longName": "US Dollar"}])
    outer = {"client": ("203.0.113.9", 5000), "server": ("api.example", 443),
             "headers": [(b"host", b"api.example"), (b"x-api-key", b"k"),
                         (b"cookie", b"session=1")]}
    result = asyncio.run(resources.read(api, "marketdata://currencies", outer))
    assert json.loads(result.contents[0].text) == {"currencies": {"USD": "US Dollar"}}
    (scope,) = api.scopes
    assert scope["path"] == "/v2/currencies"
    assert scope["query_string"] == b"fields=symbol%2ClongName"
    assert scope["client"] == ("203.0.113.9", 5000)
    headers = dict(scope["headers"])
    assert headers[b"x-api-key"] == b"k" and b"cookie" not in headers


# -- prompts ---------------------------------------------------------------------------------
def _prompt(name: str, arguments: dict[str, str] | None = None):
    return prompts.get(name, arguments)


def test_the_prompts_are_listed_with_their_arguments():
    async def work(client):
        return (await client.list_prompts()).prompts

    listed = _client_run(FakeApi(), work)
    assert {p.name: [a.name for a in p.arguments or ()] for p in listed} == {
        "analyse_stock": ["symbol"], "compare_symbols": ["symbols"], "macro_snapshot": []}
    for prompt in listed:
        assert prompt.title and prompt.description
        assert all(a.required and a.description for a in prompt.arguments or ())


def test_each_prompt_is_one_user_message_naming_the_catalog_tools():
    results = [_prompt("analyse_stock", {"symbol": " brk-b "}),
               _prompt("compare_symbols", {"symbols": "aapl, MSFT ,googl"}),
               _prompt("macro_snapshot", {})]
    for result in results:
        (message,) = result.messages
        assert message.role == "user" and result.description
        named = set(re.findall(r"\bget_[a-z_]+\b", message.content.text))
        assert named and named <= set(prompts.TOOLS), named - set(prompts.TOOLS)
        assert "sandbox" in message.content.text
    assert "BRK-B" in results[0].messages[0].content.text
    assert "AAPL, MSFT, GOOGL" in results[1].messages[0].content.text
    text = results[2].messages[0].content.text
    assert all(series in text for series in prompts.MACRO_SNAPSHOT_SERIES)
    assert "marketdata://macro-series" in text


@pytest.mark.parametrize(("name", "arguments", "says"), [
    ("analyse_stock", {"symbol": "AA/PL"}, "Invalid symbol in 'symbol': 'AA/PL'"),
    ("analyse_stock", {"symbol": "A..B"}, "Invalid symbol"),
    ("analyse_stock", {"symbol": "ſpy"}, "Invalid symbol"),  # the long s: never SPY
    ("analyse_stock", {"symbol": "X" * 25}, "Invalid symbol"),
    ("analyse_stock", {"symbol": "  "}, "Missing argument(s) for analyse_stock: symbol"),
    ("analyse_stock", {}, "Missing argument(s) for analyse_stock: symbol"),
    ("analyse_stock", {"symbol": "AAPL", "period": "1y"}, "Unknown argument(s)"),
    ("compare_symbols", {"symbols": "AAPL"}, "needs 2 to 5 distinct symbols"),
    ("compare_symbols", {"symbols": "AAPL,aapl"}, "got 1"),
    ("compare_symbols", {"symbols": "A,B,C,D,E,F"}, "got 6"),
    ("compare_symbols", {"symbols": "AAPL,MS FT?"}, "Invalid symbol in 'symbols': 'FT?'"),
    ("macro_snapshot", {"region": "US"}, "Unknown argument(s) for macro_snapshot: region"),
    ("analyse", {"symbol": "AAPL"}, "Unknown prompt: analyse"),
])
def test_bad_arguments_are_invalid_params(name, arguments, says):
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    with pytest.raises(MCPError) as raised:
        _prompt(name, arguments)
    assert raised.value.code == INVALID_PARAMS
    assert says in raised.value.message


def test_a_bad_argument_reaches_the_client_as_invalid_params():
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    async def work(client):
        with pytest.raises(MCPError) as raised:
            await client.get_prompt("analyse_stock", {"symbol": "<script>"})
        return raised.value

    error = _client_run(FakeApi(), work)
    assert error.code == INVALID_PARAMS and "Invalid symbol" in error.message


@pytest.mark.slow("lists the tools: the OpenAPI document and the tools built from it")
def test_the_prompts_name_tools_the_server_lists(unvalidated_responses):
    """Once the curated catalog serves the tools the prompts name, each must exist (until
    then the generated catalog has other names, and there is nothing to check)."""
    async def work(client):
        return {tool.name for tool in (await client.list_tools()).tools}

    listed = _client_run(load_application(), work)
    if "get_quote" not in listed:
        pytest.skip("the curated tool catalog is not served yet")
    assert set(prompts.TOOLS) <= listed, set(prompts.TOOLS) - listed


# -- the stdio command's pieces ----------------------------------------------------------------
def test_a_tool_call_over_stdio_comes_from_a_local_client():
    """No MCP request scope (stdio): the request is the local machine's, to localhost."""
    api = FakeApi(200, {"symbol": "AAPL"})
    request = ApiRequest("GET", "/v2/quote/AAPL", b"/v2/quote/AAPL", b"")
    from apps.core.inprocess import call_api

    asyncio.run(call_api(local_api(api), request, None))
    (scope,) = api.scopes
    assert scope["client"] == LOCAL_CLIENT == ("127.0.0.1", 0)
    assert scope["server"] == ("localhost", 80)
    assert dict(scope["headers"])[b"host"] == b"localhost"
    # A request that has a client keeps it.
    scope = api_scope(request, {"client": ("10.0.0.1", 1)})
    asyncio.run(local_api(api)(scope, None, _ignore))
    assert api.scopes[-1]["client"] == ("10.0.0.1", 1)


async def _ignore(message: dict[str, Any]) -> None:
    return None


def test_every_stdout_log_handler_moves_to_stderr():
    root = logging.getLogger()
    named = logging.getLogger("tests.mcp.stdio")
    ours, original = logging.StreamHandler(sys.stdout), logging.StreamHandler(sys.__stdout__)
    other = logging.StreamHandler(sys.stderr)
    kept = [(h, h.stream) for h in root.handlers if isinstance(h, logging.StreamHandler)]
    named.addHandler(ours)
    named.addHandler(other)
    root.addHandler(original)
    try:
        assert logs_to_stderr() >= 2
        assert ours.stream is sys.stderr and original.stream is sys.stderr
        assert other.stream is sys.stderr
        assert not any(isinstance(h, logging.StreamHandler) and h.stream in
                       (sys.stdout, sys.__stdout__) for h in root.handlers)
    finally:
        named.removeHandler(ours)
        named.removeHandler(other)
        root.removeHandler(original)
        for handler, stream in kept:
            handler.setStream(stream)


# -- what each tool answers ---------------------------------------------------------------------
def test_each_tools_answers_are_a_template_resource_under_budget(unvalidated_responses):
    """Every tool's outline, read through the SDK's client: its routes' operations in the
    catalog's order, each answer an object (an array answer under `result`), within the
    16 KB budget; an unknown tool is an error naming the tools."""
    from mcp.shared.exceptions import MCPError

    from apps.mcp.answers import OUTLINE_MAX_BYTES
    from apps.mcp.catalog import TOOLS

    async def work(client):
        templates = (await client.list_resource_templates()).resource_templates
        read = {tool.name: await client.read_resource(f"marketdata://answers/{tool.name}")
                for tool in TOOLS}
        with pytest.raises(MCPError, match="Unknown tool: 'nope'") as refused:
            await client.read_resource("marketdata://answers/nope")
        return templates, read, refused.value

    templates, read, refused = _client_run(load_application(), work)
    assert [t.uri_template for t in templates] == ["marketdata://answers/{tool}"]
    assert "get_quote" in refused.error.data["tools"]
    for tool in TOOLS:
        (content,) = read[tool.name].contents
        assert len(content.text.encode()) <= OUTLINE_MAX_BYTES, tool.name
        outline = json.loads(content.text)
        assert outline["tool"] == tool.name
        operations = list(dict.fromkeys(route.operation for route in tool.routes))
        assert [r["operation"] for r in outline["routes"]] == operations
        for route in outline["routes"]:
            assert isinstance(route["answer"], dict) and route["answer"], route
            assert route["request"].split()[0] in ("GET", "POST")


def test_an_outline_is_the_records_declaration(document):
    """The crypto market's answer in the get_crypto outline: the record's members in its
    order, each with its type and the record's description (units included)."""
    from apps.mcp.answers import answers
    from apps.mcp.tools import build_tools
    from marketdata.records.crypto import GlobalMarket
    from marketdata.records.members import members_of

    outline = answers(build_tools(document)["get_crypto"], document)
    (route,) = [r for r in outline["routes"] if r["operation"] == "get_crypto_global"]
    assert route["when"] == {"view": "global"}
    answer = route["answer"]
    assert list(answer) == [m.name for m in members_of(GlobalMarket)]
    assert answer["btcDominance"] == ("number?: Bitcoin's share of the market cap. Percent "
                                      "units: 1.5 is 1.5 %, as CoinGecko sends it")
    (listed,) = [r for r in outline["routes"] if r["operation"] == "get_crypto_coins"]
    assert list(listed["answer"]) == ["result"] and isinstance(listed["answer"]["result"], list)


def test_an_outline_names_types_and_shortens_long_descriptions():
    from apps.core.refs import Resolver
    from apps.mcp.answers import DESCRIPTION_MAX_CHARS, outline

    long_text = "First sentence, e.g. `x`, is kept. " + "Then a long tail. " * 20
    document = {"components": {"schemas": {"Row": {"type": "object", "properties": {
        "a": {"type": ["number", "null"], "description": long_text},
        "b": {"type": "null"}, "c": {"type": "string", "enum": ["x", "y"]},
        "d": {"type": "object", "properties": {"e": {"type": "object", "properties": {
            "f": {"type": "object", "properties": {"g": {"type": "integer"}}}}}}}}}}}}
    paged = {"oneOf": [{"type": "array", "items": {"$ref": "#/components/schemas/Row"}},
                       {"type": "object", "properties": {"nodes": {"type": "array"}}}]}
    (row,) = outline(paged, Resolver(document))
    assert row["a"] == "number?: First sentence, e.g. `x`, is kept."
    assert len(row["a"]) < DESCRIPTION_MAX_CHARS + 10
    assert row["b"] == "null" and row["c"] == "string enum"
    assert row["d"] == {"e": {"f": "object"}}
    assert outline(paged, Resolver(document), described=False)[0]["a"] == "number?"
