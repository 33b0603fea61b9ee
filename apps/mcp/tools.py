"""MCP tools generated from the OpenAPI document the service serves at ``/openapi.json``
(:mod:`apps.mcp.server` reads it through the service's own HTTP application).

The document is drf-spectacular's, built from the view declarations (query serializers,
path enums, body serializers, response schemas); the tools are read off it, so a new
operation gets its tool by construction and a tool never says something the document does
not:

- name: the ``operationId`` (already ``[A-Za-z0-9_]``; anything else is replaced by ``_``
  and cut to 64 characters, what the strictest clients accept; a clash is an error);
- title and description: the ``summary`` and ``description``, plus the HTTP route;
- input schema: the path and query parameters (their schemas, descriptions and examples;
  ``required`` as documented), and a JSON request body's members beside them (a member
  named like a query parameter is that parameter, as ``fields`` is; the whole body goes
  under ``body`` instead if a member is named like a path parameter); nothing else is
  accepted (``additionalProperties: false``);
- output schema: the 200 answer's JSON schema with every ``$ref`` resolved in place (a
  recursive one through ``$defs``); an answer that is not an object is wrapped as
  ``{"result": ...}``, since MCP's structured content is an object.

Not tools (:func:`exclusion`): operations whose 200 answer is not JSON (the quote stream is
Server-Sent Events), and the probes (:data:`PROBES`), which tell a load balancer whether
the one process it reached is alive or ready: nothing an agent asks about, and MCP has its
own ``ping``. The health reports (``/v1/health``, ``/v2/health``) are tools: they tell an
agent which upstreams fail and whether the data is synthetic (the sandbox).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from marketdata.errors import FieldError, InvalidParameters

JSON_MEDIA = "application/json"
METHODS = ("get", "post")
# operationId -> why it is not a tool.
PROBES = {
    "readyz": "readiness probe of one process",
    "ping": "liveness probe of one process",
    "get_ping": "liveness probe of one process",
}
BODY_ARGUMENT = "body"
_PLACEHOLDER = re.compile(r"\{([^{}/]+)\}")
RESULT_MEMBER = "result"


# -- which operations are tools --------------------------------------------------------------
def exclusion(operation_id: str, operation: Mapping[str, Any]) -> str | None:
    """Why an operation is not a tool, or None when it is one."""
    if operation_id in PROBES:
        return PROBES[operation_id]
    ok = (operation.get("responses") or {}).get("200") or {}
    if JSON_MEDIA not in (ok.get("content") or {}):
        return "its answer is not JSON (a stream)"
    return None


def tool_name(operation_id: str) -> str:
    """``^[A-Za-z0-9_-]{1,64}$``: what the strictest clients accept (the spec's SEP-986 also
    allows '.' and 128 characters)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", operation_id)[:64] or "_"


