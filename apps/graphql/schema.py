"""The GraphQL schema, built once per process from ``/openapi.json`` and the catalog
(:mod:`apps.graphql.catalog`): ``Query`` (the root fields, ``ticker(symbol)``,
``tickers(symbols)``) and ``Subscription`` (:mod:`apps.graphql.subscriptions`).

Nothing here spells a member: arguments are the operations' parameters, types their answers'
schemas (:mod:`apps.graphql.types`), both read off the document the records describe.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from graphql import (
    GraphQLArgument,
    GraphQLError,
    GraphQLField,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    GraphQLString,
    print_schema,
)

from apps.core.refs import Resolver
from apps.graphql import catalog
from apps.graphql.catalog import Served
from apps.graphql.execution import Context, Operation, UpstreamAnswer, values_of
from apps.graphql.types import TypeBuilder, as_connection, field_name, is_connection, pascal

# Relay's paging arguments, the same as REST's (cursor semantics included).
RELAY = {"first": "limit", "after": "cursor"}
# Parameters REST takes comma-separated that GraphQL takes as lists.
LIST_PARAMETERS = frozenset({"symbols"})


@dataclass(frozen=True)
class Declared:
    """A catalog entry read against the document."""

    served: Served
    operation: Operation
    parameters: tuple[Mapping[str, Any], ...]  # the arguments' parameters (resolved)
    body: Mapping[str, Any] | None  # the request body's schema
    answer: Mapping[str, Any]  # the 200 answer's schema
    summary: str | None


class Operations:
    """The document's operations by ``operationId``, their ``$ref``s inlined on reading."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.resolver = Resolver(document)
        self.by_id = {spec["operationId"]: (path, method, spec)
                      for path, item in document["paths"].items()
                      for method, spec in item.items()
                      if isinstance(spec, dict) and "operationId" in spec}

    def read(self, served: Served) -> Declared:
        """A catalog entry against its operation."""
        found = self.by_id.get(served.operation)
        if found is None:
            raise LookupError(f"GraphQL field {served.name}: no operation {served.operation}")
        path, method, spec = found
        resolve = self.resolver.resolve
        parameters = tuple(resolve(p) for p in spec.get("parameters") or ())
        content = (spec.get("requestBody") or {}).get("content") or {}
        body = content.get("application/json", {}).get("schema")
        answer = ((spec["responses"].get("200") or {}).get("content") or {}).get(
            "application/json", {}).get("schema") or {}
        operation = Operation(
            method.upper(), path,
            tuple(p["name"] for p in parameters if p["in"] == "path"),
            tuple(p["name"] for p in parameters if p["in"] == "query"),
            LIST_PARAMETERS)
        return Declared(served, operation, parameters, resolve(body) if body else None,
                        resolve(answer), spec.get("summary"))


def _arguments(builder: TypeBuilder, declared: Declared) -> dict[str, GraphQLArgument]:
    served = declared.served
    out: dict[str, GraphQLArgument] = {}
    for parameter in declared.parameters:
        name = parameter["name"]
        if name in catalog.DROPPED_PARAMETERS or name in served.dropped or \
                name == served.bind:
            continue
        argument_name = field_name(served.renamed.get(name, name))
        if name in LIST_PARAMETERS:
            kind: Any = GraphQLList(GraphQLNonNull(GraphQLString))
            out[argument_name] = GraphQLArgument(
                GraphQLNonNull(kind) if parameter.get("required") else kind,
                description=parameter.get("description"))
        else:
            out[argument_name] = builder.argument(parameter)
    if {"cursor", "limit"} <= set(out):
        for relay, rest in RELAY.items():
            out[relay] = GraphQLArgument(out[rest].type, description=(
                f"Relay's name for `{rest}` (give one or the other)"))
    if served.body is not None and declared.body is not None:
        out[served.body] = GraphQLArgument(
            GraphQLNonNull(builder.input(declared.body, pascal(served.name) + "Input")),
            description="The request body of the REST operation, as JSON")
    return out


def _answer_type(builder: TypeBuilder, declared: Declared) -> GraphQLOutputType:
    served = declared.served
    if served.batch == "quotes":  # one quote of the batch's list
        quotes = declared.answer["properties"]["quotes"]
        items = next(b for b in quotes["oneOf"] if b.get("type") == "array")["items"]
        return builder.output(items, served.type_name or pascal(served.name))
    return builder.output(declared.answer, served.type_name or pascal(served.name))


