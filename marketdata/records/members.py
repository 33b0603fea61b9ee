"""Records that describe themselves: what a provider-neutral record's fields are as members of
an answer, declared once, on the record.

A field declared with :func:`member` carries its JSON member name (the camelCase of the
attribute unless given: the spec's exact spelling, ``priceChangePercentage24H``), a one-line
description with its unit, and whether ``fields`` may drop it (``always``); its JSON type and
nullability are read off the annotation (``float | None`` is a nullable number, ``None``
always null, ``Literal["a", "b"]`` an enum, ``datetime`` an ISO 8601 UTC string, ``Any``
whatever the declared ``schema`` says: a number in any of the client's ``format`` forms). A
constant member the record holds for the interface (``assetType`` is always
``Cryptocurrency``) is a field with ``init=False`` and a default. A member that is itself a
record (a headline's ``sentiment``) is that record's object, described by the member's
description.

From this one declaration the interface derives the OpenAPI component, the members
``fields`` selects among and those always present (:mod:`apps.core.shapes`), and the JSON
(:func:`as_json`), so the schema, ``fields`` and the answer cannot disagree. This module
knows nothing of DRF or drf-spectacular: the records stay the core's.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

MEMBER = "marketdata.member"


@dataclass(frozen=True)
class Member:
    """One field of a record as a member of an answer."""

    attribute: str
    name: str
    schema: Mapping[str, Any]  # JSON Schema: type (with "null" when nullable), enum, ...
    description: str | None
    always: bool
    record: type | None = None  # the record the member holds, when it is one (its own members)


@dataclass(frozen=True)
class _Declared:
    description: str | None
    name: str | None
    always: bool
    schema: Mapping[str, Any] | None


def member(description: str | None = None, *, name: str | None = None, always: bool = False,
           schema: Mapping[str, Any] | None = None, **field_options: Any) -> Any:
    """A dataclass field that is a member of answers; ``field_options`` are
    :func:`dataclasses.field`'s (``default``, ``init``...). ``schema`` adds to (or, for a
    type the annotation cannot say, replaces) what the annotation gives."""
    return dataclasses.field(metadata={MEMBER: _Declared(description, name, always, schema)},
                             **field_options)


def camel(attribute: str) -> str:
    """``market_cap_rank`` -> ``marketCapRank``."""
    head, *rest = attribute.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


_PRIMITIVES = {str: "string", int: "integer", float: "number", bool: "boolean",
               type(None): "null"}


def type_schema(annotation: Any) -> dict[str, Any]:
    """The JSON Schema of a field's annotation (the types records use)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        parts = [type_schema(arg) for arg in typing.get_args(annotation)]
        kinds = [part["type"] for part in parts if set(part) == {"type"}
                 and isinstance(part["type"], str)]
        if len(kinds) == len(parts):
            return {"type": kinds}
        nullable = [part for part in parts if part != {"type": "null"}]
        if len(nullable) == 1 and len(parts) == 2:
            inner = dict(nullable[0])
            if isinstance(inner.get("type"), str):
                inner["type"] = [inner["type"], "null"]
                if "enum" in inner:
                    inner["enum"] = [*inner["enum"], None]
                return inner
        return {"anyOf": parts}
    if origin is typing.Literal:
        values = list(typing.get_args(annotation))
        kind = _PRIMITIVES[type(values[0])]
        return {"type": kind, "enum": values}
    if origin in (list, tuple):
        args = [arg for arg in typing.get_args(annotation) if arg is not Ellipsis]
        return {"type": "array", "items": type_schema(args[0]) if args else {}}
    if annotation is None or annotation is type(None):
        return {"type": "null"}
    if annotation is Any:  # a value of several forms: the declared ``schema`` says it all
        return {}
    if annotation in _PRIMITIVES:
        return {"type": _PRIMITIVES[annotation]}
    if annotation is datetime:
        return {"type": "string", "format": "date-time"}
    if dataclasses.is_dataclass(annotation):
        return {"type": "object"}
    raise TypeError(f"no JSON type for {annotation!r}")


@cache
def members_of(record: type) -> tuple[Member, ...]:
    """The declared members of a record class, in field order (the answer's order)."""
    hints = typing.get_type_hints(record)
    found = []
    for item in dataclasses.fields(record):
        declared = item.metadata.get(MEMBER)
        if declared is None:
            continue
        annotation = hints[item.name]
        schema = type_schema(annotation)
        if declared.schema:
            schema = {**schema, **declared.schema}
        nested = (annotation if isinstance(annotation, type)
                  and dataclasses.is_dataclass(annotation) and _declares(annotation) else None)
        found.append(Member(item.name, declared.name or camel(item.name), schema,
                            declared.description, declared.always, nested))
    if not found:
        raise TypeError(f"{record.__name__} declares no members")
    return tuple(found)


def member_names(record: type) -> tuple[str, ...]:
    return tuple(m.name for m in members_of(record))


def as_json(value: Any) -> Any:
    """``value`` with every record that declares members (at any depth of lists and dicts)
    as the dict of its members, in their order; other values as they are."""
    if isinstance(value, list):
        return [as_json(item) for item in value]
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    if is_record(value):
        record: type = type(value)
        return {m.name: as_json(getattr(value, m.attribute)) for m in members_of(record)}
    if isinstance(value, datetime):
        return iso_utc(value)
    return value


def iso_utc(moment: datetime) -> str:
    """A moment as answers write it: ISO 8601 in UTC to the second, ``2026-11-27T18:00:00Z``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def is_record(value: Any) -> bool:
    """Whether ``value`` is a record (an instance) that declares members."""
    return dataclasses.is_dataclass(value) and not isinstance(value, type) \
        and _declares(type(value))


@cache
def _declares(record: type) -> bool:
    return any(MEMBER in item.metadata for item in dataclasses.fields(record))


_SPACES = re.compile(r"\s+")


def described(text: str) -> str:
    """A description as one line (declarations may wrap)."""
    return _SPACES.sub(" ", text).strip()