# -- $ref resolution ------------------------------------------------------------------------
class _Resolver:
    """Inlines the document's local ``$ref``s; one that refers to itself (directly or not)
    becomes ``#/$defs/<name>``, defined once beside the schema."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self.recursive: dict[str, str] = {}  # $defs name -> pointer

    def target(self, pointer: str) -> Any:
        if not pointer.startswith("#/"):
            raise ValueError(f"only local references are resolved: {pointer}")
        node: Any = self.document
        for part in pointer[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def resolve(self, node: Any, stack: tuple[str, ...] = ()) -> Any:
        if isinstance(node, list):
            return [self.resolve(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        pointer = node.get("$ref")
        if not isinstance(pointer, str):
            return {key: self.resolve(value, stack) for key, value in node.items()}
        siblings = {key: self.resolve(value, stack) for key, value in node.items()
                    if key != "$ref"}
        name = pointer.rsplit("/", 1)[-1]
        if pointer in stack:
            self.recursive[name] = pointer
            return {"$ref": f"#/$defs/{name}", **siblings}
        target = self.resolve(self.target(pointer), (*stack, pointer))
        return {**target, **siblings} if isinstance(target, dict) else target

    def schema(self, node: Any) -> dict[str, Any]:
        """``node`` resolved and tidied, with the ``$defs`` its recursive references need."""
        resolved = _tidy(self.resolve(node))
        defs: dict[str, Any] = {}
        while len(defs) < len(self.recursive):
            for name, pointer in list(self.recursive.items()):
                if name not in defs:
                    defs[name] = _tidy(self.resolve(self.target(pointer), (pointer,)))
        if defs:
            resolved = {**resolved, "$defs": defs}
        self.recursive = {}
        return resolved


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


# -- one tool -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    name: str
    location: str  # "path" or "query"
    kind: str | None  # the schema's type when it is one JSON type ("array", "integer", ...)


@dataclass(frozen=True)
class ApiRequest:
    """The HTTP request a tool call stands for."""

    method: str
    path: str  # decoded, as an ASGI scope's ``path``
    raw_path: bytes  # as sent
    query_string: bytes
    body: bytes | None = None


@dataclass(frozen=True)
class ToolSpec:
    """One operation as a tool: what ``tools/list`` shows and how a call becomes a request."""

    name: str
    operation_id: str
    method: str
    path: str
    title: str | None
    description: str
    params: tuple[Param, ...]
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    wrapped: bool  # the 200 answer is not an object: structured content is {"result": it}
    body: str | None = None  # None (no body), "flat" (members beside the parameters), "nested"
    body_members: frozenset[str] = field(default_factory=frozenset)

    def request(self, arguments: Mapping[str, Any] | None) -> ApiRequest:
        """The HTTP request for these arguments. What cannot be written into one (an unknown
        argument, a missing path parameter, an object where a query value goes) is refused
        here with :class:`InvalidParameters`; everything else is the endpoint's to judge,
        so a bad value gets the endpoint's own answer."""
        arguments = dict(arguments or {})
        errors: list[FieldError] = []
        known = {p.name for p in self.params} | (
            self.body_members if self.body == "flat" else
            {BODY_ARGUMENT} if self.body == "nested" else set())
        for name in arguments:
            if name not in known:
                errors.append(FieldError(name, "Extra inputs are not permitted",
                                         "extra_forbidden", arguments[name]))
        segments: dict[str, str] = {}
        query: list[tuple[str, str]] = []
        for param in self.params:
            value = arguments.get(param.name)
            if param.location == "path":
                if value is None or value == "":
                    errors.append(FieldError(param.name, "Field required", "missing",
                                             location="path"))
                    continue
                text = _scalar_text(value, param)
                if text is None:
                    errors.append(_type_error(param, value))
                    continue
                segments[param.name] = text
            elif value is not None:
                values = value if param.kind == "array" and isinstance(value, list) else [value]
                texts = [_scalar_text(item, param) for item in values]
                if any(text is None for text in texts):
                    errors.append(_type_error(param, value))
                    continue
                query.extend((param.name, text) for text in texts if text is not None)
        if errors:
            raise InvalidParameters(errors)
        # One pass, so a value that looks like a placeholder ("{to}") stays a value.
        path = _PLACEHOLDER.sub(lambda m: segments[m.group(1)], self.path)
        raw_path = _PLACEHOLDER.sub(lambda m: quote(segments[m.group(1)], safe=""), self.path)
        body: bytes | None = None
        if self.body == "flat":
            body = json.dumps({k: v for k, v in arguments.items()
                               if k in self.body_members}).encode()
        elif self.body == "nested":
            body = json.dumps(arguments.get(BODY_ARGUMENT) or {}).encode()
        return ApiRequest(self.method.upper(), path, raw_path.encode("ascii"),
                          urlencode(query).encode("ascii"), body)

    def tool(self) -> Any:
        """The MCP ``Tool`` (``mcp_types.Tool``)."""
        from mcp_types import Tool, ToolAnnotations

        return Tool(name=self.name, title=self.title, description=self.description,
                    input_schema=self.input_schema, output_schema=self.output_schema,
                    # Every operation reads (a backtest or a screen computes, stores nothing).
                    annotations=ToolAnnotations(title=self.title, read_only_hint=True,
                                                destructive_hint=False, idempotent_hint=True,
                                                open_world_hint=True))


def _scalar_text(value: Any, param: Param) -> str | None:
    """A scalar as a URL carries it (booleans as the endpoints read them); None for objects
    and lists."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and param.kind == "integer":
        return str(int(value))
    if isinstance(value, str | int | float):
        return str(value)
    return None


def _type_error(param: Param, value: Any) -> FieldError:
    kind = "string" if param.kind in (None, "array") else param.kind
    return FieldError(param.name, f"Input should be a valid {kind}", f"{kind}_type", value,
                      location=param.location)


def _single_type(schema: Mapping[str, Any]) -> str | None:
    kind = schema.get("type")
    return kind if isinstance(kind, str) else None


def _parameter_schema(parameter: Mapping[str, Any]) -> dict[str, Any]:
    schema = dict(parameter.get("schema") or {})
    if parameter.get("description") and "description" not in schema:
        schema["description"] = parameter["description"]
    if "example" in parameter and "examples" not in schema:
        schema["examples"] = [parameter["example"]]
    return schema


def _hoist(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without its ``$defs``, which move to ``defs`` (the root's: a
    ``#/$defs/...`` reference is read from the root of the schema it is in)."""
    if "$defs" not in schema:
        return schema
    schema = dict(schema)
    defs.update(schema.pop("$defs"))
    return schema


