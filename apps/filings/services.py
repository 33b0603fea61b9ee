"""SEC filings of a company: its filer id, its filer header and recent filings, its XBRL
facts, full-text search and its insiders' transactions (the capabilities of
:mod:`marketdata.capabilities.filings`), as records (their members are declared on them:
:mod:`marketdata.records.filings`, :mod:`marketdata.records.insiders`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import date

from apps.core.symbols import require_symbol
from marketdata.capabilities import filings
from marketdata.records.filings import CompanyFilings, ConceptValues, FilerId, FilingSearch
from marketdata.records.insiders import InsiderActivity, InsiderSummary, InsiderTransaction


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


def _by(insider: int | str | None, row: InsiderTransaction) -> bool:
    """Whether a reporting owner of the row's filing is ``insider``: a CIK (int), or a
    piece of the name already case-folded."""
    if insider is None:
        return True
    if isinstance(insider, int):
        return any(owner.cik == insider for owner in row.owners)
    return any(insider in (owner.name or "").casefold() for owner in row.owners)


def insider_summary(rows: Iterable[InsiderTransaction]) -> InsiderSummary:
    """The totals of :class:`InsiderSummary` over ``rows``, superseded rows left out."""
    counted = [row for row in rows if not row.superseded]
    table_one = [row for row in counted if row.derivative is None]
    buys = [row for row in table_one if row.code == "P"]
    sells = [row for row in table_one if row.code == "S"]

    def total(items: Iterable[float | None], digits: int = 4) -> float:
        return round(sum(item for item in items if item is not None), digits)

    buy_shares, sell_shares = total(r.shares for r in buys), total(r.shares for r in sells)
    buy_value, sell_value = total((r.value for r in buys), 2), total((r.value for r in sells), 2)
    return InsiderSummary(
        transactions=len(counted),
        insiders=len({owner.cik or owner.name for row in counted for owner in row.owners}),
        buys=len(buys), sells=len(sells), buy_shares=buy_shares, sell_shares=sell_shares,
        net_shares=round(buy_shares - sell_shares, 4), buy_value=buy_value,
        sell_value=sell_value, net_value=round(buy_value - sell_value, 2),
        acquired_shares=total(r.shares for r in table_one if r.acquired_or_disposed == "A"),
        disposed_shares=total(r.shares for r in table_one if r.acquired_or_disposed == "D"))


def insiders(symbol_text: str, start: date, end: date, codes: frozenset[str] | None,
             insider: int | str | None) -> InsiderActivity:
    """The company's insider transactions dated ``start``..``end``, newest first, kept by
    ``codes`` and ``insider`` (see :func:`_by`), with their summary."""
    symbol = require_symbol(symbol_text)
    window = filings.insider_transactions(symbol, start.isoformat(), end.isoformat())
    rows = [row for row in window.transactions
            if (codes is None or row.code in codes) and _by(insider, row)]
    return InsiderActivity(
        symbol=symbol, cik=window.cik, start=start.isoformat(), end=end.isoformat(),
        filings=window.filings, filings_read=window.filings_read, truncated=window.truncated,
        notices=window.notices, summary=insider_summary(rows), transactions=rows)
