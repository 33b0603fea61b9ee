"""A company's filings with its securities regulator, its reported financial facts, and
full-text search over filings, whoever served them (today SEC EDGAR).

The members are declared on the records (:mod:`marketdata.records.members`); EDGAR's own
names are the members' (``sicDescription``, ``accessionNumber``, ``accn``), so its parser
reads each by its member's name.
"""

from __future__ import annotations

from dataclasses import dataclass

from marketdata.records.members import member, members_of

_DAY = "`YYYY-MM-DD`"


@dataclass(frozen=True)
class FilerId:
    """A ticker's filer id."""

    symbol: str = member("The ticker as EDGAR lists it")
    cik: int = member("SEC Central Index Key (URLs zero-pad it to 10 digits)")


@dataclass(frozen=True)
class Filing:
    """One filing, None where the source has no value."""

    accession_number: str | None = member("EDGAR's id of the filing, `0000320193-24-000123`")
    filing_date: str | None = member(_DAY)
    report_date: str | None = member(f"The period or event reported, {_DAY} (null where none)")
    form: str | None = member("Form type: `10-K`, `10-Q`, `8-K`, `4`, `20-F`, `6-K`...")
    primary_document: str | None = member("File name of the main document in the filing's "
                                          "folder")
    primary_doc_description: str | None = member("EDGAR's description of it (null where none)")
    size: int | None = member("Bytes")


@dataclass(frozen=True)
class CompanyFilings:
    """A filer: its CIK, its header (text, or the insider-transaction flags as booleans;
    None where the source has none), its tickers and exchanges, and its recent filings,
    newest first."""

    cik: int = member("SEC Central Index Key")
    name: str | None = member()
    sic: str | None = member()
    sic_description: str | None = member()
    fiscal_year_end: str | None = member()
    category: str | None = member()
    ein: str | None = member()
    entity_type: str | None = member()
    state_of_incorporation: str | None = member()
    website: str | None = member()
    tickers: list[str] = member()
    exchanges: list[str] = member()
    insider_transaction_for_owner_exists: bool | None = member()
    insider_transaction_for_issuer_exists: bool | None = member()
    filings: list[Filing] = member()
    # Not a member: where the rest of the filing list is, for the readers that go further
    # back than ``filings`` (insider transactions of a busy filer).
    older_pages: tuple[SubmissionsPage, ...] = ()


@dataclass(frozen=True)
class SubmissionsPage:
    """An older page of a filer's filing list (EDGAR's ``filings.files``): its file name
    and the filing dates it spans (ISO days)."""

    name: str
    filing_from: str
    filing_to: str


# The header members of a filer, in the order they are shown (EDGAR's names): its texts and
# its flags.
FILER_STRINGS = tuple(m.name for m in members_of(CompanyFilings)
                      if m.schema["type"] == ["string", "null"])
FILER_BOOLEANS = tuple(m.name for m in members_of(CompanyFilings)
                       if m.schema["type"] == ["boolean", "null"])


@dataclass(frozen=True)
class DataPoint:
    """One reported value: the period (``start`` None for a balance at ``end``), the value,
    the fiscal year and period of the report, its form, filing date, accession number and,
    when the value is the one for a calendar period, that period (``CY2024Q1I``); None
    where the source has nothing."""

    start: str | None = member(f"Period start {_DAY} (null for a balance)")
    end: str | None = member(f"Period end or balance date, {_DAY}")
    val: float | None = member("The value, unscaled, in `unit`")
    fy: int | None = member("Fiscal year of the report")
    fp: str | None = member("Fiscal period of the report: `FY`, `Q1`..`Q4`")
    form: str | None = member("Form that reported it")
    filed: str | None = member(f"Filing date, {_DAY}")
    accn: str | None = member("Accession number of the filing")
    frame: str | None = member("Calendar period the value stands for (`CY2024Q1I`), null "
                               "when another value does")


@dataclass(frozen=True)
class Concept:
    """One reported concept of a taxonomy: its label, description and values by unit
    (``"USD"``, ``"USD/shares"``, ``"shares"``...), each a list in the source's order."""

    label: str | None
    description: str | None
    units: dict[str, list[DataPoint]]


@dataclass(frozen=True)
class CompanyFacts:
    """Every fact a company reported in XBRL: taxonomy (``us-gaap``, ``ifrs-full``,
    ``dei``...) -> concept name -> :class:`Concept`."""

    cik: int
    name: str | None
    taxonomies: dict[str, dict[str, Concept]]


@dataclass(frozen=True)
class ConceptValues:
    """One concept of a taxonomy in one unit: its values."""

    concept: str = member()
    label: str | None = member()
    description: str | None = member()
    taxonomy: str = member()
    unit: str = member("`USD`, `USD/shares`, `shares`, `pure`...")
    data_points: list[DataPoint] = member()


@dataclass(frozen=True)
class SearchHit:
    """One filing document a full-text search found."""

    file_date: str | None = member(_DAY)
    form: str | None = member()
    adsh: str | None = member("Accession number")
    display_names: list[str] = member("The filers, as EDGAR names them: `Apple Inc. (AAPL) "
                                      "(CIK 0000320193)`, two spaces before each "
                                      "parenthesis")
    ciks: list[str] = member("The filers' CIKs, 10 digits")


@dataclass(frozen=True)
class FilingSearch:
    """One page of a full-text search: the total number of hits (None when the source
    does not say), the page's hits and, set by the service (it knows the page asked for),
    where the next page starts."""

    total_hits: int | None = member("Matching documents in all (EDGAR counts at most 10,000)")
    hits: list[SearchHit] = member()
    next_from: int | None = member("`from` of the next page; null on the last", default=None)
