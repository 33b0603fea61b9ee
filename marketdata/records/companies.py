"""What is published about companies: their press releases and the indices they belong to,
in one shape whichever source (a keyed aggregator, a public filing archive, an
encyclopedia's tables) answered."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from marketdata.records.members import member


@dataclass(frozen=True)
class PressRelease:
    """One release: ``date`` as the source dates it (a filing date ``YYYY-MM-DD``, or a
    publication time ``YYYY-MM-DDTHH:MM:SS``), ``text`` plain text; None where unknown."""

    date: str | None = member("SEC EDGAR: the 8-K's filing date (`YYYY-MM-DD`); Financial "
                              "Modeling Prep: the publication time (`YYYY-MM-DDTHH:MM:SS`)")
    # Always set; the interface has always said it may be null.
    symbol: str = member("The company's symbol", schema={"type": ["string", "null"]})
    title: str | None = member("Headline")
    text: str | None = member("Plain text of the release (EDGAR: lines separated by newlines, "
                              "at most 20,000 characters)")


@dataclass(frozen=True)
class Constituent:
    """One member of an index: ``symbol`` in Yahoo's spelling (``BRK-B``), ``cik`` ten
    digits when the source gives a numeric one; a member the source lacks is None."""

    symbol: str | None = member("Yahoo's spelling: share classes with a dash (`BRK-B`)")
    name: str | None = member("Company name")
    sector: str | None = member("GICS sector (Dow: the industry Wikipedia gives)")
    sub_sector: str | None = member("GICS sub-industry; null where the source has none (Dow)")
    headquarters: str | None = member("City, state; null where the source has none")
    date_first_added: str | None = member(
        "Date the company joined the index (`YYYY-MM-DD` when the source gives a readable "
        "date); null where unknown")
    cik: str | None = member("SEC Central Index Key, ten digits; null where the source has "
                             "none")
    founded: str | None = member("Year founded, as the source writes it")


def yahoo_spelling(symbol: str) -> str:
    """Share classes with a dash, as Yahoo and the rest of this API write them."""
    return symbol.strip().upper().replace(".", "-")


def constituent(row: Mapping[str, Any]) -> Constituent:
    """A source's row keyed by the spec's member names (``symbol``, ``name``, ``sector``,
    ``subSector``, ``headquarters``, ``dateFirstAdded``, ``cik``, ``founded``) -> the
    record, the symbol and the CIK spelled one way whatever the source."""
    symbol, cik = row.get("symbol"), row.get("cik")
    return Constituent(
        symbol=yahoo_spelling(symbol) if isinstance(symbol, str) else symbol,
        name=row.get("name"),
        sector=row.get("sector"),
        sub_sector=row.get("subSector"),
        headquarters=row.get("headquarters"),
        date_first_added=row.get("dateFirstAdded"),
        cik=cik.zfill(10) if isinstance(cik, str) and cik.isdigit() else cik,
        founded=row.get("founded"),
    )


@dataclass(frozen=True)
class CompanyProfile:
    """Who a listed company (or fund) is, in the source's own words: ``asset_type`` as the
    source names it (Yahoo's ``EQUITY``/``ETF``, Alpha Vantage's ``Common Stock``/``ETF``),
    ``market_capitalization`` in ``currency``. ``address`` is one line (street, city, state,
    postal code, as the source writes them). ``fund_family`` and ``fund_category`` are a
    fund's (None for a company). Anything the source does not have is None."""

    symbol: str = member("The symbol as the source writes it")
    name: str | None = member("Company or fund name", default=None)
    description: str | None = member("What the company does (a fund: its objective)",
                                     default=None)
    asset_type: str | None = member(
        "The source's word for the kind of security: Yahoo's EQUITY, ETF, MUTUALFUND, ...; "
        "Alpha Vantage's Common Stock, ETF, ...", default=None)
    exchange: str | None = member(
        "Where it is listed, as the source names it (Yahoo: NasdaqGS, XETRA, ...; Alpha "
        "Vantage: NASDAQ, NYSE, ...)", default=None)
    currency: str | None = member("Trading currency (ISO code; Yahoo's GBp for pence)",
                                  default=None)
    country: str | None = member("Country of the company's head office", default=None)
    sector: str | None = member("Sector; null for funds", default=None)
    industry: str | None = member("Industry; null for funds", default=None)
    market_capitalization: float | None = member("Market value in `currency`", default=None)
    website: str | None = member("The company's website", default=None)
    phone: str | None = member("Head office telephone (Yahoo only)", default=None)
    address: str | None = member(
        "Head office address on one line: street, city, state and postal code, as the "
        "source writes them", default=None)
    employees: int | None = member("Full-time employees (Yahoo only)", default=None)
    fund_family: str | None = member("A fund's family (Yahoo's fundProfile); null for "
                                     "companies", default=None)
    fund_category: str | None = member("A fund's category (Yahoo's fundProfile); null for "
                                       "companies", default=None)
