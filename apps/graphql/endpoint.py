"""``/graphql``: the ASGI endpoint for queries over HTTP (GET and POST), and GraphiQL for
browsers. It runs on the event loop: a query's fields are in-process REST requests
(:mod:`apps.graphql.execution`), which need the worker's threads, so no thread waits on them.

What a request goes through, cheapest refusals first (README, "GraphQL"):

1. the method (GET, POST; a CORS preflight goes to the API's CORS middleware), the
   ``Host``, the body (``REQUEST_BODY_MAX_BYTES``, read on the loop with a deadline), the
   query's size (``GRAPHQL_MAX_QUERY_BYTES``, 413) and tokens (``GRAPHQL_MAX_TOKENS``, the
   parser stops there);
2. depth, aliases and cost (:mod:`apps.graphql.cost`) against their limits, then
   GraphQL's validation against the schema: 400 with ``errors`` naming the limit;
3. the v2 token bucket is charged the cost (429 with ``Retry-After`` when short);
4. execution: 200 with ``data`` and, for fields that failed, ``errors`` with
   ``extensions {code, status, provider}``.

GET answers carry a strong ETag of their body and answer ``If-None-Match`` with a 304, as
REST's do; both methods' JSON is compressed as the client accepts.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl

import orjson
from django.conf import settings
from graphql import (
    DocumentNode,
    ExecutionResult,
    FragmentDefinitionNode,
    GraphQLError,
    OperationDefinitionNode,
    OperationType,
    execute,
    parse,
    validate,
)

from apps.core import encoding, front
from apps.core.bridge import BodyLimits, read_body
from apps.core.fastpath import fast_path
from apps.core.inprocess import ApiRequest, ASGIApp, call_api
from apps.core.middleware import correlation_id_for
from apps.core.whole_answers import Variants, encoded, merge_vary
from apps.graphql import cost
from apps.graphql.execution import Context
from apps.graphql.executor import Executor
from apps.graphql.schema import Built, build
from apps.ratelimit import limits
from marketdata import deadline, metrics
from marketdata.logs import AccessLog, get_logger

log = get_logger("apps.graphql")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]

PATHS = ("/graphql", "/graphql/")
ROUTE = "graphql"
DOCUMENT = ApiRequest("GET", "/openapi.json", b"/openapi.json", b"")
JSON = b"application/json"
GRAPHQL_RESPONSE = b"application/graphql-response+json"
RATE_LIMIT_NAME = "v2_bucket"


class Refused(Exception):
    """A request refused before execution: its status and GraphQL error."""

    def __init__(self, status: int, message: str, code: str, **extensions: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.extensions = status, code, extensions

    def body(self) -> bytes:
        return orjson.dumps({"errors": [{"message": str(self), "extensions": {
            "code": self.code, "status": self.status, **self.extensions}}]})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key == name:
            return value.decode("latin-1")
    return None


class Schema:
    """The schema, built from the document this process serves, once (off the loop)."""

    def __init__(self, api: ASGIApp) -> None:
        self.api = api
        self.built: Built | None = None
        self._lock: asyncio.Lock | None = None

    async def get(self, outer: Mapping[str, Any] | None) -> Built:
        if self.built is not None:
            return self.built
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self.built is None:
                answer = await call_api(self.api, DOCUMENT, outer, prepaid=True)
                if answer.status != 200:
                    raise RuntimeError(f"GET /openapi.json answered {answer.status}")
                document = orjson.loads(answer.body)
                self.built = await asyncio.to_thread(build_with_subscriptions, document)
                log.info("graphql schema built from /openapi.json",
                         types=len(self.built.schema.type_map))
        return self.built


def build_with_subscriptions(document: Mapping[str, Any]) -> Built:
    try:
        from apps.graphql.subscriptions import subscription_type
    except ImportError:  # pragma: no cover - until the streams are served
        return build(document)
    return build(document, subscription_type())


class Request:
    """A query as the client sent it."""

    def __init__(self, query: Any, variables: Any, operation_name: Any) -> None:
        if not isinstance(query, str) or not query.strip():
            raise Refused(400, "No query: send `query` (a GraphQL document)", "BAD_REQUEST")
        if len(query.encode()) > settings.GRAPHQL_MAX_QUERY_BYTES:
            raise Refused(413, f"The query is over {settings.GRAPHQL_MAX_QUERY_BYTES:,} "
                          "bytes", "QUERY_TOO_LARGE",
                          limit=settings.GRAPHQL_MAX_QUERY_BYTES)
        if isinstance(variables, str):
            try:
                variables = orjson.loads(variables) if variables.strip() else None
            except orjson.JSONDecodeError:
                raise Refused(400, "`variables` is not JSON", "BAD_REQUEST") from None
        if variables is not None and not isinstance(variables, dict):
            raise Refused(400, "`variables` must be a JSON object", "BAD_REQUEST")
        if operation_name is not None and not isinstance(operation_name, str):
            raise Refused(400, "`operationName` must be a string", "BAD_REQUEST")
        self.query, self.variables, self.operation_name = query, variables or {}, \
            operation_name or None

    @classmethod
    def from_query_string(cls, raw: bytes) -> Request:
        params = dict(parse_qsl(raw.decode("latin-1"), keep_blank_values=True))
        return cls(params.get("query"), params.get("variables"), params.get("operationName"))

    @classmethod
    def from_body(cls, body: bytes, content_type: str) -> Request:
        media = content_type.split(";")[0].strip().lower()
        if media == "application/graphql":
            return cls(body.decode("utf-8", "replace"), None, None)
        if media not in ("application/json", ""):
            raise Refused(415, "Send `Content-Type: application/json` with "
                          "{query, variables, operationName}", "BAD_REQUEST")
        try:
            payload = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise Refused(400, "The body is not JSON", "BAD_REQUEST") from None
        if not isinstance(payload, dict):
            raise Refused(400, "The body must be one JSON object {query, variables, "
                          "operationName} (batches are not served)", "BAD_REQUEST")
        return cls(payload.get("query"), payload.get("variables"),
                   payload.get("operationName"))


def _operation(document: DocumentNode, name: str | None) -> OperationDefinitionNode:
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if name is not None:
        for operation in operations:
            if operation.name is not None and operation.name.value == name:
                return operation
        raise Refused(400, f"Unknown operation named '{name}'", "BAD_REQUEST")
    if len(operations) != 1:
        raise Refused(400, "Send `operationName`: the document has "
                      f"{len(operations)} operations", "BAD_REQUEST")
    return operations[0]


def _checked(built: Built, request: Request, method: str,
             kinds: tuple[OperationType, ...] = (OperationType.QUERY,)
             ) -> tuple[DocumentNode, OperationDefinitionNode, cost.Measure]:
    """The parsed, measured and validated operation, or :class:`Refused`; ``kinds``: the
    operations served (HTTP: queries; the WebSocket, :mod:`apps.graphql.ws`:
    subscriptions)."""
    try:
        document = parse(request.query, max_tokens=settings.GRAPHQL_MAX_TOKENS,
                         no_location=False)
    except GraphQLError as exc:
        # graphql-core: "Document contains more than 3000 tokens. Parsing aborted."
        if exc.message.endswith(f" {settings.GRAPHQL_MAX_TOKENS} tokens. Parsing aborted."):
            raise Refused(400, f"The query has over {settings.GRAPHQL_MAX_TOKENS:,} tokens",
                          "QUERY_TOO_COMPLEX", limit=settings.GRAPHQL_MAX_TOKENS) from None
        raise Refused(400, exc.message, "GRAPHQL_PARSE_FAILED") from None
    operation = _operation(document, request.operation_name)
    if operation.operation not in kinds:
        kind = operation.operation.value
        if kind == "subscription":
            raise Refused(400, "Subscriptions are served over WebSocket "
                          "(graphql-transport-ws) at this path", "BAD_REQUEST")
        if kind == "query":
            raise Refused(400, "Queries are served over HTTP (GET or POST) at this path",
                          "BAD_REQUEST")
        raise Refused(405 if method == "GET" else 400, f"No {kind}s: the service is "
                      "read-only", "BAD_REQUEST")
    fragments = {d.name.value: d for d in document.definitions
                 if isinstance(d, FragmentDefinitionNode)}
    measured = cost.measure(operation, fragments, request.variables,
                            settings.GRAPHQL_MAX_DEPTH)
    if measured.depth > settings.GRAPHQL_MAX_DEPTH:
        raise Refused(400, f"The query is nested over {settings.GRAPHQL_MAX_DEPTH} deep",
                      "QUERY_TOO_DEEP", limit=settings.GRAPHQL_MAX_DEPTH)
    if measured.aliases > settings.GRAPHQL_MAX_ALIASES:
        raise Refused(400, f"The query has {measured.aliases} aliases, over "
                      f"{settings.GRAPHQL_MAX_ALIASES}", "TOO_MANY_ALIASES",
                      limit=settings.GRAPHQL_MAX_ALIASES)
    if measured.cost > settings.GRAPHQL_MAX_COST:
        raise Refused(400, f"The query may make {measured.cost} requests, over "
                      f"{settings.GRAPHQL_MAX_COST}: ask for fewer tickers or fields",
                      "QUERY_TOO_COSTLY", cost=measured.cost,
                      limit=settings.GRAPHQL_MAX_COST)
    errors = validate(built.schema, document, max_errors=20)
    if errors:
        raise _ValidationFailed(errors)
    return document, operation, measured


class _ValidationFailed(Refused):
    def __init__(self, errors: list[GraphQLError]) -> None:
        super().__init__(400, errors[0].message, "GRAPHQL_VALIDATION_FAILED")
        self.errors = errors

    def body(self) -> bytes:
        out = []
        for error in self.errors:
            item = error.formatted
            item["extensions"] = {"code": self.code, "status": 400}
            out.append(item)
        return orjson.dumps({"errors": out})


async def _charge(scope: Scope, tokens: int) -> tuple[Headers, Refused | None]:
    """Take the query's cost from the v2 bucket: its rate-limit headers, and the refusal
    when the bucket is short (nothing taken then)."""
    charged = await limits.charge_v2(scope, tokens)
    if charged is None:
        return [], None
    take, headers = charged
    if take.allowed:
        return headers, None
    retry = take.retry_after
    metrics.record_rate_limited(RATE_LIMIT_NAME)
    return headers, Refused(
        429, f"Rate limit exceeded: the query costs {tokens} token"
        f"{'' if tokens == 1 else 's'}; retry after {retry} second"
        f"{'' if retry == 1 else 's'}", "RATE_LIMITED", retryAfter=retry, cost=tokens)


class GraphQLEndpoint:
    """The ASGI application of ``/graphql`` (HTTP); fields go to ``api`` in process, CORS
    preflights to ``preflight`` (the API's CORS middleware answers them)."""

    def __init__(self, api: ASGIApp, preflight: ASGIApp) -> None:
        self.api = api
        self.preflight = preflight
        self.schema = Schema(api)
        self.variants = Variants()
        self.access_log: AccessLog | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope.setdefault(deadline.ARRIVAL_KEY, time.monotonic())
        method = scope["method"]
        if method == "OPTIONS":
            await self.preflight(scope, receive, send)
            return
        if method not in ("GET", "HEAD", "POST"):
            await front.refuse(scope, send, 405, "Method Not Allowed: GET or POST a GraphQL "
                               "query", close=False, extra=[(b"allow", b"GET, POST, OPTIONS")])
            return
        setup = fast_path.setup()
        if setup.enabled and not setup.host_allowed(
                _header(scope, b"host") or "", _header(scope, b"x-forwarded-host")):
            await front.refuse(scope, send, 400, "Invalid Host header", close=False)
            return
        correlation_id = correlation_id_for(_header(scope, b"x-correlation-id"))
        scope = {**scope, "headers": [
            *((k, v) for k, v in scope.get("headers") or () if k != b"x-correlation-id"),
            (b"x-correlation-id", correlation_id.encode())]}
        if method != "POST" and not scope.get("query_string") and \
                "text/html" in (_header(scope, b"accept") or ""):
            from apps.graphql import graphiql

            body, headers = graphiql.page(scope.get("root_path", ""))
            await self._send(scope, send, 200, body, headers, correlation_id, None, None,
                             html=True)
            return
        status, body, extra, operation, measured = await self._run(scope, receive, send,
                                                                   method)
        if status == 0:  # the body was refused by the reader (400/408/413), or the client left
            return
        await self._send(scope, send, status, body, extra, correlation_id, operation,
                         measured)

    async def _run(self, scope: Scope, receive: Receive, send: Send, method: str
                   ) -> tuple[int, bytes, Headers, str | None, cost.Measure | None]:
        operation_name: str | None = None
        measured: cost.Measure | None = None
        counted: Headers = []
        try:
            if method == "POST":
                raw = await read_body(scope, receive, send, BodyLimits.from_settings())
                if raw is None:
                    return 0, b"", [], None, None
                request = Request.from_body(raw, _header(scope, b"content-type") or "")
            else:
                request = Request.from_query_string(scope.get("query_string") or b"")
            operation_name = request.operation_name
            built = await self.schema.get(scope)
            document, operation, measured = _checked(built, request, method)
            operation_name = operation.name.value if operation.name else operation_name
            counted, refused = await _charge(scope, measured.cost)
            if refused is not None:
                raise refused
            result = execute(built.schema, document, context_value=Context(self.api, scope),
                             variable_values=request.variables,
                             operation_name=request.operation_name, executor_class=Executor)
            if inspect.isawaitable(result):
                result = await result
            return 200, _result_body(result), counted, operation_name, measured
        except Refused as exc:
            return exc.status, exc.body(), counted, operation_name, measured

    async def _send(self, scope: Scope, send: Send, status: int, body: bytes, extra: Headers,
                    correlation_id: str, operation: str | None,
                    measured: cost.Measure | None, *, html: bool = False) -> None:
        """The answer: a query's JSON, or (``html``) GraphiQL's page with its own headers."""
        accept = _header(scope, b"accept") or ""
        media = GRAPHQL_RESPONSE if "application/graphql-response+json" in accept else JSON
        headers: Headers = [] if html else [(b"content-type", media)]
        headers += extra
        setup = fast_path.setup()
        if setup.enabled:
            secure = setup.is_secure(scope.get("scheme", "http"), _header(
                scope, setup.proxy_header) if setup.proxy_header else None)
            xframe, security = setup.layers(secure)
            present = {name for name, _ in headers}  # the page's own win (its CSP, ...)
            headers += [*(header for header in (*(() if html else xframe), *security)
                          if header[0] not in present),
                        *setup.cors(_header(scope, b"origin"), scope.get("path", "/"))]
        headers += [(b"x-correlation-id", correlation_id.encode()),
                    (b"x-data-source", settings.MARKETDATA_UPSTREAM.encode("latin-1"))]
        if scope["method"] in ("GET", "HEAD") and status == 200 and not html:
            # The tag of the representation sent, as REST's: gzip's and brotli's differ.
            coding = encoding.choose(_header(scope, b"accept-encoding"), encoding.CODINGS) \
                if encoding.compressible(media.decode(), len(body)) else encoding.IDENTITY
            tag = encoding.etag(encoding.digest(body), coding)
            headers += [(b"etag", tag.encode()), (b"cache-control", b"no-cache")]
            match = _header(scope, b"if-none-match")
            if match is not None and encoding.none_match(match, tag):
                status, body = 304, b""
        elif not html:
            headers.append((b"cache-control", b"no-store"))
        if status != 304:
            headers, body = await encoded(headers, body,
                                               _header(scope, b"accept-encoding"),
                                               self.variants)
        headers = merge_vary(headers)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body",
                    "body": b"" if scope["method"] == "HEAD" else body})
        self._record(scope, status, correlation_id, operation, measured)

    def _record(self, scope: Scope, status: int, correlation_id: str, operation: str | None,
                measured: cost.Measure | None) -> None:
        arrival = scope.get(deadline.ARRIVAL_KEY) or time.monotonic()
        seconds = time.monotonic() - arrival
        if self.access_log is None:
            self.access_log = AccessLog(__file__, settings.PERFORMANCE_THRESHOLD_MS)
        extra: dict[str, Any] = {"graphql_operation": operation or "anonymous"}
        if measured is not None:
            extra["graphql_cost"] = measured.cost
            extra["graphql_fields"] = sorted(measured.served or ())
        self.access_log(scope["method"], scope.get("path") or "/graphql", status,
                        round(seconds * 1000, 3), correlation_id, "", ROUTE, extra)
        metrics.record_request(scope["method"], ROUTE, status, seconds)
        if measured is not None and status == 200:
            metrics.record_graphql("query", measured.served)


def _result_body(result: ExecutionResult) -> bytes:
    out: dict[str, Any] = {}
    if result.errors:
        out["errors"] = [_formatted(error) for error in result.errors]
    out["data"] = result.data
    return orjson.dumps(out)


def _formatted(error: GraphQLError) -> dict[str, Any]:
    item = error.formatted
    if not item.get("extensions"):
        original = error.original_error
        if original is not None and not isinstance(original, GraphQLError):
            # A resolver's own failure: logged, never shown (it may carry internals).
            log.error("graphql field failed", path=item.get("path"), exc_info=original)
            item["message"] = "Internal error"
        item["extensions"] = {"code": "INTERNAL_ERROR", "status": 500} \
            if original is not None and not isinstance(original, GraphQLError) else \
            {"code": "BAD_REQUEST", "status": 400}
    return item
