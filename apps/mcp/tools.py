"""The MCP tools: the declarations of :mod:`apps.mcp.catalog` made concrete with the
OpenAPI document the service serves at ``/openapi.json`` (:mod:`apps.mcp.server` reads it
through the service's own HTTP application).

- **Argument schemas** are the document's parameter schemas (types, enums, bounds,
  defaults), with every ``$ref`` resolved, shortened for an agent's context: the enum value
  lines of descriptions, long patterns (opaque cursors) and examples dropped, a description
  cut to its first sentence unless the declaration gives one. Every string has a
  ``maxLength`` (the document's, else :data:`STRING_MAX_LENGTH`), every list a
  ``maxItems``; no ``$ref``; nothing undeclared is accepted.
- **Arguments are checked, not coerced** (:meth:`ToolSpec.request`): against the schema
  (a number where a symbol goes is refused, naming the argument), then against the chosen
  route (an argument its operation does not take is refused), then the URL they make
  against ``REQUEST_URL_MAX_BYTES``, as the HTTP front would. A refusal is
  :class:`ArgumentsRefused`; the server answers it with a JSON-RPC error.
- **Answers are bounded** (:func:`answer_content`): a connection's ``edges`` are dropped
  (``nodes`` and ``pageInfo`` carry the same items and the cursor to go on), and an answer
  over :data:`RESULT_MAX_BYTES` is a tool error that says how to ask for less.
- **No output schemas**: measured, compact ones (members and types two levels deep, no
  descriptions) took ``tools/list`` from 48 KB to 65 KB (+36 %, over the 60 KB budget) and
  tell an agent less than one answer does; the full ones were 70 % of the old 895 KB list.
  An answer is JSON text, and the same as structured content for programs; what each tool
  answers is the resource ``marketdata://answers/{tool}`` (:mod:`apps.mcp.answers`).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from apps.core.inprocess import ApiRequest
from apps.core.refs import Resolver
from apps.mcp.catalog import PRESENT, TOOLS, Arg, Declared, Route

JSON_MEDIA = "application/json"
METHODS = ("get", "post")
RESULT_MEMBER = "result"
# One tool result's text at most: 25,000 tokens at ~4 bytes each (Claude Code's default
# limit for one tool result is 25,000 tokens).
RESULT_MAX_BYTES = 100_000
STRING_MAX_LENGTH = 1000  # a string argument the document does not bound
LIST_MAX_ITEMS = 100  # a list argument the document does not bound
_PLACEHOLDER = re.compile(r"\{([^{}/]+)\}")
_LONG_PATTERN = 100  # characters: a pattern this long tells an agent nothing


# -- $ref resolution ------------------------------------------------------------------------
# drf-spectacular lists an enum's values in its description ("* `1d` - 1d"): the schema's
# enum already says it, and an agent reads every tool's schemas into its context.
_ENUM_LINE = re.compile(r"^\* `([^`]*)` - \1$")
_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "example",
                          "readOnly", "writeOnly", "deprecated"})


def _tidy(node: Any) -> Any:
    """The same schema, shorter: a lone ``allOf`` member merged into its node (what
    drf-spectacular writes to describe a referenced enum) and the enum value lines of
    descriptions dropped."""
    if isinstance(node, list):
        return [_tidy(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _tidy(value) for key, value in node.items()}
    parts = node.get("allOf")
    if isinstance(parts, list) and len(parts) == 1 and isinstance(parts[0], dict) \
            and not set(parts[0]) & (set(node) - _ANNOTATIONS):
        node = {**parts[0], **{k: v for k, v in node.items() if k != "allOf"}}
    text = node.get("description")
    if isinstance(text, str) and isinstance(node.get("enum"), list):
        text = "\n".join(line for line in text.splitlines()
                         if not _ENUM_LINE.match(line)).strip()
        if text:
            node["description"] = text
        else:
            del node["description"]
    return node


# -- schemas ----------------------------------------------------------------------------------
def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    end = re.search(r"[.;](\s|$)", text)
    return (text[:end.start()] if end else text)[:200]


def _compact(schema: Any) -> Any:
    """A schema as an agent reads it: no examples, no long patterns, no noise."""
    if isinstance(schema, list):
        return [_compact(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("example", "examples", "title", "readOnly", "writeOnly", "x-representation"):
            continue
        if key == "pattern" and isinstance(value, str) and len(value) > _LONG_PATTERN:
            continue
        if key == "minLength" and "enum" in schema:
            continue
        if key == "description" and isinstance(value, str):
            value = _first_sentence(value)
            if not value:
                continue
        out[key] = _compact(value)
    return out


def _bounded(schema: dict[str, Any]) -> dict[str, Any]:
    """Every string with a ``maxLength`` and every list with a ``maxItems``, at any depth:
    what the HTTP interface bounds by its URL and body limits, said where a caller reads."""
    kind = schema.get("type")
    if kind == "string" and "enum" not in schema:
        schema.setdefault("maxLength", STRING_MAX_LENGTH)
    if kind == "array":
        schema.setdefault("maxItems", LIST_MAX_ITEMS)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _bounded(schema[key])
    for sub in (schema.get("properties") or {}).values():
        if isinstance(sub, dict):
            _bounded(sub)
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key) or ():
            if isinstance(sub, dict):
                _bounded(sub)
    return schema


# -- operations -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Operation:
    """What a tool needs of one HTTP operation of the document."""

    operation_id: str
    method: str
    path: str
    params: Mapping[str, str]  # name -> "path" or "query"
    schemas: Mapping[str, dict[str, Any]]  # parameters' and body members' schemas, resolved
    body_members: frozenset[str] = frozenset()
    # Its 200 answer's JSON schema as the document writes it ($refs unresolved): what
    # apps.mcp.answers outlines.
    answer_schema: Mapping[str, Any] | None = None

    def takes(self, name: str) -> bool:
        return name in self.params or name in self.body_members


def _parameter_schema(parameter: Mapping[str, Any]) -> dict[str, Any]:
    schema = dict(parameter.get("schema") or {})
    if parameter.get("description") and "description" not in schema:
        schema["description"] = parameter["description"]
    return schema


def read_operations(document: Mapping[str, Any]) -> dict[str, Operation]:
    """Every operation of ``document`` by its operationId."""
    resolver = Resolver(document)
    operations: dict[str, Operation] = {}
    for path, item in (document.get("paths") or {}).items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None or "operationId" not in operation:
                continue
            params: dict[str, str] = {}
            schemas: dict[str, dict[str, Any]] = {}
            for parameter in resolver.resolve(operation.get("parameters") or []):
                if parameter.get("in") not in ("path", "query") or \
                        parameter.get("x-representation"):
                    continue  # x-api-key is the MCP request's header; `format`: always JSON
                params[parameter["name"]] = parameter["in"]
                schemas[parameter["name"]] = _parameter_schema(parameter)
            members: set[str] = set()
            body = resolver.resolve(operation.get("requestBody") or {})
            body_schema = (body.get("content") or {}).get(JSON_MEDIA, {}).get("schema")
            if body_schema is not None:
                body_schema = resolver.resolve(body_schema)
                for name, schema in (body_schema.get("properties") or {}).items():
                    if name not in params and name != "format":
                        members.add(name)
                        schemas[name] = schema
            answer = ((operation.get("responses") or {}).get("200") or {}).get("content") or {}
            operations[operation["operationId"]] = Operation(
                operation["operationId"], method.upper(), path, params, schemas,
                frozenset(members), answer.get(JSON_MEDIA, {}).get("schema"))
    return operations


# -- refusals -------------------------------------------------------------------------------
class ArgumentsRefused(Exception):
    """Arguments no request is made of: ``errors`` as (argument, message) pairs."""

    def __init__(self, tool: str, errors: list[tuple[str, str]]) -> None:
        self.tool = tool
        self.errors = errors
        super().__init__(f"Invalid arguments for {tool}: " + "; ".join(
            f"{name}: {message}" if name else message for name, message in errors))

    def data(self) -> dict[str, Any]:
        return {"tool": self.tool, "errors": [{"argument": name or None, "message": message}
                                              for name, message in self.errors]}


def _where(path: Any) -> str:
    """``symbols[0]`` for jsonschema's deque of path parts."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _message(error: Any) -> tuple[str, str]:
    """(argument, message) of a jsonschema error, never echoing more than 40 characters of
    what was sent."""
    where = _where(error.absolute_path)
    validator, expected = error.validator, error.validator_value
    if validator == "required":
        missing = next((n for n in expected if n not in (error.instance or {})), "")
        return (_where([*error.absolute_path, missing]), "required")
    if validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties") or {}))
        names = ", ".join(_short(name)[1:-1] for name in extra[:5])
        return (where, f"unknown argument{'s' if len(extra) > 1 else ''}: {names}")
    if validator == "type":
        return (where, f"expected {expected}, got {_short(error.instance)}")
    if validator == "enum":
        return (where, f"{_short(error.instance)} is not one of {', '.join(map(str, expected))}")
    if validator in ("maxLength", "minLength"):
        return (where, f"{len(error.instance)} characters; "
                       f"{'at most' if validator == 'maxLength' else 'at least'} {expected}")
    if validator in ("maxItems", "minItems"):
        return (where, f"{len(error.instance)} items; "
                       f"{'at most' if validator == 'maxItems' else 'at least'} {expected}")
    if validator in ("maximum", "minimum"):
        return (where, f"{_short(error.instance)}; "
                       f"{'at most' if validator == 'maximum' else 'at least'} {expected}")
    return (where, error.message if len(error.message) <= 200 else error.message[:197] + "...")


