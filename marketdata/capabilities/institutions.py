"""Institutional investment managers: their quarterly holdings (Form 13F) and finding them by
name.

Sources: SEC EDGAR (keyless) for both: the manager's filing list, each filing's cover page,
index and information table; EDGAR full-text search over 13F filings for names.
"""

from __future__ import annotations

from marketdata.capabilities.table import Source, declare
from marketdata.records.institutions import InstitutionalFiler, InstitutionalHoldings

SEC_13F = "marketdata.providers.sec_13f"


@declare("institutional_holdings", "13F holdings (/v2/filings/{cik}/13f)",
         Source("sec", "SEC EDGAR Form 13F information tables",
                fetcher=f"{SEC_13F}:institutional_holdings"))
def holdings(cik: int, period: str | None) -> InstitutionalHoldings:
    """A manager's holdings for the report quarter ending ``period`` (a validated quarter's
    last day; None: the latest), in table order; NotFound for a CIK without such a
    report."""


@declare("institutional_filers", "13F filers by name (/v2/filings/13f/search)",
         Source("sec", "SEC EDGAR full-text search over 13F filings",
                fetcher=f"{SEC_13F}:institutional_filers"))
def filers(name: str) -> list[InstitutionalFiler]:
    """Filers of 13F holdings reports whose name holds every word of a validated ``name``,
    most relevant first."""
