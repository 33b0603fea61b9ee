"""A company's filings with its securities regulator, its reported financial facts, and
full-text search over filings, whoever served them (today SEC EDGAR)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The header members of a filer, in the order they are shown (EDGAR's names).
FILER_STRINGS = ("name", "sic", "sicDescription", "fiscalYearEnd", "category", "ein",
                 "entityType", "stateOfIncorporation", "website")
FILER_BOOLEANS = ("insiderTransactionForOwnerExists", "insiderTransactionForIssuerExists")
# The members of one filing.
FILING_STRINGS = ("accessionNumber", "filingDate", "reportDate", "form", "primaryDocument",
                  "primaryDocDescription")
FILING_MEMBERS = ("accessionNumber", "filingDate", "reportDate", "form", "size",
                  "primaryDocument", "primaryDocDescription")
# The members of one reported value: the period (``start`` None for a balance at ``end``),
# the value, the fiscal year and period of the report, its form, filing date, accession
# number and, when the value is the one for a calendar period, that period (``CY2024Q1I``).
DATA_POINT_MEMBERS = ("start", "end", "val", "fy", "fp", "form", "filed", "accn", "frame")


@dataclass(frozen=True)
class CompanyFilings:
    """A filer: its CIK, ``header`` (:data:`FILER_STRINGS` as text or None,
    :data:`FILER_BOOLEANS` as booleans or None), its ``tickers`` and ``exchanges``, and its
    recent filings, newest first, each a mapping of :data:`FILING_MEMBERS` (None where the
    source has nothing)."""

    cik: int
    header: dict[str, Any]
    tickers: list[str]
    exchanges: list[str]
    filings: list[dict[str, Any]]


@dataclass(frozen=True)
class Concept:
    """One reported concept of a taxonomy: its label, description and values by unit
    (``"USD"``, ``"USD/shares"``, ``"shares"``...), each a list of
    :data:`DATA_POINT_MEMBERS` mappings in the source's order."""

    label: str | None
    description: str | None
    units: dict[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class CompanyFacts:
    """Every fact a company reported in XBRL: taxonomy (``us-gaap``, ``ifrs-full``,
    ``dei``...) -> concept name -> :class:`Concept`."""

    cik: int
    name: str | None
    taxonomies: dict[str, dict[str, Concept]]


@dataclass(frozen=True)
class FilingSearch:
    """One page of a full-text search: the total number of hits (None when the source
    does not say) and the page's hits, each ``{fileDate, form, adsh, displayNames,
    ciks}``."""

    total_hits: int | None
    hits: list[dict[str, Any]]
