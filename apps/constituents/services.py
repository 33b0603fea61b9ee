"""Index constituents: Financial Modeling Prep with a key, else the public constituent
tables on Wikipedia (the ``index_constituents`` capability,
:mod:`marketdata.capabilities.companies`, which resolves the index symbol before any
upstream call)."""

from __future__ import annotations

from marketdata.capabilities import companies
from marketdata.records.companies import Constituent


def index_constituents(symbol_text: str) -> list[Constituent]:
    """The members of the index ``symbol_text`` names, sorted by symbol."""
    return sorted(companies.index_constituents(symbol_text), key=lambda m: m.symbol or "")
