"""Index constituents: Financial Modeling Prep with a key, else the public constituent
tables on Wikipedia (:mod:`marketdata.providers.wikipedia`).

Three indices are served; an index symbol is resolved (case-insensitively, through
:data:`INDEX_ALIASES`) before any upstream call, and any other symbol is a 404 naming the
supported ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apps.constituents.serializers import MEMBERS
from marketdata.errors import NotFound
from marketdata.providers import sources
from marketdata.symbols import display_symbol

# Symbol (upper case) -> index name, as the sources name them.
INDEX_ALIASES: dict[str, str] = {
    "^GSPC": "sp500", "GSPC": "sp500", "^SPX": "sp500", "SPX": "sp500", "SP500": "sp500",
    "^NDX": "nasdaq100", "NDX": "nasdaq100", "NASDAQ100": "nasdaq100",
    "^DJI": "dowjones", "DJI": "dowjones", "DJIA": "dowjones", "DOWJONES": "dowjones",
}
SUPPORTED = ("^GSPC (S&P 500; also SPX, GSPC, SP500), ^NDX (Nasdaq-100; also NDX, "
             "NASDAQ100) and ^DJI (Dow Jones Industrial Average; also DJI, DJIA, DOWJONES)")


def resolve_index(symbol_text: str) -> str:
    """``sp500``, ``nasdaq100`` or ``dowjones`` for a supported index symbol; NotFound
    (404, naming the supported ones) for anything else."""
    index = INDEX_ALIASES.get(symbol_text.strip().upper()) if symbol_text.isascii() else None
    if index is None:
        raise NotFound(f"No constituents for '{display_symbol(symbol_text)}': constituents "
                       f"are available for {SUPPORTED}")
    return index


def yahoo_spelling(symbol: str) -> str:
    """Share classes with a dash, as Yahoo and the rest of this API write them."""
    return symbol.strip().upper().replace(".", "-")


def _constituent(row: Mapping[str, Any]) -> dict[str, Any]:
    out = {member: row.get(member) for member in MEMBERS}
    if isinstance(out["symbol"], str):
        out["symbol"] = yahoo_spelling(out["symbol"])
    if isinstance(out["cik"], str) and out["cik"].isdigit():
        out["cik"] = out["cik"].zfill(10)
    return out


def index_constituents(symbol_text: str) -> list[dict[str, Any]]:
    """The members of the index ``symbol_text`` names, ``{symbol, name, sector,
    subSector, headquarters, dateFirstAdded, cik, founded}`` sorted by symbol."""
    index = resolve_index(symbol_text)

    def from_fmp() -> list[dict[str, Any]]:
        from marketdata.providers import fmp

        return fmp.index_constituents(index)

    def from_wikipedia() -> list[dict[str, Any]]:
        from marketdata.providers import wikipedia

        return wikipedia.constituents(index)

    rows = sources.serve("index_constituents", {"fmp": from_fmp,
                                                "wikipedia": from_wikipedia})
    return sorted((_constituent(row) for row in rows), key=lambda r: r["symbol"] or "")
