"""What the v2 interface derives from a record that describes itself
(:mod:`marketdata.records.members`): its OpenAPI component and its :class:`~apps.core.v2.Output`
(the members ``fields`` selects among and those always present). The JSON is
:func:`marketdata.records.members.as_json`, applied by :meth:`apps.core.v2.V2ApiView.answer`
to whatever a service returns, and CSV tables are made from that JSON, so a member is written
once: on the record.

Here rather than beside the records: the records are the core's and know nothing of the
interface's schema helpers (``object_schema``, ``connection_schema``) or of ``Output``.

v1 answers go through the same records (their members the v1 spec's, string-formatted
numbers filled in by the service with v1's formatters): :func:`v1_component` names a
record's component in the v1 document the way its DRF serializer did (``MarketMover``),
written as drf-spectacular wrote the serializer (:class:`V1Component`).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any, ClassVar

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.plumbing import build_choice_description_list
from rest_framework import serializers

from apps.core.v2 import Output, object_schema
from marketdata.records.members import described, extras_of, members_of, record_in


def record_schema(record: type, description: str | None = None, *,
                  example: dict[str, Any] | None = None, required: bool = True,
                  nested: Mapping[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The JSON Schema of one record as an answer's object: every member, each required
    (present, maybe null) unless ``required`` is false or the member is optional (absent
    when None) and not declared required, in the record's order. A member
    that is a record is that record's object, described by the member's description;
    ``nested`` gives, by member name, the schema of a member holding a list of records
    (their own ``record_schema``, in a ``connection_schema`` where paged): the annotation
    says only ``array``. A record with a pass-through member (``member(extras=True)``) is an
    open object: ``additionalProperties`` is that member's schema, or true."""
    properties: dict[str, Any] = {}
    for member in members_of(record):
        text = described(member.description) if member.description else None
        if nested and member.name in nested:
            properties[member.name] = nested[member.name]
            continue
        if member.record is not None:
            properties[member.name] = record_schema(member.record, text)
            continue
        schema = dict(member.schema)
        if text:
            schema["description"] = text
        properties[member.name] = schema
    if unknown := set(nested or ()) - set(properties):
        raise TypeError(f"{record.__name__} has no members {sorted(unknown)}")
    out = object_schema(properties, description, required=[
        m.name for m in members_of(record) if m.required] if required else ())
    if (extra := extras_of(record)) is not None:
        out["additionalProperties"] = dict(extra.schema) or True
    if example is not None:
        out["example"] = example
    return out


def record_output(record: type, *, passed: Iterable[str] = (), **options: Any) -> Output:
    """The :class:`Output` of answers made of ``record``: ``fields`` selects among its
    members and ``passed`` (the members one answer passes through:
    :func:`~marketdata.records.members.passed_names`), its ``always`` members stay;
    ``options`` are Output's others (``paged``, ``at``...)."""
    members = members_of(record)
    return Output((*(m.name for m in members), *passed),
                  always=tuple(m.name for m in members if m.always), **options)


