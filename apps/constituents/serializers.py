"""Response schema of ``GET /v2/index-constituents/{symbol}`` (the query is ``fields``)."""

from __future__ import annotations

from typing import Any

from apps.core.v2 import STRING, object_schema

MEMBERS = ("symbol", "name", "sector", "subSector", "headquarters", "dateFirstAdded", "cik",
           "founded")

CONSTITUENT_SCHEMA = object_schema({
    "symbol": {**STRING, "description": "Yahoo's spelling: share classes with a dash "
                                        "(`BRK-B`)"},
    "name": {**STRING, "description": "Company name"},
    "sector": {**STRING, "description": "GICS sector (Dow: the industry Wikipedia gives)"},
    "subSector": {**STRING, "description": "GICS sub-industry; null where the source has "
                                           "none (Dow)"},
    "headquarters": {**STRING, "description": "City, state; null where the source has none"},
    "dateFirstAdded": {**STRING, "description": "Date the company joined the index "
                                                "(`YYYY-MM-DD` when the source gives a "
                                                "readable date); null where unknown"},
    "cik": {**STRING, "description": "SEC Central Index Key, ten digits; null where the "
                                     "source has none"},
    "founded": {**STRING, "description": "Year founded, as the source writes it"},
}, "Index constituent", required=MEMBERS)

CONSTITUENTS_RESPONSE: dict[str, Any] = {
    "type": "array", "items": CONSTITUENT_SCHEMA,
    "description": "The index's members, sorted by symbol (`fields` applies to each)"}
