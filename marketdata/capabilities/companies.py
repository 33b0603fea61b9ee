"""What is published about companies: a company's press releases and profile, an index's
members.

Sources: Financial Modeling Prep with its key (a refused key or a failure falls back), else
SEC EDGAR's 8-K exhibits and Wikipedia's constituent tables; Alpha Vantage with its key,
else Yahoo Finance, for profiles. Each source's fetcher returns the same records, so the
answer has one shape whoever gave it.
"""

from __future__ import annotations

from marketdata.capabilities.table import YAHOO, Source, declare, fmp_source
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


@declare("press_releases", "Press releases (/v2/press-releases/{symbol})",
         fmp_source("company_press_releases"),
         Source("sec", "SEC EDGAR 8-K press-release exhibits (EX-99)",
                fetcher="marketdata.providers.sec:company_press_releases"))
def _press_releases(symbol: str, limit: int) -> list[PressRelease]:
    """The releases of a checked query (:func:`press_releases`)."""


def press_releases(symbol: str, limit: int) -> list[PressRelease]:
    """At most ``limit`` releases of a validated symbol, newest first: NotFound for a
    ticker no source knows, ``[]`` for a company without releases."""
    if limit < 1:
        raise BadRequest("limit must be at least 1")
    return _press_releases(symbol, limit)


@declare("index_constituents", "Index constituents (/v2/index-constituents/{symbol})",
         fmp_source("index_members"),
         Source("wikipedia", "the public constituent tables on Wikipedia",
                fetcher="marketdata.providers.wikipedia:index_members"))
def _index_members(index: str) -> list[Constituent]:
    """The members of ``sp500``, ``nasdaq100`` or ``dowjones`` (:func:`resolve_index`)."""


def index_constituents(symbol_text: str) -> list[Constituent]:
    """The members of the index ``symbol_text`` names, in the source's order; NotFound
    (before any upstream call) for a symbol that names no supported index."""
    return _index_members(resolve_index(symbol_text))


@declare("company_profile", "Company profiles (/v2/company-profile/{symbol})",
         Source("alphavantage", "Alpha Vantage OVERVIEW", "ALPHAVANTAGE_API_KEY",
                fetcher="marketdata.providers.alphavantage:company_profile"),
         Source("yahoo", f"{YAHOO} quoteSummary profile modules",
                fetcher="marketdata.providers.yahoo.profile:company_profile"),
         primary_share=0.5)
def company_profile(symbol: str) -> CompanyProfile:
    """Who the company (or fund) behind a validated symbol is: Alpha Vantage's OVERVIEW
    with its key (a refused key, a spent allowance or a symbol it does not cover falls
    back), else Yahoo's quoteSummary profile modules; NotFound for an unknown symbol."""