def _converter(declared: Declared) -> Callable[[Any], Any]:
    branches = declared.answer.get("oneOf") or declared.answer.get("anyOf") or ()
    if any(is_connection(b) for b in branches):
        return as_connection
    return lambda data: data


def _resolver(declared: Declared) -> Callable[..., Any]:
    served, operation = declared.served, declared.operation
    convert = _converter(declared)
    body_argument = served.body
    names = {p["name"]: field_name(served.renamed.get(p["name"], p["name"]))
             for p in declared.parameters if p["name"] != served.bind}

    async def resolve(source: Any, info: Any, **arguments: Any) -> Any:
        context: Context = info.context
        body = arguments.pop(body_argument, None) if body_argument else None
        for relay, rest in RELAY.items():
            if relay in arguments:
                if rest in arguments:
                    raise GraphQLError(f"Give '{relay}' or '{rest}', not both",
                                       info.field_nodes, path=info.path.as_list(),
                                       extensions={"code": "BAD_REQUEST", "status": 400,
                                                   "argument": relay})
                arguments[rest] = arguments.pop(relay)
        values = values_of(arguments, served.renamed)
        if served.bind is not None:
            values[served.bind] = source["symbol"]
        try:
            if served.batch == "quotes":
                return await context.quote(operation, source["symbol"], values)
            return convert(await context.fetch(operation.request(values, body)))
        except UpstreamAnswer as exc:
            raise exc.graphql_error(info, names) from None

    return resolve


def _field(builder: TypeBuilder, declared: Declared) -> GraphQLField:
    description = declared.served.description or declared.summary
    return GraphQLField(_answer_type(builder, declared), _arguments(builder, declared),
                        resolve=_resolver(declared), description=description)


def _ticker(source: Any, info: Any, symbol: str) -> dict[str, str]:
    return {"symbol": symbol}


def _tickers(source: Any, info: Any, symbols: list[str]) -> list[dict[str, str]]:
    seen: dict[str, str] = {}
    for symbol in symbols:
        seen.setdefault(symbol.strip().upper(), symbol)
    if not seen or len(seen) > catalog.MAX_TICKERS:
        raise GraphQLError(
            f"Argument 'symbols' takes 1 to {catalog.MAX_TICKERS} symbols; got {len(seen)}",
            info.field_nodes, path=info.path.as_list(),
            extensions={"code": "BAD_REQUEST", "status": 422, "argument": "symbols"})
    return [{"symbol": symbol} for symbol in seen.values()]


@dataclass(frozen=True)
class Built:
    schema: GraphQLSchema
    declared: Mapping[str, Declared]  # "Query.x" / "Ticker.x" -> its operation
    sdl: str


def build(document: Mapping[str, Any], subscription: GraphQLObjectType | None = None) -> Built:
    """The schema of ``document`` (``/openapi.json``)."""
    builder = TypeBuilder()
    operations = Operations(document)
    declared: dict[str, Declared] = {}
    ticker_fields: dict[str, GraphQLField] = {
        "symbol": GraphQLField(GraphQLString, description="The symbol, as asked")}
    for served in catalog.TICKER:
        entry = declared[f"Ticker.{served.name}"] = operations.read(served)
        ticker_fields[served.name] = _field(builder, entry)
    ticker = GraphQLObjectType("Ticker", ticker_fields, description=(
        "One symbol and everything the service knows of it; each field is fetched only "
        "when selected"))
    root: dict[str, GraphQLField] = {
        "ticker": GraphQLField(ticker, {"symbol": GraphQLArgument(
            GraphQLNonNull(GraphQLString), description="Ticker symbol (`AAPL`, `^GSPC`, "
            "`BTC-USD`, `EURUSD=X`)")}, resolve=_ticker, description="One symbol"),
        "tickers": GraphQLField(GraphQLList(ticker), {"symbols": GraphQLArgument(
            GraphQLNonNull(GraphQLList(GraphQLNonNull(GraphQLString))),
            description=f"1 to {catalog.MAX_TICKERS} symbols; duplicates are removed")},
            resolve=_tickers, description="Many symbols at once, in the order asked"),
    }
    for served in catalog.ROOT:
        entry = declared[f"Query.{served.name}"] = operations.read(served)
        root[served.name] = _field(builder, entry)
    query = GraphQLObjectType("Query", root, description=(
        "Read-only market data; every field is a REST operation of /openapi.json"))
    schema = GraphQLSchema(query=query, subscription=subscription)
    return Built(schema, declared, print_schema(schema))
