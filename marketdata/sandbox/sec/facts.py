"""EDGAR's XBRL company facts and full-text search in the sandbox.

Company facts (``/api/xbrl/companyfacts/CIK##########.json``): every 10-Q, 10-K and 20-F
the company filed (:mod:`marketdata.sandbox.sec.filings`) in the last five calendar years
up to the clock reports the 17 headline ``us-gaap`` concepts, and the cover page's
``dei:EntityCommonStockSharesOutstanding``. Values are in EDGAR's shapes: durations
(income and cash-flow lines: a quarter for a 10-Q, the fiscal year for a 10-K or 20-F)
have a ``start``, balances do not; ``frame`` names the calendar period (``CY2024Q3``,
``CY2024Q3I`` for a balance, ``CY2024`` for a year); EPS is in ``USD/shares``, shares in
``shares``. Figures come from sha256 of the filing, scaled to the company's market value,
so they are the same in every run and add up (gross profit = revenue - cost of revenue,
equity = assets - liabilities).

Full-text search (``efts.sec.gov/LATEST/search-index``): the filings (every form but
Form 4, up to the clock, last three years) of the companies the query names (a word of
``q`` in the company's name or a ticker); a query that names none matches one company in
twenty by sha256 of the query, as words found in filings' text would. Hits are newest
first, filtered by ``forms`` and the custom date range, paged by ``from``/``size``; the
total is counted up to 10,000 (``relation: gte`` beyond), as EDGAR does.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from marketdata.sandbox.instruments import stable_hash, unit
from marketdata.sandbox.sec.companies import Company, all_companies
from marketdata.sandbox.sec.filings import Filing, filings_of_year, recent_filings

FACT_YEARS = 5
PERIODIC = ("10-Q", "10-K", "20-F")
MAX_TOTAL = 10_000

# concept -> (label, kind): "flow" a duration in USD, "eps" a duration in USD/shares,
# "balance" an instant in USD.
CONCEPTS = {
    "Revenues": ("Revenues", "flow"),
    "CostOfRevenue": ("Cost of Revenue", "flow"),
    "GrossProfit": ("Gross Profit", "flow"),
    "OperatingIncomeLoss": ("Operating Income (Loss)", "flow"),
    "NetIncomeLoss": ("Net Income (Loss) Attributable to Parent", "flow"),
    "EarningsPerShareBasic": ("Earnings Per Share, Basic", "eps"),
    "EarningsPerShareDiluted": ("Earnings Per Share, Diluted", "eps"),
    "Assets": ("Assets", "balance"),
    "AssetsCurrent": ("Assets, Current", "balance"),
    "Liabilities": ("Liabilities", "balance"),
    "LiabilitiesCurrent": ("Liabilities, Current", "balance"),
    "StockholdersEquity": ("Stockholders' Equity Attributable to Parent", "balance"),
    "CashAndCashEquivalentsAtCarryingValue": ("Cash and Cash Equivalents, at Carrying Value",
                                              "balance"),
    "LongTermDebtNoncurrent": ("Long-Term Debt, Excluding Current Maturities", "balance"),
    "NetCashProvidedByUsedInOperatingActivities": (
        "Net Cash Provided by (Used in) Operating Activities", "flow"),
    "NetCashProvidedByUsedInInvestingActivities": (
        "Net Cash Provided by (Used in) Investing Activities", "flow"),
    "NetCashProvidedByUsedInFinancingActivities": (
        "Net Cash Provided by (Used in) Financing Activities", "flow"),
}
SHARES = "EntityCommonStockSharesOutstanding"


def _description(label: str) -> str:
    return f"The amount of {label[0].lower()}{label[1:]} reported for the period."


def periodic_filings(c: Company, today: date) -> list[Filing]:
    """The company's 10-Q, 10-K and 20-F filings of the last five years up to ``today``, in
    filing order."""
    return [f for year in range(today.year - FACT_YEARS + 1, today.year + 1)
            for f in filings_of_year(c.cik, year) if f.form in PERIODIC and f.day <= today]


def _figures(c: Company, f: Filing) -> dict[str, float]:
    """The report's values in dollars (EPS in dollars per share), a quarter's for a 10-Q,
    a year's (flows) for a 10-K or 20-F."""
    inst = c.instrument
    shares = float(max(inst.shares_outstanding, 1_000_000))
    quarters = 1 if f.form == "10-Q" else 4
    revenue = round(inst.anchor_price * shares * (0.05 + 0.15 * unit("rev", c.cik))
                    * (0.9 + 0.2 * unit("revq", f.accession)) / 4 * quarters, -6)
    cost = round(revenue * (0.35 + 0.3 * unit("cost", c.cik)), -6)
    operating = round((revenue - cost) * (0.3 + 0.4 * unit("opin", f.accession)), -6)
    net = round(operating * 0.82, -6)
    eps = round(net / shares, 2)
    assets = round(revenue / quarters * 4 * (1.5 + 1.5 * unit("assets", c.cik)), -6)
    liabilities = round(assets * (0.4 + 0.4 * unit("liab", c.cik)), -6)
    operating_cash = round(net * (1.0 + 0.4 * unit("ocf", f.accession)), -6)
    return {
        "Revenues": revenue, "CostOfRevenue": cost, "GrossProfit": revenue - cost,
        "OperatingIncomeLoss": operating, "NetIncomeLoss": net,
        "EarningsPerShareBasic": round(eps * 1.01, 2), "EarningsPerShareDiluted": eps,
        "Assets": assets, "AssetsCurrent": round(assets * 0.35, -6),
        "Liabilities": liabilities, "LiabilitiesCurrent": round(liabilities * 0.4, -6),
        "StockholdersEquity": assets - liabilities,
        "CashAndCashEquivalentsAtCarryingValue": round(assets * 0.1, -6),
        "LongTermDebtNoncurrent": round(liabilities * 0.3, -6),
        "NetCashProvidedByUsedInOperatingActivities": operating_cash,
        "NetCashProvidedByUsedInInvestingActivities": -round(operating_cash * 0.4, -6),
        "NetCashProvidedByUsedInFinancingActivities": -round(operating_cash * 0.5, -6),
        SHARES: round(shares * (1 - 0.002 * unit("buyback", f.accession))),
    }


