"""SEC filings of a company: its filer id, its filer header and recent filings, its XBRL
facts, and full-text search (the capabilities of :mod:`marketdata.capabilities.filings`),
as records (their members are declared on them: :mod:`marketdata.records.filings`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from apps.core.symbols import require_symbol
from marketdata.capabilities import filings
from marketdata.records.filings import CompanyFilings, ConceptValues, FilerId, FilingSearch


def cik_for(symbol_text: str) -> FilerId:
    symbol = require_symbol(symbol_text)
    return FilerId(symbol, filings.cik(symbol))


def filer(symbol_text: str) -> CompanyFilings:
    """The filer's header and recent filings, newest first."""
    return filings.filings(require_symbol(symbol_text))


def facts(symbol_text: str, taxonomy: str, concepts: Iterable[str],
          forms: Iterable[str]) -> list[ConceptValues]:
    """One item per (concept, unit) the company reported, concepts in the order given,
    units in EDGAR's; with ``forms``, only the values reported in those forms (matched
    without regard to case), and a unit left without values is left out."""
    found = filings.facts(require_symbol(symbol_text)).taxonomies.get(taxonomy, {})
    keep = {form.upper() for form in forms}
    out = []
    for name in concepts:
        concept = found.get(name)
        if concept is None:
            continue
        for unit, points in concept.units.items():
            if keep:
                points = [p for p in points if (p.form or "").upper() in keep]
                if not points:
                    continue
            out.append(ConceptValues(name, concept.label, concept.description, taxonomy, unit,
                                     points))
    return out


def search(query: str, forms: list[str], start_date: str | None, end_date: str | None,
           offset: int, size: int) -> FilingSearch:
    """One page of hits with ``next_from``, the ``from`` of the next page: None when this
    page is the last (fewer hits than asked, or the total reached)."""
    found = filings.search(query.strip(), forms, start_date, end_date, offset, size)
    end = offset + len(found.hits)
    more = bool(found.hits) and (end < found.total_hits if found.total_hits is not None
                                 else len(found.hits) == size)
    return replace(found, next_from=end if more else None)
