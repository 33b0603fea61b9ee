"""GraphQL types read off the answers' JSON Schemas in ``/openapi.json``, which are themselves
derived from the records' declarations (:mod:`marketdata.records.members`,
:mod:`apps.core.shapes`): a member is still written once, on its record, and its GraphQL
field has the same name, description and type as its REST member.

The mapping (README, "GraphQL"):

- an object with ``properties`` is an object type; its fields are the members, in the
  answer's order, named as in REST (a name GraphQL cannot spell, ``52WeekChange``, gets a
  leading underscore); an object keyed by data (dates, metric names) is ``JSON``;
- ``integer`` is ``Long`` (64-bit: volumes, market caps and millisecond stamps overflow
  GraphQL's 32-bit ``Int``), ``number`` ``Float``, ``boolean`` ``Boolean``, ``string``
  ``String``, or an enum when every value is a GraphQL name (the same text as REST: an enum
  value serialises as its name), ``array`` a list;
- a number in Yahoo's forms (``number | string | object``, chosen by REST's ``format``) is
  ``Float``: GraphQL always asks for the raw number; any other union of types is ``JSON``;
- a list REST gives bare or as a connection (``oneOf``) is the connection: a Relay
  connection ``{edges {cursor node}, nodes, pageInfo}`` with REST's cursors.

Every field is nullable: a member REST declares present may still be null upstream, and a
non-null field that resolves to null would null its parent too. Types whose JSON Schemas are
equal are one type, named after the first field that needs it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from graphql import (
    GraphQLArgument,
    GraphQLBoolean,
    GraphQLEnumType,
    GraphQLEnumValue,
    GraphQLField,
    GraphQLFloat,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLInt,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLString,
)
from graphql.language import ast

from apps.core.cursors import encode_cursor
from apps.core.v2 import connection
from marketdata.records.market import FORMATTED_NUMBER

NAME = re.compile(r"^[_A-Za-z][_0-9A-Za-z]*$")
_FORMATTED = {"number", "string", "object"}


# -- scalars -----------------------------------------------------------------------------
def _long(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise TypeError(f"Long cannot represent a non-integer value: {value!r}")
    return int(value)


def _long_literal(node: ast.ValueNode, _variables: Any = None) -> int:
    if not isinstance(node, ast.IntValueNode):
        raise TypeError("Long cannot represent a non-integer literal")
    return int(node.value)


Long = GraphQLScalarType(
    "Long", description="A whole number of up to 64 bits (volumes, market caps, Unix "
    "milliseconds), written as a JSON number", serialize=_long, parse_value=_long,
    parse_literal=_long_literal)


def _json_literal(node: ast.ValueNode, variables: Any = None) -> Any:
    from graphql import value_from_ast_untyped

    return value_from_ast_untyped(node, variables)


JSON = GraphQLScalarType(
    "JSON", description="Any JSON value, as the REST answer writes it: an object keyed by "
    "data (dates, metric names) or a member of several forms",
    serialize=lambda value: value, parse_value=lambda value: value,
    parse_literal=_json_literal)

PageInfo = GraphQLObjectType("PageInfo", lambda: {
    "startCursor": GraphQLField(GraphQLString, description="Cursor of the first edge"),
    "endCursor": GraphQLField(GraphQLString, description=(
        "Cursor of the last edge: the `cursor` argument for the next page")),
    "hasNextPage": GraphQLField(GraphQLBoolean),
    "hasPreviousPage": GraphQLField(GraphQLBoolean),
}, description="Where a page of a connection lies in the whole list (Relay)")


# -- names -------------------------------------------------------------------------------
def pascal(text: str) -> str:
    """``market-cap_rank`` -> ``MarketCapRank``."""
    parts = re.split(r"[^0-9A-Za-z]+", text)
    return "".join(part[:1].upper() + part[1:] for part in parts if part)


def field_name(member: str) -> str:
    """A member's GraphQL field name: itself, or made a name (``52WeekChange`` ->
    ``_52WeekChange``)."""
    if NAME.match(member):
        return member
    name = re.sub(r"[^_0-9A-Za-z]", "_", member)
    return name if NAME.match(name) else "_" + name


_SAME = ("news", "series", "analysis", "status", "data")


def singular(name: str) -> str:
    """The name of one item of a list member (``ChartCandles`` -> ``ChartCandle``)."""
    if name.lower().endswith(_SAME):
        return name + "Item"
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    return name + "Item"


def _key(schema: Any) -> str:
    return json.dumps(schema, sort_keys=True, default=str)


def _types(schema: Mapping[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, list):
        return [k for k in kind if k != "null"]
    return [kind] if isinstance(kind, str) else []


def is_connection(schema: Any) -> bool:
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    return isinstance(props, Mapping) and "edges" in props and "pageInfo" in props


# A ``patternProperties`` key matching one name only: ``^d$`` (apps.core.schema.exact_pattern).
_EXACT = re.compile(r"^\^((?:[^\\^$.|?*+()\[\]{}/]|\\[\\^$.|?*+()\[\]{}/])*)\$$")


def with_exact_patterns(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """``schema`` with the members the document declares by an exact ``patternProperties``
    (names a code generator cannot take, ``d`` of ``stochastic``: apps.core.schema) among
    its ``properties``, after them, as the answer writes them."""
    patterns = schema.get("patternProperties")
    if not isinstance(patterns, Mapping):
        return schema
    exact = {}
    for pattern, sub in patterns.items():
        match = _EXACT.match(pattern)
        if match is not None:
            exact[re.sub(r"\\(.)", r"\1", match.group(1))] = sub
    if not exact:
        return schema
    rest = {key: value for key, value in schema.items() if key != "patternProperties"}
    return {**rest, "properties": {**(schema.get("properties") or {}), **exact}}


def _branches(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(schema.get("oneOf") or schema.get("anyOf") or ())


class OnePage(Mapping[str, Any]):
    """The one-page connection of a whole list, as :func:`apps.core.v2.connection` makes it,
    with its edges made only when they are selected: a year of candles asked for as
    ``nodes`` costs no cursor (~0.8 ms a chart)."""

    __slots__ = ("_edges", "items")
    KEYS = ("edges", "nodes", "pageInfo")

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self._edges: list[dict[str, Any]] | None = None

    def __getitem__(self, key: str) -> Any:
        if key == "nodes":
            return self.items
        if key == "edges":
            if self._edges is None:
                self._edges = connection(self.items, 0, False)["edges"]
            return self._edges
        if key == "pageInfo":
            last = len(self.items) - 1
            return {"startCursor": encode_cursor(0) if self.items else None,
                    "endCursor": encode_cursor(last) if self.items else None,
                    "hasNextPage": False, "hasPreviousPage": False}
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.KEYS)

    def __len__(self) -> int:
        return len(self.KEYS)


def as_connection(value: Any) -> Any:
    """A list REST gave bare (no ``cursor``/``limit`` asked) as the one-page connection it
    would have given with them: the same cursors."""
    if isinstance(value, list):
        return OnePage(value)
    return value


class TypeBuilder:
    """Builds (and shares) the GraphQL types of JSON Schemas, the document's ``$ref``s
    already inlined (:class:`apps.core.openapi.Resolver`)."""

    def __init__(self) -> None:
        self.objects: dict[str, GraphQLObjectType] = {}  # by structure
        self.enums: dict[str, GraphQLEnumType] = {}
        self.inputs: dict[str, GraphQLInputObjectType] = {}
        self.names: set[str] = {"PageInfo", "Long", "JSON", "Query", "Ticker", "Subscription"}

    def _name(self, wanted: str) -> str:
        name, n = wanted or "Answer", 2
        while name in self.names:
            name, n = f"{wanted}{n}", n + 1
        self.names.add(name)
        return name

    # -- output ----------------------------------------------------------------------------
    def output(self, schema: Any, hint: str) -> GraphQLOutputType:
        """The output type of ``schema``; ``hint`` names a new object type (PascalCase)."""
        if not isinstance(schema, Mapping) or not schema:
            return JSON
        schema = with_exact_patterns(schema)
        branches = _branches(schema)
        if branches:
            connections = [b for b in branches if is_connection(b)]
            if connections:
                return self.output(connections[0], hint)
            real = [b for b in branches if _types(b) != [] or b.get("properties")]
            if len(real) == 1:
                return self.output(real[0], hint)
            return JSON
        kinds = _types(schema)
        if len(kinds) > 1:
            return GraphQLFloat if set(kinds) == _FORMATTED else JSON
        kind = kinds[0] if kinds else ("object" if "properties" in schema else None)
        if kind == "object":
            if not schema.get("properties"):
                return JSON
            return self.object(schema, hint)
        if kind == "array":
            return GraphQLList(self.output(schema.get("items") or {}, singular(hint)))
        if kind == "string":
            return self.enum(schema, hint) or GraphQLString
        if kind == "integer":
            return Long
        if kind == "number":
            return GraphQLFloat
        if kind == "boolean":
            return GraphQLBoolean
        return JSON

    def enum(self, schema: Mapping[str, Any], hint: str) -> GraphQLEnumType | None:
        values = [v for v in schema.get("enum") or () if v is not None]
        if not values or not all(isinstance(v, str) and NAME.match(v) for v in values) \
                or any(v in ("true", "false", "null") for v in values):
            return None
        key = _key(sorted(values))
        found = self.enums.get(key)
        if found is None:
            found = self.enums[key] = GraphQLEnumType(
                self._name(hint), {v: GraphQLEnumValue(v) for v in values})
        return found

    def object(self, schema: Mapping[str, Any], hint: str) -> GraphQLObjectType:
        """An object type; a connection is ``<Item>Connection`` of ``<Item>Edge``s."""
        properties: Mapping[str, Any] = schema["properties"]
        key = _key({k: v for k, v in schema.items() if k != "description"})
        found = self.objects.get(key)
        if found is not None:
            return found
        connection_type = is_connection(schema)
        item = singular(hint)
        name = self._name(item + "Connection" if connection_type else hint)
        edge = set(properties) == {"cursor", "node"}
        fields: dict[str, GraphQLField] = {}

        def inner(member: str) -> str:
            if connection_type and member == "edges":
                return item + "Edges"
            if connection_type and member == "nodes":
                return hint
            if edge and member == "node":
                return hint.removesuffix("Edge")
            return hint + pascal(member)

        def build() -> dict[str, GraphQLField]:
            if not fields:
                for member, sub in properties.items():
                    if connection_type and member == "pageInfo":
                        fields[member] = GraphQLField(PageInfo,
                                                      description=sub.get("description"))
                    else:
                        fields[field_name(member)] = self.field(sub, inner(member), member)
            return fields

        found = self.objects[key] = GraphQLObjectType(
            name, build, description=schema.get("description"))
        return found

    def field(self, schema: Mapping[str, Any], hint: str, member: str) -> GraphQLField:
        """The field of one member; a list REST may give bare becomes its connection."""
        description = schema.get("description")
        if set(_types(schema)) == _FORMATTED and description:
            # GraphQL asks for the raw number: what ``format`` would make of it is moot.
            description = description.replace(FORMATTED_NUMBER, "").strip(" .") or None
        branches = _branches(schema)
        if branches and any(is_connection(b) for b in branches):
            resolve = _member_resolver(member, as_connection)
        else:
            resolve = _member_resolver(member) if field_name(member) != member else None
        return GraphQLField(self.output(schema, hint), description=description,
                            resolve=resolve)

    # -- input -----------------------------------------------------------------------------
    def input(self, schema: Any, hint: str) -> GraphQLInputType:
        """The input type of a request body's (or a parameter's) schema."""
        if not isinstance(schema, Mapping) or not schema:
            return JSON
        branches = _branches(schema)
        if branches:
            real = [b for b in branches if _types(b)]
            return self.input(real[0], hint) if len(real) == 1 else JSON
        kinds = _types(schema)
        kind = kinds[0] if len(kinds) == 1 else ("object" if "properties" in schema and
                                                 not kinds else None)
        if kind == "object":
            properties = schema.get("properties")
            if not properties:
                return JSON
            key = _key(schema)
            found = self.inputs.get(key)
            if found is None:
                required = set(schema.get("required") or ())
                fields = {}
                for member, sub in properties.items():
                    inner = self.input(sub, hint + pascal(member))
                    if member in required and "null" not in (sub.get("type") or []):
                        inner = GraphQLNonNull(inner)
                    fields[field_name(member)] = GraphQLInputField(
                        inner, description=sub.get("description"), out_name=member)
                found = self.inputs[key] = GraphQLInputObjectType(
                    self._name(hint), fields, description=schema.get("description"))
            return found
        if kind == "array":
            return GraphQLList(self.input(schema.get("items") or {}, singular(hint)))
        if kind == "integer":
            maximum = schema.get("maximum")
            small = isinstance(maximum, int) and maximum < 2 ** 31
            return GraphQLInt if small else Long
        return {"string": GraphQLString, "number": GraphQLFloat,
                "boolean": GraphQLBoolean}.get(kind or "", JSON)

    def argument(self, parameter: Mapping[str, Any], required: bool | None = None
                 ) -> GraphQLArgument:
        """A REST query parameter as a field argument: the same values (aliases included,
        checked by REST), so a string stays a string."""
        schema = parameter.get("schema") or {}
        kind = self.input(schema, pascal(parameter["name"]))
        if required if required is not None else parameter.get("required"):
            kind = GraphQLNonNull(kind)
        return GraphQLArgument(kind, description=parameter.get("description"))


def _member_resolver(member: str, convert: Callable[[Any], Any] | None = None
                     ) -> Callable[..., Any]:
    def resolve(source: Any, _info: Any, **_args: Any) -> Any:
        value = source.get(member) if isinstance(source, Mapping) else None
        return convert(value) if convert is not None else value
    # What the executor's shortcut reads instead of calling it (apps.graphql.executor).
    resolve.member = member if convert is None else None  # type: ignore[attr-defined]
    return resolve
