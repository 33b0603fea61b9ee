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
from types import MappingProxyType
from typing import Any

MEMBER = "marketdata.member"

# What a member's ``schema`` adds to its annotation's type where the interface says more (the
# v1 document's formats: a URL, a timestamp text, a double, a 64-bit integer).
URI: Mapping[str, Any] = MappingProxyType({"format": "uri"})
DATE_TIME: Mapping[str, Any] = MappingProxyType({"format": "date-time"})
DOUBLE: Mapping[str, Any] = MappingProxyType({"format": "double"})
INT64: Mapping[str, Any] = MappingProxyType({"format": "int64"})


@dataclass(frozen=True)
class Member:
    """One field of a record as a member of an answer."""

    attribute: str
    name: str
    schema: Mapping[str, Any]  # JSON Schema: type (with "null" when nullable), enum, ...
    description: str | None
    always: bool
    record: type | None = None  # the record the member holds, when it is one (its own members)
    optional: bool = False  # absent from the answer when None (a v1 optional member)
    required: bool = True  # listed as required by its schema (by default: unless optional)


@dataclass(frozen=True)
class _Declared:
    description: str | None
    name: str | None
    always: bool
    schema: Mapping[str, Any] | None
    extras: bool = False
    optional: bool = False
    required: bool | None = None


