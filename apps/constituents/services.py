"""Index constituents: Financial Modeling Prep with a key, else the public constituent
tables on Wikipedia (the ``index_constituents`` capability,
:mod:`marketdata.capabilities.companies`, which resolves the index symbol before any
upstream call)."""

from __future__ import annotations

from typing import Any

from marketdata.capabilities import companies
from marketdata.records.companies import Constituent


def _constituent(member: Constituent) -> dict[str, Any]:
    """The spec's member names, in :data:`apps.constituents.serializers.MEMBERS` order."""
    return {"symbol": member.symbol, "name": member.name, "sector": member.sector,
            "subSector": member.sub_sector, "headquarters": member.headquarters,
            "dateFirstAdded": member.date_first_added, "cik": member.cik,
            "founded": member.founded}


def index_constituents(symbol_text: str) -> list[dict[str, Any]]:
    """The members of the index ``symbol_text`` names, ``{symbol, name, sector,
    subSector, headquarters, dateFirstAdded, cik, founded}`` sorted by symbol."""
    rows = (_constituent(member) for member in companies.index_constituents(symbol_text))
    return sorted(rows, key=lambda r: r["symbol"] or "")
