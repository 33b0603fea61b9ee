"""How a GraphQL field gets its data: the HTTP request of its REST operation, made in process
(:mod:`apps.core.inprocess`), so the cache, single-flight, lanes, request deadline, upstream
error mapping and access log are REST's own. The query was charged its cost before it ran
(:mod:`apps.graphql.cost`), so these requests are *prepaid*: the rate limits do not count
them again.

Within one query:

- the same request is made once (fields that ask the same operation with the same
  arguments, aliases, fragments, the same ticker twice share one answer);
- ``ticker.quote`` is batched: the tickers' quotes are one ``/v2/quotes`` request (one
  upstream batch call), made once every resolver of the current execution step has asked
  (a DataLoader: the batch is dispatched on the next turn of the event loop);
- a field whose request fails gets a GraphQL error with ``extensions {code, status,
  provider}`` and null data, and the other fields keep theirs.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

import orjson
from django.conf import settings
from graphql import GraphQLError

from apps.core.inprocess import ApiRequest, ASGIApp, call_api

# The GraphQL error code of each HTTP status a REST request can end with.
CODES = {400: "BAD_REQUEST", 401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND",
         408: "TIMEOUT", 413: "PAYLOAD_TOO_LARGE", 414: "BAD_REQUEST", 422: "BAD_REQUEST",
         429: "RATE_LIMITED", 501: "NOT_SUPPORTED", 502: "UPSTREAM_ERROR",
         503: "SERVICE_UNAVAILABLE", 504: "TIMEOUT"}


ARGUMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[\d+\])?: ")
# REST's batch limit (QUOTES_MAX_SYMBOLS): a batch never asks for more at once.
MAX_BATCH = 50


def code_of(status: int) -> str:
    return CODES.get(status, "INTERNAL_ERROR" if status >= 500 else "BAD_REQUEST")


@dataclass(frozen=True)
class Operation:
    """A REST operation of ``/openapi.json`` as a field runs it."""

    method: str
    path: str  # the template: ``/v2/chart/{symbol}``
    path_parameters: tuple[str, ...]
    query_parameters: tuple[str, ...]
    list_parameters: frozenset[str] = frozenset()  # comma-separated in REST, lists here

    def request(self, values: Mapping[str, Any], body: Any = None) -> ApiRequest:
        """The HTTP request for these argument values (REST's names)."""
        path = self.path
        raw = self.path
        for name in self.path_parameters:
            text = _text(values[name])
            path = path.replace("{" + name + "}", text)
            raw = raw.replace("{" + name + "}", quote(text, safe=""))
        pairs = [(name, _text(values[name])) for name in self.query_parameters
                 if values.get(name) is not None]
        query = urlencode(pairs, quote_via=quote, safe=",").encode()
        data = orjson.dumps(body) if body is not None else None
        return ApiRequest(self.method, path, raw.encode(), query, data)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(_text(item) for item in value)
    return str(value)


@dataclass
class Context:
    """One GraphQL request's state: the outer ASGI scope (client address, headers, arrival),
    the answers of the requests made so far, the pending quote batches."""

    api: ASGIApp
    scope: Mapping[str, Any]
    answers: dict[tuple[str, str, bytes, bytes | None], asyncio.Future[Any]] = field(
        default_factory=dict)
    quote_batches: dict[bytes, QuoteBatch] = field(default_factory=dict)
    in_flight: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(
        int(settings.GRAPHQL_MAX_CONCURRENT_REQUESTS)))

    async def fetch(self, request: ApiRequest) -> Any:
        """The JSON answer of ``request`` (made once per query); an error answer raises
        :class:`UpstreamAnswer`."""
        key = (request.method, request.path, request.query_string, request.body)
        future = self.answers.get(key)
        if future is None:
            future = self.answers[key] = asyncio.ensure_future(self._call(request))
        return await asyncio.shield(future)

    async def _call(self, request: ApiRequest) -> Any:
        async with self.in_flight:
            answer = await call_api(self.api, request, self.scope, prepaid=True)
        data = answer.json()
        if 200 <= answer.status < 300 and data is not None:
            return data
        raise UpstreamAnswer(answer.status, data if isinstance(data, dict) else {},
                             answer.header("retry-after"))

    def quote(self, operation: Operation, symbol: str, values: Mapping[str, Any]
              ) -> asyncio.Future[Any]:
        """The quote of ``symbol`` from the batch of the quotes asked with the same other
        arguments in this step of the execution."""
        rest = {k: v for k, v in values.items() if k != "symbols"}
        key = orjson.dumps(rest, option=orjson.OPT_SORT_KEYS)
        batch = self.quote_batches.get(key)
        if batch is None or batch.sent:
            batch = self.quote_batches[key] = QuoteBatch(self, operation, rest)
            asyncio.get_running_loop().call_soon(batch.tick)
        return batch.want(symbol)