def member(description: str | None = None, *, name: str | None = None, always: bool = False,
           schema: Mapping[str, Any] | None = None, extras: bool = False,
           optional: bool = False, required: bool | None = None,
           **field_options: Any) -> Any:
    """A dataclass field that is a member of answers; ``field_options`` are
    :func:`dataclasses.field`'s (``default``, ``init``...). ``schema`` adds to (or, for a
    type the annotation cannot say, replaces) what the annotation gives.

    ``extras``: the field (a ``Mapping[str, Any]``, at most one per record) is not a member
    but holds the members passed through as the upstream sent them, written where it is
    declared (after the declared members when it is the last field); its ``schema``, if
    any, is each passed member's (the object's ``additionalProperties``).

    ``optional``: the member is left out of the answer when its value is None, rather than
    written as null (v1's optional members: ``adjClose`` of a historical bar); its schema
    is the annotation's without null, and it is not required.

    ``required``: whether the schema lists the member as required, where that is not
    ``not optional``: a v1 member the v1 document requires that the answer still leaves out
    when the upstream has no value (a v1 quote's ``price``) is optional and required."""
    if extras and (name is not None or always or optional or required is not None):
        raise TypeError("a pass-through member has no name and is never always present")
    return dataclasses.field(
        metadata={MEMBER: _Declared(description, name, always, schema, extras, optional,
                                    required)},
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
    if origin is dict:  # an object keyed by data (dates, metric names): its values' schema
        keyed = typing.get_args(annotation)
        return {"type": "object",
                "additionalProperties": type_schema(keyed[1]) if keyed else {}}
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
        if declared is None or declared.extras:
            continue
        annotation = hints[item.name]
        schema = type_schema(_not_none(annotation) if declared.optional else annotation)
        if declared.schema:
            schema = {**schema, **declared.schema}
        nested = (annotation if isinstance(annotation, type)
                  and dataclasses.is_dataclass(annotation) and _declares(annotation) else None)
        found.append(Member(item.name, declared.name or camel(item.name), schema,
                            declared.description, declared.always, nested, declared.optional,
                            not declared.optional if declared.required is None
                            else declared.required))
    if not found:
        raise TypeError(f"{record.__name__} declares no members")
    return tuple(found)


def _not_none(annotation: Any) -> Any:
    """``X | None`` -> ``X``: the type of an optional member's value when present."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = tuple(arg for arg in typing.get_args(annotation) if arg is not type(None))
        return args[0] if len(args) == 1 else typing.Union[args]  # noqa: UP007
    return annotation


@cache
def _omits(record: type) -> bool:
    """Whether the record has optional members (left out of its JSON when None)."""
    return any(m.optional for m in members_of(record))


_PLAIN = (str, int, float, bool, type(None))


@cache
def _written(record: type) -> tuple[tuple[str, str, bool, bool], ...]:
    """How :func:`as_json` writes each member: (name, attribute, whether its value is written
    as it is: a number, text, boolean or null, by its annotation, which :func:`as_json`
    would return unchanged; whether it is optional)."""
    hints = typing.get_type_hints(record)
    out = []
    for m in members_of(record):
        annotation = hints[m.attribute]
        origin = typing.get_origin(annotation)
        parts = typing.get_args(annotation) if origin in (typing.Union, types.UnionType) \
            else (annotation,)
        plain = all(part in _PLAIN or typing.get_origin(part) is typing.Literal
                    for part in parts)
        out.append((m.name, m.attribute, plain, m.optional))
    return tuple(out)


def member_names(record: type) -> tuple[str, ...]:
    return tuple(m.name for m in members_of(record))


@cache
def extras_of(record: type) -> Member | None:
    """The record's pass-through member (``member(extras=True)``), if it declares one: its
    ``attribute`` holds the passed members, its ``schema`` is each one's (``{}``: any)."""
    passing = [item for item in dataclasses.fields(record)
               if getattr(item.metadata.get(MEMBER), "extras", False)]
    if not passing:
        return None
    if len(passing) > 1:
        raise TypeError(f"{record.__name__} declares more than one pass-through member")
    item = passing[0]
    declared: _Declared = item.metadata[MEMBER]
    return Member(item.name, item.name, dict(declared.schema or {}), declared.description,
                  False)


@cache
def _declared_before(record: type) -> frozenset[str] | None:
    """The names of the members declared before the record's pass-through field when
    members are declared after it too (None when it is the last member field)."""
    names = []
    for item in dataclasses.fields(record):
        declared = item.metadata.get(MEMBER)
        if declared is None:
            continue
        if declared.extras:
            break
        names.append(declared.name or camel(item.name))
    return None if len(names) == len(members_of(record)) else frozenset(names)


def passed_names(value: Any) -> tuple[str, ...]:
    """The names a record (an instance) passes through, in their order: those of its
    pass-through member that are not declared members."""
    record: type = type(value)
    extra = extras_of(record)
    if extra is None:
        return ()
    declared = set(member_names(record))
    return tuple(name for name in getattr(value, extra.attribute) if name not in declared)


def from_members(record: type, data: Mapping[str, Any]) -> Any:
    """The record of an upstream object of its members (the inverse of :func:`as_json`):
    each declared member by its JSON name (None when absent); a member that is a record, or
    a list of them, built from its object(s) the same way; the other members into the
    pass-through member (dropped when the record has none). A value that is not of the
    declared form (not an object where a record is, not a list where a list is) is kept
    as it is."""
    values: dict[str, Any] = {}
    for m, (inner, listed) in zip(members_of(record), _held_records(record), strict=True):
        value = data.get(m.name)
        if inner is not None and listed and isinstance(value, list):
            value = [from_members(inner, item) if isinstance(item, Mapping) else item
                     for item in value]
        elif inner is not None and not listed and isinstance(value, Mapping):
            value = from_members(inner, value)
        values[m.attribute] = value
    if (extra := extras_of(record)) is not None:
        known = set(member_names(record))
        values[extra.attribute] = {name: value for name, value in data.items()
                                   if name not in known}
    return record(**values)


@cache
def _held_records(record: type) -> tuple[tuple[type | None, bool], ...]:
    """:func:`record_in` of each member's annotation, in :func:`members_of`'s order (read
    once per record: :func:`from_members` runs per upstream row)."""
    hints = typing.get_type_hints(record)
    return tuple(record_in(hints[m.attribute]) for m in members_of(record))


def record_in(annotation: Any) -> tuple[type | None, bool]:
    """The record an annotation holds (``R``, ``R | None``) or lists (``list[R]``, maybe
    ``| None``), and whether it is a list of them."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            found = record_in(arg)
            if found[0] is not None:
                return found
        return None, False
    if origin is list:
        args = typing.get_args(annotation)
        inner = args[0] if args else None
        return (inner, True) if isinstance(inner, type) and _is_record_class(inner) \
            else (None, False)
    return (annotation, False) if isinstance(annotation, type) \
        and _is_record_class(annotation) else (None, False)


def _is_record_class(cls: type) -> bool:
    return dataclasses.is_dataclass(cls) and _declares(cls)


def as_json(value: Any) -> Any:
    """``value`` with every record that declares members (at any depth of lists and dicts)
    as the dict of its members, in their order (an optional member left out when None),
    then the members it passes through; other values as they are."""
    if isinstance(value, list):
        return [as_json(item) for item in value]
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    if is_record(value):
        record: type = type(value)
        # A plain member's value is written as it is (as_json would return it unchanged).
        if _omits(record):
            out = {name: item if plain else as_json(item)
                   for name, attribute, plain, optional in _written(record)
                   if (item := getattr(value, attribute)) is not None or not optional}
        else:
            out = {name: getattr(value, attribute) if plain
                   else as_json(getattr(value, attribute))
                   for name, attribute, plain, _ in _written(record)}
        if (extra := extras_of(record)) is not None:
            passed = [(name, as_json(item))
                      for name, item in getattr(value, extra.attribute).items()
                      if name not in out]
            if (before := _declared_before(record)) is None:
                out.update(passed)
            else:  # the members declared after the pass-through field come after it
                out = {**{k: v for k, v in out.items() if k in before}, **dict(passed),
                       **{k: v for k, v in out.items() if k not in before}}
        return out
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
