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

from collections.abc import Mapping
from typing import Any

from apps.core.v2 import Output, object_schema
from marketdata.records.members import described, members_of


def record_schema(record: type, description: str | None = None, *,
                  example: dict[str, Any] | None = None, required: bool = True,
                  nested: Mapping[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The JSON Schema of one record as an answer's object: every member, each required
    (present, maybe null) unless ``required`` is false, in the record's order. A member
    that is a record is that record's object, described by the member's description;
    ``nested`` gives, by member name, the schema of a member holding a list of records
    (their own ``record_schema``, in a ``connection_schema`` where paged): the annotation
    says only ``array``."""
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
    if example is not None:
        out["example"] = example
    return out


def record_output(record: type, **options: Any) -> Output:
    """The :class:`Output` of answers made of ``record``: ``fields`` selects among its
    members, its ``always`` members stay; ``options`` are Output's others (``paged``,
    ``at``...)."""
    members = members_of(record)
    return Output(tuple(m.name for m in members),
                  always=tuple(m.name for m in members if m.always), **options)