@dataclass
class QuoteBatch:
    """The symbols whose quotes one ``/v2/quotes`` request will fetch."""

    context: Context
    operation: Operation
    values: Mapping[str, Any]
    wanted: dict[str, list[asyncio.Future[Any]]] = field(default_factory=dict)
    sent: bool = False
    asked: int = 0  # wants so far
    seen: int = 0  # wants at the last turn
    idle: int = 0  # turns of the event loop without a new want
    task: asyncio.Future[None] | None = None  # the request, once sent

    # The batch goes once this many turns of the event loop pass without a new want: the
    # resolvers of one execution step start over a few turns (graphql-core gathers each
    # level of the result), and a turn costs microseconds.
    IDLE_TURNS = 3

    def want(self, symbol: str) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.wanted.setdefault(symbol.strip().upper(), []).append(future)
        self.asked += 1
        return future

    def tick(self) -> None:
        if self.asked != self.seen:
            self.seen, self.idle = self.asked, 0
        else:
            self.idle += 1
        if self.idle >= self.IDLE_TURNS or len(self.wanted) >= MAX_BATCH:
            self.sent = True
            self.task = asyncio.ensure_future(self._run())
        else:
            asyncio.get_running_loop().call_soon(self.tick)

    async def _run(self) -> None:
        symbols = list(self.wanted)
        try:
            request = self.operation.request({**self.values, "symbols": symbols})
            data = await self.context.fetch(request)
        except BaseException as exc:  # each waiting field gets the failure
            for futures in self.wanted.values():
                for future in futures:
                    if not future.done():
                        future.set_exception(exc)
            if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
                raise
            return
        quotes = data.get("quotes") if isinstance(data, dict) else None
        if isinstance(quotes, dict):  # a connection (never asked for here, but a page is)
            quotes = quotes.get("nodes")
        found = {str(q.get("symbol", "")).upper(): q for q in quotes or ()
                 if isinstance(q, dict)}
        errors = {str(e.get("symbol", "")).upper(): e
                  for e in (data.get("errors") or ()) if isinstance(e, dict)}
        for symbol, futures in self.wanted.items():
            for future in futures:
                if future.done():
                    continue
                if symbol in found:
                    future.set_result(found[symbol])
                else:
                    error = errors.get(symbol) or {}
                    status = int(error.get("status") or 404)
                    future.set_exception(UpstreamAnswer(status, {
                        "error": error.get("error") or f"No quote for {symbol}",
                        "status": status, **({"provider": error["provider"]}
                                             if error.get("provider") else {})}, None))


class UpstreamAnswer(Exception):
    """A REST request's error answer, as a field's GraphQL error."""

    def __init__(self, status: int, body: Mapping[str, Any], retry_after: str | None) -> None:
        self.status, self.body, self.retry_after = status, body, retry_after
        message = body.get("error") or body.get("detail") or body.get("message")
        super().__init__(str(message) if message else f"HTTP {status}")

    def graphql_error(self, info: Any = None, arguments: Mapping[str, str] | None = None
                      ) -> GraphQLError:
        """The field's error; ``arguments`` (REST parameter -> argument) name the argument
        a refused value was given in (REST's 400/422 message starts with the parameter)."""
        extensions: dict[str, Any] = {"code": code_of(self.status), "status": self.status}
        if arguments and self.status in (400, 422):
            named = ARGUMENT.match(str(self))
            if named and named.group(1) in arguments:
                extensions["argument"] = arguments[named.group(1)]
        if self.body.get("provider"):
            extensions["provider"] = self.body["provider"]
        if self.retry_after:
            extensions["retryAfter"] = int(self.retry_after) if \
                self.retry_after.isdigit() else self.retry_after
        for key in ("errors", "param", "parameter"):  # a 422's details: which argument
            if key in self.body:
                extensions[key] = self.body[key]
        nodes = getattr(info, "field_nodes", None)
        path = getattr(getattr(info, "path", None), "as_list", lambda: None)()
        return GraphQLError(str(self), nodes, path=path, extensions=extensions)


def values_of(arguments: Mapping[str, Any], renamed: Mapping[str, str]) -> dict[str, Any]:
    """The REST parameter values of a field's arguments (GraphQL name -> REST name)."""
    back = {argument: parameter for parameter, argument in renamed.items()}
    return {back.get(name, name): value for name, value in arguments.items()}
