"""MCP resources: reference lists an agent may read without a tool call (``resources/list``,
``resources/read``), each compact JSON (``application/json``) under :data:`MAX_BYTES`.

What a path parameter of the API accepts comes from the constants its views validate with
(the screeners and sectors), so a resource cannot list a name the endpoint refuses; what an
endpoint answers (the exchanges, the currencies, the indices) is read through the service's
own HTTP application, in process, like a tool call (:func:`apps.core.inprocess.call_api`: the
same caches, rate limits, deadline and access log). A read whose request fails is an MCP
error (``INTERNAL_ERROR``) whose message says what failed and which provider; its ``data``
carries the endpoint's error body and status (and ``Retry-After`` for a 429).

Imported by :func:`apps.mcp.server.build_server`, once the SDK is loaded.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import orjson
from mcp.server import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    ListResourcesResult,
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    TextResourceContents,
)

from apps.core.inprocess import ApiRequest, ASGIApp, call_api
from apps.mcp.answers import answers
from apps.mcp.server import ToolTable
from marketdata.records.market import INDEX_GROUPS
from marketdata.records.screeners import PREDEFINED
from marketdata.records.sectors import INDUSTRIES, SECTOR_ALIASES, SECTORS

JSON_MIME = "application/json"
MAX_BYTES = 8 * 1024  # a resource's content, so reading one never floods an agent's context
SCHEME = "marketdata://"
HOUR_MS = 3_600_000
Outer = Mapping[str, Any] | None

# FRED series worth knowing: id | frequency | units | what it measures. Each is one the
# macro endpoint serves (tests: the sandbox knows every one). A monthly index's change over
# 12 observations is its yearly rate (the CPI's: inflation).
_MACRO_TABLE = """
DGS10        | daily     | percent                  | 10-year Treasury constant-maturity yield
DGS2         | daily     | percent                  | 2-year Treasury constant-maturity yield
DGS3MO       | daily     | percent                  | 3-month Treasury constant-maturity yield
DGS30        | daily     | percent                  | 30-year Treasury constant-maturity yield
T10Y2Y       | daily     | percentage points        | 10-year minus 2-year yield (below 0: inverted)
T10Y3M       | daily     | percentage points        | 10-year minus 3-month Treasury yield
FEDFUNDS     | monthly   | percent                  | Effective federal funds rate, monthly average
DFF          | daily     | percent                  | Effective federal funds rate
SOFR         | daily     | percent                  | Secured Overnight Financing Rate
MORTGAGE30US | weekly    | percent                  | 30-year fixed mortgage rate, US average
T10YIE       | daily     | percent                  | 10-year breakeven inflation (market-implied)
CPIAUCSL     | monthly   | index 1982-84=100        | Consumer price index, all items (headline)
CPILFESL     | monthly   | index 1982-84=100        | Core CPI: all items less food and energy
PCEPI        | monthly   | index 2017=100           | PCE price index (the Fed's inflation gauge)
UNRATE       | monthly   | percent                  | Unemployment rate
PAYEMS       | monthly   | thousands of persons     | Total nonfarm payrolls
ICSA         | weekly    | claims                   | Initial jobless claims
GDP          | quarterly | billions of dollars      | Gross domestic product, nominal, annual rate
GDPC1        | quarterly | billions of 2017 dollars | Real gross domestic product, annual rate
INDPRO       | monthly   | index 2017=100           | Industrial production
M2SL         | monthly   | billions of dollars      | M2 money stock
HOUST        | monthly   | thousands of units       | Housing starts, annual rate
UMCSENT      | monthly   | index 1966=100           | University of Michigan consumer sentiment
VIXCLS       | daily     | index                    | CBOE Volatility Index (VIX), close
SP500        | daily     | index                    | S&P 500, close
DCOILWTICO   | daily     | dollars per barrel       | WTI crude oil spot price
DTWEXBGS     | daily     | index 2006=100           | Broad trade-weighted US dollar index
"""
MACRO_SERIES: tuple[tuple[str, ...], ...] = tuple(
    tuple(cell.strip() for cell in line.split("|")) for line in _MACRO_TABLE.strip().splitlines())


class ReadFailed(Exception):
    """The request behind a resource answered an error."""

    def __init__(self, request: ApiRequest, status: int, body: Any,
                 retry_after: str | None) -> None:
        self.request, self.status, self.body, self.retry_after = \
            request, status, body, retry_after
        super().__init__(self.message())

    def message(self) -> str:
        body = self.body if isinstance(self.body, dict) else {}
        reason = body.get("error") or body.get("detail") or "no JSON error body"
        provider = body.get("provider")
        by = f" (provider: {provider})" if provider else ""
        return (f"GET {self.request.path} answered {self.status}{by}: {reason}")

    def data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"status": self.status, "body": self.body}
        if self.retry_after is not None:
            data["retryAfter"] = self.retry_after
        return data


async def api_get(api: ASGIApp, path: str, query: Mapping[str, str], outer: Outer) -> Any:
    """The JSON answer of ``GET path?query`` through ``api``; :class:`ReadFailed` unless
    it is a 200 with a JSON body."""
    request = ApiRequest("GET", path, path.encode("ascii"), urlencode(query).encode("ascii"))
    answer = await call_api(api, request, outer)
    body = answer.json()
    if answer.status != 200 or body is None:
        raise ReadFailed(request, answer.status, body, answer.header("retry-after"))
    return body


# -- the resources' contents -------------------------------------------------------------------
Content = Callable[[ASGIApp, Outer], Awaitable[Any]]


async def screeners(api: ASGIApp, outer: Outer) -> Any:
    return {"path": "/v2/screeners/{screener}", "screeners": [
        {"name": s.slug, "quoteType": s.quote_type, **({"aliases": list(s.aliases)}
                                                       if s.aliases else {})}
        for s in PREDEFINED]}


async def sectors(api: ASGIApp, outer: Outer) -> Any:
    aliases: dict[str, list[str]] = {}
    for alias, key in SECTOR_ALIASES.items():
        aliases.setdefault(key, []).append(alias)
    industries: dict[str, list[str]] = {}
    for slug, (_, key) in INDUSTRIES.items():
        industries.setdefault(key, []).append(slug)
    return {"path": "/v2/sectors/{sector}", "industryPath": "/v2/industries/{industry}",
            "sectors": [{"key": key, "aliases": aliases.get(key, []),
                         "industries": industries.get(key, [])} for key in SECTORS]}


async def exchanges(api: ASGIApp, outer: Outer) -> Any:
    return {"exchanges": await api_get(api, "/v2/exchanges",
                                       {"fields": "country,market,suffix"}, outer)}


async def currencies(api: ASGIApp, outer: Outer) -> Any:
    rows = await api_get(api, "/v2/currencies", {"fields": "symbol,longName"}, outer)
    return {"currencies": {row["symbol"]: row.get("longName") for row in rows}}


async def macro_series(api: ASGIApp, outer: Outer) -> Any:
    return {"path": "/v2/macro/series/{id}", "series": [
        {"id": id_, "meaning": meaning, "frequency": frequency, "units": units}
        for id_, frequency, units, meaning in MACRO_SERIES]}


async def indices(api: ASGIApp, outer: Outer) -> Any:
    rows = await api_get(api, "/v2/indices",
                         {"fields": "symbol,shortName,exchange,currency"}, outer)
    group_of = {symbol: group for group, symbols in INDEX_GROUPS.items() for symbol in symbols}
    groups: dict[str, list[Any]] = {group: [] for group in INDEX_GROUPS}
    for row in rows:
        groups.setdefault(group_of.get(row.get("symbol"), "other"), []).append(row)
    return {"groups": {group: members for group, members in groups.items() if members}}


@dataclass(frozen=True)
class ResourceSpec:
    name: str  # the URI after marketdata://
    title: str
    description: str
    content: Content
    ttl_ms: int = HOUR_MS  # how long a client may keep what it read

    @property
    def uri(self) -> str:
        return SCHEME + self.name

    def resource(self) -> Resource:
        return Resource(uri=self.uri, name=self.name, title=self.title,
                        description=self.description, mime_type=JSON_MIME)


RESOURCES: dict[str, ResourceSpec] = {spec.uri: spec for spec in (
    ResourceSpec("screeners", "Predefined screeners",
                 "The screener names (and aliases) GET /v2/screeners/{screener} accepts, "
                 "with each one's quote type (EQUITY or MUTUALFUND).", screeners, 86_400_000),
    ResourceSpec("sectors", "Sectors and industries",
                 "The sector keys (and aliases) GET /v2/sectors/{sector} accepts, each "
                 "with the industry slugs GET /v2/industries/{industry} accepts.", sectors,
                 86_400_000),
    ResourceSpec("exchanges", "Exchanges and symbol suffixes",
                 "The exchanges and markets covered, with their country and the suffix "
                 "their symbols carry (.L, .DE, .T; N/A: none), from GET /v2/exchanges.", exchanges,
                 86_400_000),
    ResourceSpec("currencies", "Currencies",
                 "The currency codes quoted, with their names (code -> name), from GET "
                 "/v2/currencies.", currencies, 86_400_000),
    ResourceSpec("macro-series", "Suggested FRED series",
                 "FRED series ids worth knowing for GET /v2/macro/series/{id} (rates, "
                 "inflation, jobs, growth, money, volatility), each with what it measures, "
                 "how often and in which units.", macro_series, 86_400_000),
    ResourceSpec("indices", "World indices",
                 "The main world indices by region group (symbol, name, exchange, "
                 "currency), from GET /v2/indices: symbols for the quote and chart tools.",
                 indices),
)}


# What each tool answers (apps.mcp.answers): one resource per tool, by a template.
ANSWERS = SCHEME + "answers/"
ANSWERS_TEMPLATE = ResourceTemplate(
    uri_template=ANSWERS + "{tool}", name="answers", title="What a tool answers",
    description="The members of each answer a tool may give (by route: the operation and "
                "what chooses it), each with its type (`?`: may be null) and description "
                "with its unit, from the same declarations as /openapi.json. Read it to plan "
                "`fields` or a call; at most 16 KB.",
    mime_type=JSON_MIME)


# -- the handlers ------------------------------------------------------------------------------
async def list_templates(ctx: ServerRequestContext[Any, Any],
                         params: PaginatedRequestParams | None) -> ListResourceTemplatesResult:
    """``resources/templates/list``: the answers of each tool."""
    return ListResourceTemplatesResult(resource_templates=[ANSWERS_TEMPLATE], ttl_ms=300_000,
                                       cache_scope="public")


async def tool_answers(table: ToolTable, uri: str, outer: Outer) -> ReadResourceResult:
    """The outline of what the tool named at the end of ``uri`` answers."""
    name = uri.removeprefix(ANSWERS)
    specs = await table.load(outer)
    spec = specs.get(name)
    if spec is None:
        raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {name!r}",
                       data={"uri": uri, "tools": list(specs)})
    text = orjson.dumps(answers(spec, table.document)).decode()
    return ReadResourceResult(
        contents=[TextResourceContents(uri=uri, mime_type=JSON_MIME, text=text)],
        ttl_ms=300_000, cache_scope="public")


async def list_resources(ctx: ServerRequestContext[Any, Any],
                         params: PaginatedRequestParams | None) -> ListResourcesResult:
    """``resources/list``: every resource (one page; the list changes only with a
    deployment)."""
    return ListResourcesResult(resources=[spec.resource() for spec in RESOURCES.values()],
                               ttl_ms=300_000, cache_scope="public")


async def read(api: ASGIApp, uri: str, outer: Outer) -> ReadResourceResult:
    """The contents of the resource at ``uri``, its requests made through ``api``."""
    spec = RESOURCES.get(uri)
    if spec is None:
        raise MCPError(code=INVALID_PARAMS, message=f"Unknown resource: {uri}",
                       data={"uri": uri, "resources": list(RESOURCES)})
    try:
        content = await spec.content(api, outer)
    except ReadFailed as exc:
        raise MCPError(code=INTERNAL_ERROR, message=f"Reading {uri} failed: {exc.message()}",
                       data={"uri": uri, **exc.data()}) from None
    text = orjson.dumps(content).decode()
    return ReadResourceResult(
        contents=[TextResourceContents(uri=uri, mime_type=JSON_MIME, text=text)],
        ttl_ms=spec.ttl_ms, cache_scope="public")


def reader(api: ASGIApp, table: ToolTable) -> Callable[
        [ServerRequestContext[Any, Any], ReadResourceRequestParams],
        Awaitable[ReadResourceResult]]:
    """The ``resources/read`` handler of a server whose requests go to ``api`` and whose
    tools are ``table``'s."""

    async def read_resource(ctx: ServerRequestContext[Any, Any],
                            params: ReadResourceRequestParams) -> ReadResourceResult:
        uri, outer = str(params.uri), getattr(ctx.request, "scope", None)
        if uri.startswith(ANSWERS):
            return await tool_answers(table, uri, outer)
        return await read(api, uri, outer)

    return read_resource
