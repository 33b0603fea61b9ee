"""The MCP server: ``tools/list`` from :mod:`apps.mcp.tools`, ``tools/call`` through the
service's own HTTP application.

A tool call is the HTTP request of its declared route (:mod:`apps.mcp.catalog`), made in
process (:mod:`apps.core.inprocess`): the fast path, the rate limits (each call is counted
as its request), the request deadline, the caches, the access log and the error bodies all
apply exactly as to the same request over HTTP, and the deadline counts from when the MCP
request arrived.

Arguments that are not what the tool's schema says are a JSON-RPC error (invalid params)
naming the argument; no request is made. A 2xx answer is the tool's JSON text and structured
content (wrapped as ``{"result": ...}`` when it is not an object; connections without their
``edges``), refused as a tool error when over :data:`apps.mcp.tools.RESULT_MAX_BYTES`. Any
other answer is a tool error (``isError``) with the endpoint's JSON error body as structured
content and as text, so an upstream failure names its provider and a 429 carries the
limit's body. The HTTP status and the headers that matter to a caller (``Retry-After``, the
rate-limit headers, ``X-Data-Source``, ``X-Cache``) are in the result's ``_meta``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson
from django.conf import settings

from apps.core.errors import page_error_body
from apps.core.inprocess import Answer, ApiRequest, ASGIApp, call_api
from apps.mcp.tools import (
    RESULT_MAX_BYTES,
    RESULT_MEMBER,
    ArgumentsRefused,
    ToolSpec,
    build_tools,
    without_edges,
)
from marketdata.logs import get_logger

if TYPE_CHECKING:  # the SDK is imported on first use (~2 s): apps.mcp.asgi
    from mcp_types import CallToolResult

log = get_logger("apps.mcp")

META_KEY = "marketdata/http"
# Answer headers a caller may act on, reported in the result's _meta.
REPORTED_HEADERS = ("retry-after", "x-ratelimit-limit", "x-ratelimit-remaining",
                    "x-ratelimit-reset", "ratelimit", "ratelimit-policy", "x-data-source",
                    "x-cache", "x-correlation-id")
INSTRUCTIONS = (
    "Read-only market data: quotes, charts, fundamentals, indicators, news, filings, macro "
    "series, screeners and strategy backtests. Answers are JSON, sized for a context by "
    "default: lists come 25 to a page (`pageInfo.endCursor` is the `cursor` of the next "
    "page), long series newest first, quotes with a curated set of members (`fields` asks "
    "for others, `*` for all). An answer over ~25,000 tokens is refused with how to ask for "
    "less. An error result carries the service's JSON error body: an upstream failure names "
    "its provider, a 429 says when to retry. get_service_status tells whether the data is "
    "live or synthetic (sandbox). The resource marketdata://answers/{tool} lists a tool's "
    "answer members with their types and units.")


def _meta(answer: Answer) -> dict[str, Any]:
    reported = {name: value for name in REPORTED_HEADERS
                if (value := answer.header(name)) is not None}
    return {META_KEY: {"status": answer.status, "headers": reported}}


def tool_result(spec: ToolSpec, request: ApiRequest, answer: Answer) -> CallToolResult:
    """The ``CallToolResult`` of an answer: its JSON (connections without their ``edges``)
    as text and structured content, or a tool error with the error body; an answer over
    :data:`RESULT_MAX_BYTES` is a tool error saying how to ask for less."""
    from mcp_types import CallToolResult, TextContent

    data = answer.json()
    ok = 200 <= answer.status < 300 and data is not None
    status = answer.status
    if ok:
        data = without_edges(data)
        content = data if isinstance(data, dict) else {RESULT_MEMBER: data}
    elif isinstance(data, dict):
        content = data
    else:  # not JSON (should not happen: every answer of the API is)
        status = answer.status if answer.status >= 400 else 502
        content = page_error_body(request.path, "The endpoint's answer was not JSON", status)
    text = orjson.dumps(content)
    if ok and len(text) > RESULT_MAX_BYTES:
        ok, status = False, 413
        content = {"error": (
            f"The answer is {len(text):,} bytes (about {len(text) // 4:,} tokens), over the "
            f"{RESULT_MAX_BYTES:,}-byte budget of one tool result. Ask for less: a smaller "
            "limit or page, fewer symbols, a shorter range or fewer fields."),
            "status": 413, "bytes": len(text)}
        text = orjson.dumps(content)
    meta = _meta(answer)
    meta[META_KEY]["status"] = status
    return CallToolResult(content=[TextContent(text=text.decode())],
                          structured_content=content, is_error=not ok, _meta=meta)


DOCUMENT = ApiRequest("GET", "/openapi.json", b"/openapi.json", b"")


class ToolTable:
    """The tools, from the document ``api`` serves at ``/openapi.json`` (read once per
    process, by the first request that needs them; a failed read is tried again)."""

    def __init__(self, api: ASGIApp) -> None:
        self.api = api
        self.specs: dict[str, ToolSpec] | None = None
        self.listing: list[Any] | None = None
        self.document: dict[str, Any] = {}

    async def load(self, outer: Mapping[str, Any] | None) -> dict[str, ToolSpec]:
        if self.specs is None:
            answer = await call_api(self.api, DOCUMENT, outer)
            if answer.status != 200:
                raise RuntimeError(f"GET /openapi.json answered {answer.status}")
            document = self.document = orjson.loads(answer.body)
            # ~0.1 s of CPU for ~100 operations: off the event loop.
            self.specs = await asyncio.to_thread(build_tools, document,
                                                 int(settings.REQUEST_URL_MAX_BYTES))
            log.info("mcp tools built from the catalog and /openapi.json",
                     tools=len(self.specs))
        return self.specs

    async def tools(self, outer: Mapping[str, Any] | None) -> list[Any]:
        if self.listing is None:
            self.listing = [spec.tool() for spec in (await self.load(outer)).values()]
        return self.listing

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        spec = self.specs.get(name) if self.specs is not None else None
        return spec.input_schema if spec is not None else None


def build_server(api: ASGIApp) -> Any:
    """The low-level MCP server (``mcp.server.Server``) whose tool calls go to ``api``."""
    from mcp.server import CacheHint, Server, ServerRequestContext
    from mcp.shared.exceptions import MCPError
    from mcp_types import (
        INVALID_PARAMS,
        CallToolRequestParams,
        ListToolsResult,
        PaginatedRequestParams,
    )

    from apps.mcp import prompts, resources  # the SDK's types: imported with it

    table = ToolTable(api)

    async def list_tools(ctx: ServerRequestContext[Any, Any],
                         params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=await table.tools(getattr(ctx.request, "scope", None)))

    async def call_tool(ctx: ServerRequestContext[Any, Any],
                        params: CallToolRequestParams) -> CallToolResult:
        outer = getattr(ctx.request, "scope", None)
        spec = (await table.load(outer)).get(params.name)
        if spec is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        try:
            request = spec.request(params.arguments)
        except ArgumentsRefused as exc:
            # A JSON-RPC error, not a tool error: no request was made, and the message
            # names the argument (the client's own schema check would have).
            raise MCPError(code=INVALID_PARAMS, message=str(exc), data=exc.data()) from None
        return tool_result(spec, request, await call_api(api, request, outer))

    return Server(
        "marketdata", version=str(settings.SPECTACULAR_SETTINGS["VERSION"]),
        title="Market data service", instructions=INSTRUCTIONS,
        # The tools change only with a deployment.
        cache_hints={"tools/list": CacheHint(ttl_ms=300_000, scope="public")},
        get_tool_input_schema=table.input_schema,
        on_list_tools=list_tools, on_call_tool=call_tool,
        on_list_resources=resources.list_resources,
        on_list_resource_templates=resources.list_templates,
        on_read_resource=resources.reader(api, table),
        on_list_prompts=prompts.list_prompts, on_get_prompt=prompts.get_prompt)
