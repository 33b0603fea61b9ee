"""Query declarations of the sector endpoints and the v2 answers' schemas (their members are
the records': :mod:`marketdata.records.sectors`; v1's are
:class:`apps.sectors.services.MarketSector`'s)."""

import typing
from dataclasses import is_dataclass
from typing import Any

from apps.core.shapes import record_schema
from apps.core.v2 import FieldsQuery, value_format_param
from apps.quotes.serializers import LangParam
from marketdata.records.members import described, members_of
from marketdata.records.sectors import IndustryProfile, SectorProfile


# -- v2 -----------------------------------------------------------------------------------------
class V2SectorQuery(FieldsQuery):
    format = value_format_param()
    lang = LangParam(required=False, help_text=(
        "BCP 47 language tag for Yahoo's texts (e.g. `de-DE`); default `en-US`. The "
        "`Accept-Language` header is not read (the response cache does not key on it)"))


def _schema(record: type, description: str | None, *, nullable: bool = False
            ) -> dict[str, Any]:
    """A sector answer's object as documented: no member required; a member holding a record
    is that record's object (or null), one holding a list of records an array of rows."""
    hints = typing.get_type_hints(record)
    nested: dict[str, Any] = {}
    for member in members_of(record):
        annotation = hints[member.attribute]
        inner = next((arg for arg in typing.get_args(annotation) if is_dataclass(arg)), None)
        if not isinstance(inner, type):
            continue
        text = described(member.description) if member.description else None
        nested[member.name] = (
            {"type": "array", "description": text, "items": _schema(inner, "One row")}
            if typing.get_origin(annotation) is list else _schema(inner, text, nullable=True))
    out = record_schema(record, description, required=False, nested=nested)
    if nullable:
        out["type"] = ["object", "null"]
    return out


SECTOR_RESPONSE = _schema(SectorProfile, "One sector; `fields` selects these members")
INDUSTRY_RESPONSE = _schema(IndustryProfile, "One industry; `fields` selects these members")
