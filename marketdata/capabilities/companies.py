"""What is published about companies: a company's press releases, an index's members.

Sources (the ``press_releases`` and ``index_constituents`` rows of
:mod:`marketdata.capabilities.table`): Financial Modeling Prep with its key (a refused key
or a failure falls back), else SEC EDGAR's 8-K exhibits and Wikipedia's constituent tables.
Each source's fetcher returns the same records, so the answer has one shape whoever gave it.
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.errors import BadRequest, NotFound
from marketdata.records.companies import CompanyProfile, Constituent, PressRelease
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
    """``sp500``, ``nasdaq100`` or ``dowjones`` for a supported index symbol
    (case-insensitive); NotFound (404, naming the supported ones) for anything else."""
    index = INDEX_ALIASES.get(symbol_text.strip().upper()) if symbol_text.isascii() else None
    if index is None:
        raise NotFound(f"No constituents for '{display_symbol(symbol_text)}': constituents "
                       f"are available for {SUPPORTED}")
    return index


def press_releases(symbol: str, limit: int) -> list[PressRelease]:
    """At most ``limit`` releases of a validated symbol, newest first: NotFound for a
    ticker no source knows, ``[]`` for a company without releases."""
    if limit < 1:
        raise BadRequest("limit must be at least 1")
    releases: list[PressRelease] = call("press_releases", symbol, limit)
    return releases


def index_constituents(symbol_text: str) -> list[Constituent]:
    """The members of the index ``symbol_text`` names, in the source's order; NotFound
    (before any upstream call) for a symbol that names no supported index."""
    members: list[Constituent] = call("index_constituents", resolve_index(symbol_text))
    return members


def company_profile(symbol: str) -> CompanyProfile:
    """Who the company (or fund) behind a validated symbol is: Alpha Vantage's OVERVIEW
    with its key (a refused key, a spent allowance or a symbol it does not cover falls
    back), else Yahoo's quoteSummary profile modules; NotFound for an unknown symbol."""
    profile: CompanyProfile = call("company_profile", symbol)
    return profile