def union_schema(records: Mapping[str, type], description: str, *,
                 nested: Mapping[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One object for the answers of an endpoint whose record depends on a path value (a
    data module's type): ``records`` by that value, their members in first appearance,
    none required (which are present depends on the value). A member's description says
    which records have it (``major: ...``) unless all have it with one description; a
    member the records declare with different schemas must be given by ``nested`` (as in
    :func:`record_schema`: a list of records, paged or not), whose own description follows
    the members'. Open (``additionalProperties``) when any record passes members through."""
    seen: dict[str, list[tuple[str, str | None, dict[str, Any]]]] = {}
    for label, record in records.items():
        names = {m.name for m in members_of(record)}
        own = {name: schema for name, schema in (nested or {}).items() if name in names}
        schemas = record_schema(record, nested=own)["properties"]
        for m in members_of(record):
            bare = {k: v for k, v in schemas[m.name].items() if k != "description"}
            text = described(m.description) if m.description else None
            seen.setdefault(m.name, []).append((label, text, bare))
    properties: dict[str, Any] = {}
    for name, found in seen.items():
        given = (nested or {}).get(name)
        if given is None and any(bare != found[0][2] for _, _, bare in found):
            raise TypeError(f"{name} differs between {[label for label, _, _ in found]}: "
                            "give its schema in nested")
        texts: dict[str | None, list[str]] = {}
        for label, text, _ in found:
            texts.setdefault(text, []).append(label)
        everywhere = len(found) == len(records) and len(texts) == 1
        said = "; ".join((text or "") if everywhere else
                         ", ".join(labels) + (f": {text}" if text else "")
                         for text, labels in texts.items() if text or not everywhere)
        schema = dict(given) if given is not None else dict(found[0][2])
        if said:
            schema["description"] = ". ".join(
                part for part in (said, schema.get("description")) if part)
        properties[name] = schema
    out = object_schema(properties, description)
    if any(extras_of(record) is not None for record in records.values()):
        out["additionalProperties"] = True
    return out


# -- v1: a record's named component ----------------------------------------------------------
class RecordSerializer(serializers.Serializer):
    """The component of a v1 answer's record (:func:`v1_component`): documentation only, its
    schema is :class:`V1Component`'s."""

    record: ClassVar[type]
    first: ClassVar[tuple[str, ...]] = ()


@cache
def v1_component(record: type, name: str | None = None, *,
                 first: tuple[str, ...] = ()) -> type[RecordSerializer]:
    """What a v1 view gives drf-spectacular for an answer made of ``record`` (``(many=True)``
    for a list of them): the component ``name`` (the record's ``V1_NAME``, else its class
    name, unless given; the v1 document's names, which generated clients use). ``first``:
    the members the v1 document lists first, in its order, where it lists them otherwise
    than the answer writes them (the others follow in the record's order)."""
    component = name or getattr(record, "V1_NAME", None) or record.__name__
    return type(component, (RecordSerializer,), {
        "record": record, "first": first, "__module__": __name__,
        "__doc__": f"The v1 component {component}: the members of {record.__name__}."})


def v1_schema(record: type, description: str | None = None, *,
              ref: Callable[[type], dict[str, Any]] | None = None,
              first: tuple[str, ...] = ()) -> dict[str, Any]:
    """:func:`record_schema` as the v1 document writes it (its components were DRF
    serializers'): an enum member's values listed in its description as drf-spectacular
    lists a choice field's (``* `Q1` - Q1``; the enum then becomes a named component, e.g.
    ``QuarterEnum``); a member holding a record, a list of them or an object of them by key
    (``dict[str, R]``) is ``ref`` of that record (its named component's reference), else
    inline, null admitted as drf-spectacular wrote a nullable serializer field; the members
    ``first`` names first, in its order; the members a record declares itself after those
    it inherits (a redeclared one too), as a serializer subclass's fields; open or not, no
    ``additionalProperties`` (a serializer's component never said it: JSON Schema admits
    other members anyway)."""
    out = record_schema(record, description)
    out.pop("additionalProperties", None)
    if first:
        properties = out["properties"]
        if unknown := set(first) - set(properties):
            raise TypeError(f"{record.__name__} has no members {sorted(unknown)}")
        out["properties"] = {**{name: properties[name] for name in first}, **properties}
    hints = typing.get_type_hints(record)
    for m in members_of(record):
        prop = out["properties"][m.name]
        inner, listed = record_in(hints[m.attribute])
        keyed = _keyed_record(hints[m.attribute])
        if (inner is not None or keyed is not None) and ref is not None:
            text = prop.get("description")
            if keyed is not None:
                prop = {"type": prop["type"], "additionalProperties": ref(keyed)}
            elif listed:
                prop = {"type": prop["type"], "items": ref(inner)}  # type: ignore[arg-type]
            elif isinstance(prop.get("type"), list) and "null" in prop["type"]:
                prop = {"oneOf": [ref(inner), {"type": "null"}]}  # type: ignore[arg-type]
            else:
                prop = {"allOf": [ref(inner)]} if text else ref(inner)  # type: ignore[arg-type]
            if text:
                prop["description"] = text
        if "enum" in prop:  # the values first, as drf-spectacular writes a choice field
            choices = build_choice_description_list(
                (value, value) for value in prop["enum"] if value is not None)
            text = prop.get("description")
            prop = {"enum": prop["enum"], **prop,
                    "description": f"{text}\n\n{choices}" if text else choices}
        out["properties"][m.name] = prop
    names = {m.attribute: m.name for m in members_of(record)}
    last = [names[attribute] for attribute in vars(record).get("__annotations__", {})
            if attribute in names]
    if len(last) < len(names):  # a subclass: its own members last
        out["properties"] = {**{name: prop for name, prop in out["properties"].items()
                                if name not in last},
                             **{name: out["properties"][name] for name in last}}
    return out


def _keyed_record(annotation: Any) -> type | None:
    """The record of an object of records by key (``dict[str, R]``), else None."""
    if typing.get_origin(annotation) is not dict:
        return None
    inner, listed = record_in(typing.get_args(annotation)[1])
    return None if listed else inner


class V1Component(OpenApiSerializerExtension):
    """A :func:`v1_component` in the OpenAPI document: its record's :func:`v1_schema`, nested
    records as their own components, ``required`` in name order (as drf-spectacular writes a
    serializer's)."""

    target_class = RecordSerializer
    match_subclasses = True

    def get_name(self, auto_schema: Any, direction: Any) -> str:
        return type(self.target).__name__

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        def ref(record: type) -> dict[str, Any]:
            found: dict[str, Any] = auto_schema.resolve_serializer(
                v1_component(record), direction).ref
            return found

        record = self.target.record
        out = v1_schema(record, ref=ref, first=self.target.first)
        # in drf-spectacular's order: type, description (the record's V1_DESCRIPTION),
        # properties, required in name order
        described_as = getattr(record, "V1_DESCRIPTION", None)
        return {"type": "object",
                **({"description": described_as} if described_as else {}),
                "properties": out["properties"],
                **({"required": sorted(out["required"])} if "required" in out else {})}
