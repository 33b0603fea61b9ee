"""OpenAPI: what ``fields`` can remove, stated once for every v2 operation that takes it.

``fields`` (apps.core.v2) keeps the requested members of the selected objects plus the view's
``Output.always``; so a member ``fields`` can remove cannot be ``required`` in the 200 schema,
or a validator (openapi-core, a generated client) rejects the very answers ``fields``
produces. This post-processing hook reads each v2 view's own ``output`` declaration and:

- drops the removable members (``members`` less ``always``) from ``required`` in the selected
  objects of the 200 schema, found by following ``Output.at`` (lists entered item by item,
  a paged list's connection through its ``nodes`` and ``edges[].node``, every ``oneOf`` /
  ``anyOf`` / ``allOf`` alternative);
- lets null be the value of every selectable member the schema did not require: the data
  may lack it (``events`` without ``events=true``), and a requested member is then present
  as null (``select``);
- adds to the ``fields`` parameter ``x-fields`` (the selectable names) and
  ``x-fields-always`` (those present whatever is asked), and says both in its description.

Schemas are copied on the way before they change: a schema object shared with another
operation (or a component) keeps its own ``required``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

FIELDS = "fields"
# Keywords that a null never fails (checked only for values of the types they apply to):
# adding "null" to such a schema's type is enough.
_SIMPLE = {"type", "description", "title", "format", "pattern", "minLength", "maxLength",
           "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
           "example", "examples", "default", "readOnly", "deprecated", "items",
           "prefixItems", "minItems", "maxItems", "uniqueItems", "properties", "required",
           "additionalProperties", "minProperties", "maxProperties"}
_COMBINATORS = ("oneOf", "anyOf", "allOf")
_CONNECTION = {"edges", "nodes", "pageInfo"}


def postprocess_fields(result: dict[str, Any], generator: Any, request: Any, public: bool,
                       **kwargs: Any) -> dict[str, Any]:
    """For each operation of a view declaring ``output.members`` (see module docstring)."""
    from apps.core.v2 import V2ApiView

    paths = result.get("paths", {})
    components = result.get("components", {}).get("schemas", {})
    for path, _regex, method, callback in generator.endpoints or ():
        view = getattr(callback, "cls", None)
        if not (isinstance(view, type) and issubclass(view, V2ApiView)):
            continue
        output = view.output
        operation = paths.get(path, {}).get(method.lower())
        if not output.members or not isinstance(operation, dict):
            continue
        removable = [m for m in dict.fromkeys(output.members) if m not in output.always]
        _describe_parameter(operation, removable, output.always)
        selection = _Selection(frozenset(removable),
                               frozenset((*output.members, *output.always)))
        content = operation.get("responses", {}).get("200", {}).get("content", {})
        for media in content.values():
            if isinstance(media, dict) and "schema" in media:
                media["schema"] = _relax(media["schema"], output.at, selection, components)
    return result


def _describe_parameter(operation: dict[str, Any], selectable: list[str],
                        always: Iterable[str]) -> None:
    parameters = operation.get("parameters", [])
    for position, parameter in enumerate(parameters):
        if parameter.get("in") != "query" or parameter.get("name") != FIELDS:
            continue
        always = list(always)
        text = f"Selectable members: {', '.join(f'`{m}`' for m in selectable)}"
        extensions: dict[str, Any] = {"x-fields": list(selectable)}
        if always:
            extensions["x-fields-always"] = always
            text += f"; always present: {', '.join(f'`{m}`' for m in always)}"
        base = parameter.get("description", "").rstrip(". ")
        # A copy: the parameter object may be another operation's too.
        parameters[position] = {
            **parameter, **extensions,
            "description": f"{base}. {text}. The 200 schema requires none of the selectable "
                           "members, since `fields` can leave them out"}


@dataclass(frozen=True)
class _Selection:
    removable: frozenset[str]  # what `fields` can leave out
    present: frozenset[str]  # what `fields` can ask for (and `always`): null when absent


def _relax(node: Any, at: tuple[str, ...], selection: _Selection,
           components: dict[str, Any]) -> Any:
    """``node`` (copied where it changes) with, in the objects ``at`` leads to, the
    removable members out of ``required`` and null allowed for the optional ones."""
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        # A component is shared: inline a copy where it changes, leave the component be.
        target = components.get(ref.rsplit("/", 1)[1])
        if target is None:
            return node
        relaxed = _relax(target, at, selection, components)
        if relaxed is target:
            return node
        return {**{k: v for k, v in node.items() if k != "$ref"}, **copy.deepcopy(relaxed)}
    out = node
    for key in _COMBINATORS:
        if isinstance(node.get(key), list):
            alternatives = [_relax(alt, at, selection, components) for alt in node[key]]
            if any(a is not b for a, b in zip(alternatives, node[key], strict=True)):
                out = {**out, key: alternatives}
    if isinstance(node.get("items"), dict):  # a list: each item
        items = _relax(node["items"], at, selection, components)
        if items is not node["items"]:
            out = {**out, "items": items}
    properties = node.get("properties")
    if not isinstance(properties, dict):
        return out
    if set(properties) == _CONNECTION:  # a paged list: its nodes and each edge's node
        return _with_properties(out, {
            "nodes": _relax(properties["nodes"], at, selection, components),
            "edges": _relax(properties["edges"], ("node", *at), selection, components)})
    if at:
        head, rest = at[0], at[1:]
        if head not in properties:
            return out
        return _with_properties(out, {head: _relax(properties[head], rest, selection,
                                                   components)})
    required = node.get("required")
    required = required if isinstance(required, list) else []
    optional = {name: _or_null(properties[name]) for name in selection.present
                if name in properties and name not in required}
    out = _with_properties(out, optional)
    if selection.removable.intersection(required):
        out = {**out, "required": [r for r in required if r not in selection.removable]}
        if not out["required"]:
            del out["required"]
    return out


def _or_null(schema: Any) -> Any:
    """``schema`` admitting null too (the same object when it already does)."""
    if not isinstance(schema, dict) or not schema:
        return schema  # {} admits anything
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return schema
    if isinstance(kind, str) and set(schema) <= _SIMPLE:
        return {**schema, "type": [kind, "null"]}
    for key in ("anyOf", "oneOf"):
        alternatives = schema.get(key)
        if not isinstance(alternatives, list):
            continue
        if any(isinstance(alt, dict) and alt.get("type") == "null" for alt in alternatives):
            return schema
        # One more alternative keeps the union's shape; for oneOf only where no other one
        # admits null (each has a type without it), or null would match twice.
        if key == "anyOf" or all(_typed_without_null(alt) for alt in alternatives):
            return {**schema, key: [*alternatives, {"type": "null"}]}
    # Any other schema (a $ref, a union, an object with members): itself or null.
    notes = {k: schema[k] for k in ("description", "title") if k in schema}
    rest = {k: v for k, v in schema.items() if k not in notes}
    return {**notes, "anyOf": [rest, {"type": "null"}]}


def _with_properties(node: dict[str, Any], changed: dict[str, Any]) -> dict[str, Any]:
    properties = node["properties"]
    if all(changed[name] is properties[name] for name in changed):
        return node
    return {**node, "properties": {**properties, **changed}}


def _typed_without_null(schema: Any) -> bool:
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(kind, str):
        return kind != "null"
    return isinstance(kind, list) and "null" not in kind