def _quarter(day: date) -> int:
    return (day.month - 1) // 3 + 1


def _point(f: Filing, kind: str, value: float) -> dict[str, Any]:
    """One value in EDGAR's key order (``start`` only for durations, ``frame`` always)."""
    end = date.fromisoformat(f.report_date)
    annual = f.form != "10-Q"
    point: dict[str, Any] = {}
    if kind != "balance":
        point["start"] = (end - timedelta(days=364 if annual else 91)).isoformat()
    point.update(end=end.isoformat(), val=int(value) if float(value).is_integer() else value,
                 accn=f.accession, fy=f.fiscal_year or end.year,
                 fp="FY" if annual else (f.period or f"Q{_quarter(end)}"), form=f.form,
                 filed=f.day.isoformat())
    if kind == "balance":
        point["frame"] = f"CY{end.year}Q{_quarter(end)}I"
    else:
        point["frame"] = f"CY{end.year}" if annual else f"CY{end.year}Q{_quarter(end)}"
    return point


def company_facts(c: Company, today: date) -> dict[str, Any]:
    """``companyfacts/CIK##########.json`` as of ``today``."""
    reports = periodic_filings(c, today)
    figures = [(f, _figures(c, f)) for f in reports]
    gaap: dict[str, Any] = {}
    for concept, (label, kind) in CONCEPTS.items():
        unit_name = "USD/shares" if kind == "eps" else "USD"
        gaap[concept] = {"label": label, "description": _description(label),
                         "units": {unit_name: [_point(f, kind, v[concept])
                                               for f, v in figures]}}
    shares = {"label": "Entity Common Stock, Shares Outstanding",
              "description": "Number of shares of the registrant's common stock outstanding, "
                             "as stated on the cover of the report.",
              "units": {"shares": [{"end": f.day.isoformat(), "val": int(v[SHARES]),
                                    "accn": f.accession, "fy": f.fiscal_year or f.day.year,
                                    "fp": "FY" if f.form != "10-Q" else f.period or "Q1",
                                    "form": f.form, "filed": f.day.isoformat()}
                                   for f, v in figures]}}
    return {"cik": c.cik, "entityName": c.name,
            "facts": {"dei": {SHARES: shares}, "us-gaap": gaap}}


# -- full-text search -----------------------------------------------------------------------
def terms(query: str) -> list[str]:
    """The words of a query (two characters or more), lower-case."""
    return [t for t in re.split(r"[^A-Za-z0-9&.-]+", query.lower()) if len(t) >= 2]


def matching_companies(query: str) -> list[Company]:
    """The companies a query finds: those it names, else one in twenty by sha256."""
    wanted = terms(query)
    named = [c for c in all_companies()
             if any(t in c.name.lower().split() or t.upper() in c.tickers for t in wanted)]
    if named:
        return named
    return [c for c in all_companies() if stable_hash("efts", query.lower(), c.cik) % 20 == 0]


def display_name(c: Company) -> str:
    return f"{c.name}  ({', '.join(c.tickers)})  (CIK {c.cik:010d})"


def _source(c: Company, f: Filing) -> dict[str, Any]:
    return {"ciks": [f"{c.cik:010d}"], "period_ending": f.report_date,
            "file_num": [f"001-{c.cik % 100000:05d}"], "display_names": [display_name(c)],
            "root_forms": [f.form], "file_date": f.day.isoformat(), "form": f.form,
            "adsh": f.accession, "file_type": f.form, "file_description": f.description,
            "biz_states": ["DE"], "inc_states": ["DE"]}


def search(query: str, forms: list[str], start: date | None, end: date | None, offset: int,
           size: int, today: date) -> dict[str, Any]:
    """The search answer (Elasticsearch's shape) of one page."""
    keep = {form.upper() for form in forms}
    found = [(c, f) for c in matching_companies(query) for f in recent_filings(c.cik, today)
             if f.form != "4" and (not keep or f.form.upper() in keep)
             and (start is None or f.day >= start) and (end is None or f.day <= end)]
    found.sort(key=lambda cf: (cf[1].day, cf[1].accession), reverse=True)
    hits = [{"_index": "edgar_file", "_id": f"{f.accession}:{f.primary.rsplit('/', 1)[-1]}",
             "_score": round(10 - 5 * unit("score", query, f.accession), 4),
             "_source": _source(c, f)} for c, f in found[offset:offset + size]]
    total = {"value": min(len(found), MAX_TOTAL),
             "relation": "gte" if len(found) > MAX_TOTAL else "eq"}
    return {"took": 40 + stable_hash("took", query) % 200, "timed_out": False,
            "hits": {"total": total, "max_score": hits[0]["_score"] if hits else None,
                     "hits": hits}}
