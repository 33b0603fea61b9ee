"""What each tool answers, as an outline an agent can read before calling it: the members of
every route's answer with their type and the first sentence of their description, read off
the operation's 200 response in ``/openapi.json``, which the records that declare the
answers' members make (:mod:`marketdata.records.members`): so the outline is the records'
declaration too, and cannot disagree with what the tool returns.

Served as the MCP resource template ``marketdata://answers/{tool}`` rather than as each
tool's ``outputSchema``: with output schemas ``tools/list`` passed its budget (see
:mod:`apps.mcp.tools`), and an agent needs one tool's members at a time, when it plans a
call. An outline is at most :data:`OUTLINE_MAX_BYTES`; one over it (the quote's ~100
members) keeps the types and drops the descriptions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import orjson

from apps.core.refs import Resolver
from apps.mcp.tools import RESULT_MEMBER, ToolSpec

OUTLINE_MAX_BYTES = 16 * 1024  # ~4,000 tokens: one tool's answers
DESCRIPTION_MAX_CHARS = 120  # longer: its first sentence, cut there
DEPTH = 3  # members of members of members: deeper ones are named `object` or `array`
_SENTENCE_END = re.compile(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.!?])\s")


def _short(text: str) -> str:
    """A description whole when short (its unit is often the second sentence), else its
    first sentence, cut at :data:`DESCRIPTION_MAX_CHARS`."""
    text = " ".join(text.split())
    if len(text) <= DESCRIPTION_MAX_CHARS:
        return text
    sentence = _SENTENCE_END.split(text, 1)[0]
    if len(sentence) > DESCRIPTION_MAX_CHARS:
        sentence = sentence[:DESCRIPTION_MAX_CHARS - 1] + "…"
    return sentence


def _kind(schema: Mapping[str, Any]) -> str:
    """``number``, ``string?`` (nullable), ``string enum``, ``number|string|object?``..."""
    declared = schema.get("type")
    kinds = declared if isinstance(declared, list) else [declared] if declared else []
    for part in schema.get("anyOf") or schema.get("oneOf") or ():
        part_kinds = part.get("type") if isinstance(part, Mapping) else None
        kinds += part_kinds if isinstance(part_kinds, list) else [part_kinds or "any"]
    named = list(dict.fromkeys(k for k in kinds if k != "null"))
    if not named:
        return "null" if "null" in kinds else "any"
    text = "|".join(named) + ("?" if "null" in kinds else "")
    return f"{text} enum" if "enum" in schema else text


def outline(schema: Any, resolver: Resolver, *, described: bool = True,
            depth: int = DEPTH) -> Any:
    """A schema as ``{member: outline}`` for an object, ``[outline]`` for an array (a paged
    list as the bare array a tool returns without ``cursor``/``limit``), and
    ``"type: description"`` for a value (``?``: may be null)."""
    schema = resolver.resolve(schema) if isinstance(schema, Mapping) else {}
    parts = schema.get("oneOf") or schema.get("anyOf") or ()
    shaped = [part for part in parts if isinstance(part, Mapping)
              and (part.get("properties") or part.get("items"))]
    if shaped and "properties" not in schema:
        # A paged list's first form is the bare array a tool returns without
        # `cursor`/`limit`; of other alternatives, the first with members stands for all.
        return outline(shaped[0], resolver, described=described, depth=depth)
    if schema.get("properties"):
        if depth <= 0:
            return "object"
        return {name: outline(member, resolver, described=described, depth=depth - 1)
                for name, member in schema["properties"].items()}
    items = schema.get("items")
    if isinstance(items, Mapping) and items and _kind(schema).startswith("array"):
        return [outline(items, resolver, described=described, depth=depth)] \
            if depth > 0 else "array"
    text = schema.get("description") if described else None
    return _kind(schema) + (f": {_short(text)}" if text else "")


def answers(spec: ToolSpec, document: Mapping[str, Any]) -> dict[str, Any]:
    """The outline of every answer ``spec`` may give: one per operation of its routes, in
    their order, with what chooses the route; the descriptions dropped when the whole is
    over :data:`OUTLINE_MAX_BYTES`."""
    resolver = Resolver(document)

    def made(described: bool) -> dict[str, Any]:
        routes: list[dict[str, Any]] = []
        for route in spec.declared.routes:
            if any(r["operation"] == route.operation for r in routes):
                continue
            operation = spec.operations[route.operation]
            answer = operation.answer_schema
            shape = outline(answer, resolver, described=described) if answer else "any"
            routes.append({
                "operation": route.operation, "request": f"{operation.method} {operation.path}",
                **({"when": dict(route.when)} if route.when else {}),
                # What a tool call returns: an array is wrapped in an object.
                "answer": {RESULT_MEMBER: shape} if isinstance(shape, list) else shape})
        return {"tool": spec.name, "routes": routes}

    full = made(described=True)
    if len(orjson.dumps(full)) <= OUTLINE_MAX_BYTES:
        return full
    return {**made(described=False), "note": "types only: the descriptions would pass "
                                             f"{OUTLINE_MAX_BYTES:,} bytes"}