# -- one tool -------------------------------------------------------------------------------
@dataclass(frozen=True)
class ToolSpec:
    """One declared tool with its operations: what ``tools/list`` shows and how a call
    becomes a request."""

    declared: Declared
    input_schema: dict[str, Any]
    operations: Mapping[str, Operation]
    url_max_bytes: int
    validator: Any = field(compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.declared.name

    @property
    def title(self) -> str:
        return self.declared.title

    @property
    def description(self) -> str:
        return self.declared.description

    def route(self, arguments: Mapping[str, Any]) -> Route:
        """The first route whose conditions the arguments meet."""
        for route in self.declared.routes:
            if all(_meets(arguments, name, wanted, self.input_schema)
                   for name, wanted in route.when.items()):
                return route
        raise ArgumentsRefused(self.name, [("", "no operation takes these arguments")])

    def request(self, arguments: Mapping[str, Any] | None) -> ApiRequest:
        """The HTTP request for these arguments; :class:`ArgumentsRefused` when they are
        not what the schema says or the chosen operation takes."""
        arguments = dict(arguments or {})
        errors = sorted({_message(error) for error in self.validator.iter_errors(arguments)})
        if errors:
            raise ArgumentsRefused(self.name, errors)
        route = self.route(arguments)
        operation = self.operations[route.operation]
        values: dict[str, Any] = {}
        refused: list[tuple[str, str]] = []
        for arg in self.declared.args:
            name = route.params.get(arg.name, arg.http_name)
            if arg.name in arguments and arguments[arg.name] is not None:
                if arg.selector:
                    continue
                if not operation.takes(name):
                    refused.append((arg.name, "does not apply with these arguments"
                                    f" ({_describe(route)})"))
                    continue
                values[name] = arguments[arg.name]
            elif arg.default is not None and not arg.selector and operation.takes(name):
                values[name] = arg.default
        for name, value in route.defaults.items():
            values.setdefault(name, value)
        for name, location in operation.params.items():
            if location == "path" and values.get(name) in (None, ""):
                argument = next((a.name for a in self.declared.args
                                 if route.params.get(a.name, a.http_name) == name), name)
                refused.append((argument, "required" + (f" ({_describe(route)})"
                                                        if route.when else "")))
        if refused:
            raise ArgumentsRefused(self.name, refused)
        return self._http_request(operation, values)

    def _http_request(self, operation: Operation, values: Mapping[str, Any]) -> ApiRequest:
        segments: dict[str, str] = {}
        query: list[tuple[str, str]] = []
        body: dict[str, Any] = {}
        for name, value in values.items():
            location = operation.params.get(name)
            if location == "path":
                segments[name] = _text(value)
            elif location == "query":
                query.append((name, ",".join(map(_text, value)) if isinstance(value, list)
                              else _text(value)))
            else:
                body[name] = value
        # One pass, so a value that looks like a placeholder ("{to}") stays a value.
        path = _PLACEHOLDER.sub(lambda m: segments[m.group(1)], operation.path)
        raw_path = _PLACEHOLDER.sub(lambda m: quote(segments[m.group(1)], safe=""),
                                    operation.path).encode("ascii")
        query_string = urlencode(query).encode("ascii")
        size = len(raw_path) + 1 + len(query_string)
        if size > self.url_max_bytes:
            raise ArgumentsRefused(self.name, [("", (
                f"the request these arguments make has a {size}-byte URL, over the "
                f"{self.url_max_bytes}-byte limit of the HTTP interface; ask for less"))])
        data = json.dumps(body).encode() if operation.body_members else None
        return ApiRequest(operation.method, path, raw_path, query_string, data)

    def tool(self) -> Any:
        """The MCP ``Tool`` (``mcp_types.Tool``)."""
        from mcp_types import Tool, ToolAnnotations

        return Tool(name=self.name, title=self.title, description=self.description,
                    input_schema=self.input_schema,
                    # Every tool reads: a backtest or a screen computes, stores nothing.
                    annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                                idempotent_hint=True,
                                                open_world_hint=self.declared.upstream))


