"""A company's regulatory filings: its filer id (CIK), filer header and recent filings,
its XBRL financial facts, and full-text search over filings.

Sources: the ``filer_ciks``, ``filings``, ``company_facts`` and ``filing_search`` rows of
:mod:`marketdata.capabilities.table` (SEC EDGAR, keyless).
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.records.filings import CompanyFacts, CompanyFilings, FilingSearch


def cik(symbol: str) -> int:
    """The filer id of a validated symbol; NotFound when the regulator lists no such
    ticker."""
    found: int = call("filer_ciks", symbol)
    return found


def filings(symbol: str) -> CompanyFilings:
    """The filer header and recent filings (newest first) of a validated symbol."""
    found: CompanyFilings = call("filings", symbol)
    return found


def facts(symbol: str) -> CompanyFacts:
    """Every XBRL fact the company of a validated symbol reported (empty when none)."""
    found: CompanyFacts = call("company_facts", symbol)
    return found


def search(query: str, forms: list[str], start_date: str | None, end_date: str | None,
           offset: int, size: int) -> FilingSearch:
    """One page of full-text search over filings (``offset``: hits skipped)."""
    found: FilingSearch = call("filing_search", query, forms, start_date, end_date, offset,
                               size)
    return found