def build_tool(resolver: _Resolver, path: str, method: str,
               operation: Mapping[str, Any]) -> ToolSpec:
    operation_id = operation["operationId"]
    defs: dict[str, Any] = {}  # of the recursive references, at the input schema's root
    properties: dict[str, Any] = {}
    required: list[str] = []
    params: list[Param] = []
    for parameter in resolver.resolve(operation.get("parameters") or []):
        if parameter.get("in") not in ("path", "query"):
            continue  # x-api-key travels as the MCP request's own header
        if parameter.get("x-representation"):
            continue  # `format=csv`: a tool's result is always the JSON
        schema = _hoist(resolver.schema(_parameter_schema(parameter)), defs)
        properties[parameter["name"]] = schema
        params.append(Param(parameter["name"], parameter["in"], _single_type(schema)))
        if parameter.get("required") or parameter["in"] == "path":
            required.append(parameter["name"])
    body: str | None = None
    members: frozenset[str] = frozenset()
    request_body = resolver.resolve(operation.get("requestBody") or {})
    body_schema = (request_body.get("content") or {}).get(JSON_MEDIA, {}).get("schema")
    if body_schema is not None:
        body_schema = _hoist(resolver.schema(body_schema), defs)
        body_properties = body_schema.get("properties") or {}
        path_names = {p.name for p in params if p.location == "path"}
        if body_schema.get("type") == "object" and body_properties and \
                not set(body_properties) & path_names:
            # A member named like a query parameter is that parameter (`fields`: the
            # endpoints read it from either); the argument goes in the query.
            body_properties = {name: schema for name, schema in body_properties.items()
                               if name not in properties}
            body, members = "flat", frozenset(body_properties)
            properties.update(body_properties)
            if request_body.get("required"):
                required.extend(n for n in body_schema.get("required") or () if n not in required)
        else:
            body = "nested"
            properties[BODY_ARGUMENT] = body_schema
            if request_body.get("required"):
                required.append(BODY_ARGUMENT)
    input_schema: dict[str, Any] = {"type": "object", "properties": properties,
                                    "additionalProperties": False}
    if required:
        input_schema["required"] = required
    if defs:
        input_schema["$defs"] = defs
    ok = operation["responses"]["200"]["content"][JSON_MEDIA].get("schema") or {}
    output = resolver.schema(ok)
    wrapped = output.get("type") != "object"
    if wrapped:
        output_defs: dict[str, Any] = {}
        output = {"type": "object", "properties": {RESULT_MEMBER: _hoist(output, output_defs)},
                  "required": [RESULT_MEMBER]}
        if output_defs:
            output["$defs"] = output_defs
    summary = (operation.get("summary") or "").strip() or None
    text = (operation.get("description") or "").strip()
    route = f"HTTP: {method.upper()} {path}"
    description = "\n\n".join(part for part in (summary, text, route) if part)
    return ToolSpec(name=tool_name(operation_id), operation_id=operation_id, method=method,
                    path=path, title=summary, description=description, params=tuple(params),
                    input_schema=input_schema, output_schema=output, wrapped=wrapped,
                    body=body, body_members=members)


def build_tools(document: Mapping[str, Any]) -> dict[str, ToolSpec]:
    """Every operation of ``document`` that is a tool, by tool name (document order)."""
    resolver = _Resolver(document)
    tools: dict[str, ToolSpec] = {}
    for path, item in (document.get("paths") or {}).items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None or exclusion(operation.get("operationId", ""), operation):
                continue
            spec = build_tool(resolver, path, method, operation)
            if spec.name in tools:
                other = tools[spec.name]
                raise ValueError(f"two operations make the tool {spec.name!r}: "
                                 f"{other.method.upper()} {other.path} and "
                                 f"{method.upper()} {path}")
            tools[spec.name] = spec
    return tools
