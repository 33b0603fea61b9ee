"""What the v2 interface derives from a record that describes itself
(:mod:`marketdata.records.members`): its OpenAPI component and its :class:`~apps.core.v2.Output`
(the members ``fields`` selects among and those always present). The JSON is
:func:`marketdata.records.members.as_json`, applied by :meth:`apps.core.v2.V2ApiView.answer`
to whatever a service returns, and CSV tables are made from that JSON, so a member is written
once: on the record.

Here rather than beside the records: the records are the core's and know nothing of the
interface's schema helpers (``object_schema``, ``connection_schema``) or of ``Output``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from apps.core.v2 import Output, object_schema
from marketdata.records.members import described, extras_of, members_of


def record_schema(record: type, description: str | None = None, *,
                  example: dict[str, Any] | None = None, required: bool = True,
                  nested: Mapping[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The JSON Schema of one record as an answer's object: every member, each required
    (present, maybe null) unless ``required`` is false, in the record's order. A member
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
    out = object_schema(properties, description,
                        required=list(properties) if required else ())
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
