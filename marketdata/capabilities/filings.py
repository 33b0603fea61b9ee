"""A company's regulatory filings: its filer id (CIK), filer header and recent filings,
its XBRL financial facts, full-text search over filings, and its insiders' transactions
(ownership filings).

Sources: SEC EDGAR (keyless) for each.
"""

from __future__ import annotations

from marketdata.capabilities.table import Source, declare
from marketdata.records.filings import CompanyFacts, CompanyFilings, FilingSearch
from marketdata.records.insiders import InsiderWindow

SEC = "marketdata.providers.sec"


@declare("filer_ciks", "Filer ids (/v2/filings/{symbol}/cik)",
         Source("sec", "SEC EDGAR company tickers", fetcher=f"{SEC}:cik_for"))
def cik(symbol: str) -> int:
    """The filer id of a validated symbol; NotFound when the regulator lists no such
    ticker."""


@declare("filings", "Filings (/v2/filings/{symbol})",
         Source("sec", "SEC EDGAR submissions", fetcher=f"{SEC}:company_filings"))
def filings(symbol: str) -> CompanyFilings:
    """The filer header and recent filings (newest first) of a validated symbol."""


@declare("company_facts", "XBRL company facts (/v2/filings/{symbol}/facts)",
         Source("sec", "SEC EDGAR XBRL company facts", fetcher=f"{SEC}:company_facts"))
def facts(symbol: str) -> CompanyFacts:
    """Every XBRL fact the company of a validated symbol reported (empty when none)."""


@declare("filing_search", "Filing full-text search (/v2/filings/search)",
         Source("sec", "SEC EDGAR full-text search", fetcher=f"{SEC}:search_filings"))
def search(query: str, forms: list[str], start_date: str | None, end_date: str | None,
           offset: int, size: int) -> FilingSearch:
    """One page of full-text search over filings (``offset``: hits skipped)."""


@declare("insider_transactions", "Insider transactions (/v2/filings/{symbol}/insiders)",
         Source("sec", "SEC EDGAR ownership filings (Forms 4 and 5)",
                fetcher="marketdata.providers.sec_insiders:insider_transactions"))
def insider_transactions(symbol: str, start: str, end: str) -> InsiderWindow:
    """The transactions its insiders reported on a validated symbol's company, dated
    ``start``..``end`` (ISO days), newest first, with what could not be read; NotFound when
    the regulator lists no such ticker."""