def _meets(arguments: Mapping[str, Any], name: str, wanted: Any,
           schema: Mapping[str, Any]) -> bool:
    value = arguments.get(name)
    if wanted == PRESENT:
        return value is not None
    if value is None:
        value = (schema["properties"].get(name) or {}).get("default")
    return bool(value == wanted)


def _describe(route: Route) -> str:
    return ", ".join(f"{name} given" if wanted == PRESENT else f"{name}={wanted}"
                     for name, wanted in route.when.items()) or "the default route"


def _text(value: Any) -> str:
    """A scalar as a URL carries it (booleans as the endpoints read them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _argument_schema(arg: Arg, declared: Declared,
                     operations: Mapping[str, Operation]) -> dict[str, Any]:
    if arg.schema is not None:
        schema = copy.deepcopy(dict(arg.schema))
    else:
        for route in declared.routes:
            operation = operations[route.operation]
            name = route.params.get(arg.name, arg.http_name)
            if name in operation.schemas:
                schema = _compact(_tidy(operation.schemas[name]))
                break
        else:
            raise ValueError(f"{declared.name}: no operation of its routes takes {arg.name!r}")
    if arg.doc:
        schema["description"] = arg.doc
    if arg.default is not None:
        schema["default"] = arg.default
    return _bounded(schema)


def build_tool(declared: Declared, operations: Mapping[str, Operation],
               url_max_bytes: int) -> ToolSpec:
    from jsonschema import Draft202012Validator

    for route in declared.routes:
        if route.operation not in operations:
            raise ValueError(f"{declared.name}: no operation {route.operation!r}")
    properties = {arg.name: _argument_schema(arg, declared, operations)
                  for arg in declared.args}
    required = [arg.name for arg in declared.args if arg.required]
    schema: dict[str, Any] = {"type": "object", "properties": properties,
                              "additionalProperties": False}
    if required:
        schema["required"] = required
    Draft202012Validator.check_schema(schema)
    return ToolSpec(declared, schema, {r.operation: operations[r.operation]
                                       for r in declared.routes},
                    url_max_bytes, Draft202012Validator(schema))


def build_tools(document: Mapping[str, Any], url_max_bytes: int = 8192,
                catalog: tuple[Declared, ...] = TOOLS) -> dict[str, ToolSpec]:
    """The tools of ``catalog`` made with the operations of ``document``, by name."""
    operations = read_operations(document)
    tools: dict[str, ToolSpec] = {}
    for declared in catalog:
        if declared.name in tools:
            raise ValueError(f"two tools named {declared.name!r}")
        tools[declared.name] = build_tool(declared, operations, url_max_bytes)
    return tools


# -- answers --------------------------------------------------------------------------------
def without_edges(data: Any) -> Any:
    """``data`` with each connection's ``edges`` dropped: its ``nodes`` are the same items,
    and ``pageInfo.endCursor`` goes on (a per-item cursor is of no use to an agent)."""
    if isinstance(data, list):
        return [without_edges(item) for item in data]
    if not isinstance(data, dict):
        return data
    connection = "edges" in data and "nodes" in data and "pageInfo" in data
    return {key: without_edges(value) for key, value in data.items()
            if not (connection and key == "edges")}
