"""Institutional managers and their Form 13F filings: submissions, cover pages
(``primary_doc.xml``), information tables, index pages and full-text search hits, in
EDGAR's shapes.

Five managers (names made up; CIKs from :data:`FIRST_CIK` on, outside the companies'
range), each a different case a client meets on EDGAR, and one listed company:

- **Harborview Capital Management LLC** (1990001): a 13F-HR every quarter since 2021, about
  forty holdings of the famous US equities and ETFs, an SPY put and a QQQ call; tables
  without a namespace prefix (``infotable.xml``).
- **Northwind Asset Partners LP** (1990002): tables with an ``ns1:`` prefix
  (``form13fInfoTable.xml``), rows shared with two other managers, FIGIs from 2023 on; a
  *restatement* (13F-HR/A ``RESTATEMENT``) of its 2024-03-31 report 20 days after it, and
  *new holdings* amendments for 2023-09-30 and for 2022-06-30 (the latter filed in
  February 2023: its values in dollars, its report's in thousands).
- **Meridian Retirement Investment Board** (1990003): the largest table (each security in
  three rows, by investment discretion, plus principal-amount rows of notes), under a
  default namespace (``{number}.xml``).
- **Quietwater Advisors Inc** (1990004): files 13F-NT notices only (its holdings are
  reported by another manager): no holdings report, the service's 404.
- **Cedar Ridge Capital LLC** (1990005): its filings before :data:`HISTORY_BEFORE` are in
  an older page of its filing list (``filings.files``: ``CIK0001990005-submissions-001
  .json``); its 2025-06-30 report has an empty information table.

And **Berkshire Hathaway Inc** (1067983), a listed company of the sandbox that files
13F-HRs too, as the real one does: its reports join its company filings, numbered by a
filer agent (``0000950123-``), eight famous holdings.

A report is filed 30 to 44 days after its quarter ends (weekends moved to the Monday) and
exists once the sandbox clock reaches that day. Values follow the form's rule: filings made
before 2023-01-03 give thousands of dollars, later ones dollars; a holding's value is its
shares at the close of the quarter's last session of the Yahoo sandbox series (so the two
sandboxes agree). Shares drift from quarter to quarter by sha256 of the manager, symbol and
quarter. Every answer is a pure function of the request and the clock.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

import numpy as np

from marketdata.records.institutions import DOLLARS_SINCE
from marketdata.sandbox.instruments import KNOWN_ETFS, get_instrument, stable_hash, unit
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.sec import fails
from marketdata.sandbox.sec.companies import company
from marketdata.sandbox.sec.filings import Exhibit, Filing

FIRST_CIK = 1_990_001
FIRST_YEAR = 2021
HISTORY_BEFORE = date(2024, 1, 1)
XSL = "xslForm13F_X02"
NAMESPACE = "http://www.sec.gov/edgar/document/thirteenf/informationtable"
COVER_NAMESPACE = "http://www.sec.gov/edgar/thirteenffiler"


@dataclass(frozen=True)
class Manager:
    cik: int
    name: str
    table_style: str  # "plain", "prefixed" or "default" (namespace)
    city: str
    state: str
    notices_only: bool = False
    # A filer agent's CIK that prefixes its accession numbers (None: its own), and the
    # securities it holds (None: drawn from the famous US equities and ETFs).
    agent: int | None = None
    holds: tuple[str, ...] | None = None


MANAGERS = (
    Manager(FIRST_CIK, "Harborview Capital Management LLC", "plain", "BOSTON", "MA"),
    Manager(FIRST_CIK + 1, "Northwind Asset Partners LP", "prefixed", "GREENWICH", "CT"),
    Manager(FIRST_CIK + 2, "Meridian Retirement Investment Board", "default", "SACRAMENTO",
            "CA"),
    Manager(FIRST_CIK + 3, "Quietwater Advisors Inc", "plain", "DENVER", "CO",
            notices_only=True),
    Manager(FIRST_CIK + 4, "Cedar Ridge Capital LLC", "plain", "CHICAGO", "IL"),
    # A listed company that also files 13F-HRs (as the real one does), through an agent.
    Manager(1067983, "Berkshire Hathaway Inc", "default", "OMAHA", "NE", agent=950123,
            holds=("AAPL", "KO", "AMZN", "V", "JPM", "DIS", "NVDA", "META")),
)
_BY_CIK = {m.cik: m for m in MANAGERS}
HARBORVIEW, NORTHWIND, MERIDIAN, QUIETWATER, CEDAR_RIDGE, BERKSHIRE = MANAGERS
# (manager, period) -> (amendment type, days after the report it is filed).
AMENDMENTS = {
    (NORTHWIND.cik, "2024-03-31"): ("RESTATEMENT", 20),
    (NORTHWIND.cik, "2023-09-30"): ("NEW HOLDINGS", 10),
    (NORTHWIND.cik, "2022-06-30"): ("NEW HOLDINGS", 0),  # filed 2023-02-10, in dollars
}
NEW_HOLDINGS_DAY = {(NORTHWIND.cik, "2022-06-30"): date(2023, 2, 10)}
EMPTY_REPORTS = frozenset({(CEDAR_RIDGE.cik, "2025-06-30")})


def manager(cik: int) -> Manager | None:
    return _BY_CIK.get(cik)


@dataclass(frozen=True)
class Report:
    """One 13F filing: ``amendment`` None for an original, else ``(number, type)``."""

    manager: Manager
    period: date
    day: date
    accession: str
    amendment: tuple[int, str] | None = None

    @property
    def form(self) -> str:
        if self.manager.notices_only:
            return "13F-NT"
        return "13F-HR/A" if self.amendment else "13F-HR"

    @property
    def folder(self) -> str:
        return self.accession.replace("-", "")

    @property
    def table(self) -> str:
        style = self.manager.table_style
        if style == "prefixed":
            return "form13fInfoTable.xml"
        if style == "default":
            return f"{stable_hash('13f-table', self.accession) % 10**5:05d}.xml"
        return "infotable.xml"

    def filing(self) -> Filing:
        """As the company sandbox's filing, for its index page and folder listing."""
        documents: tuple[Exhibit, ...] = (Exhibit(self.form, "primary_doc.xml", ""),)
        if self.form != "13F-NT":
            documents += (Exhibit("INFORMATION TABLE", f"{XSL}/{self.table}", ""),
                          Exhibit("INFORMATION TABLE", self.table, ""))
        return Filing(cik=self.manager.cik, accession=self.accession, day=self.day,
                      form=self.form, items="", primary=f"{XSL}/primary_doc.xml",
                      description="", kind="13F", accepted=f"{self.day.isoformat()}"
                      "T16:05:11.000Z", report_date=self.period.isoformat(),
                      exhibits=documents)


def _quarter_ends(until: date) -> list[date]:
    out = []
    for year in range(FIRST_YEAR, until.year + 1):
        for month, day in ((3, 31), (6, 30), (9, 30), (12, 31)):
            if date(year, month, day) < until:
                out.append(date(year, month, day))
    return out


def _weekday(day: date) -> date:
    return day + timedelta(days=(7 - day.weekday()) % 7) if day.weekday() >= 5 else day


@lru_cache(maxsize=64)
def _all_reports(cik: int, year: int) -> tuple[Report, ...]:
    """Every 13F filing of one manager made in ``year`` (clock not applied), in filing
    order, numbered as EDGAR numbers a filer agent's filings of a year."""
    m = _BY_CIK[cik]
    found: list[tuple[date, date, tuple[int, str] | None]] = []
    for period in _quarter_ends(date(year + 1, 1, 1) + timedelta(days=1)):
        day = _weekday(period + timedelta(days=30 + stable_hash("13f-day", cik, period) % 15))
        if day.year == year:
            found.append((day, period, None))
        amended = AMENDMENTS.get((cik, period.isoformat()))
        if amended:
            later = NEW_HOLDINGS_DAY.get((cik, period.isoformat())) or \
                _weekday(day + timedelta(days=amended[1]))
            if later.year == year:
                found.append((later, period, (1, amended[0])))
    found.sort(key=lambda item: (item[0], item[1]))
    base = 1 + stable_hash("13f-seq", cik, year) % 500
    prefix = m.agent or cik
    return tuple(Report(m, period, day, f"{prefix:010d}-{year % 100:02d}-{base + seq:06d}",
                        amendment)
                 for seq, (day, period, amendment) in enumerate(found))


def reports(m: Manager, today: date) -> list[Report]:
    """The manager's 13F filings up to ``today``, newest first."""
    out: list[Report] = []
    for year in range(today.year, FIRST_YEAR - 1, -1):
        out.extend(r for r in reversed(_all_reports(m.cik, year)) if r.day <= today)
    return out


def find_report(m: Manager, accession: str, today: date) -> Report | None:
    return next((r for r in reports(m, today) if r.accession == accession), None)


# -- the tables -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    symbol: str
    issuer: str
    title: str
    cusip: str
    figi: str | None
    shares: int
    kind: str  # SH or PRN
    put_call: str | None
    discretion: str
    others: str | None
    dollars: float  # the row's value in dollars (rounded per the filing's unit when written)


def _close(symbol: str, period: date) -> float:
    """The close of the last session on or before ``period`` (the quarter's valuation)."""
    return _closes(symbol)[period]


@lru_cache(maxsize=128)
def _closes(symbol: str) -> dict[date, float]:
    inst = get_instrument(symbol)
    assert inst is not None
    series = get_series(inst)
    out = {}
    for period in _quarter_ends(date(2041, 1, 1)):
        i = int(np.searchsorted(series.days, np.datetime64(period), side="right")) - 1
        out[period] = float(series.c[max(i, 0)])
    return out


_CLASSES = {"GOOGL": "CAP STK CL A", "GOOG": "CAP STK CL C", "BRK-B": "CL B NEW"}


def _title(symbol: str) -> str:
    return "ETF" if symbol in KNOWN_ETFS else _CLASSES.get(symbol, "COM")


def _universe(m: Manager) -> tuple[str, ...]:
    symbols = fails.universe()
    if m.holds is not None:
        return m.holds
    if m is MERIDIAN:
        return symbols
    return tuple(s for s in symbols if unit("13f-held", m.cik, s) < 0.6)


def _figi(symbol: str) -> str:
    letters = "BCDFGHJKLMNPQRSTVWXYZ0123456789"
    h = stable_hash("figi", symbol)
    return "BBG" + "".join(letters[(h >> (5 * i)) % len(letters)] for i in range(9))


def rows(report: Report) -> list[Row]:
    """The information table's rows (an amendment's own: a restatement's whole table, a
    new-holdings amendment's added rows only)."""
    m, period = report.manager, report.period
    if (m.cik, period.isoformat()) in EMPTY_REPORTS or m.notices_only:
        return []
    kind = report.amendment[1] if report.amendment else None
    if kind == "NEW HOLDINGS":
        symbols = tuple(s for s in fails.universe() if s not in _universe(m))[:2]
    else:
        symbols = _universe(m)
    figis = m is NORTHWIND and report.day >= DOLLARS_SINCE
    out = []
    for symbol in symbols:
        base = 10_000 + stable_hash("13f-shares", m.cik, symbol) % 2_000_000
        drift = 0.8 + 0.4 * unit("13f-drift", m.cik, symbol, period)
        shares = int(base * drift)
        if kind == "RESTATEMENT" and symbol == symbols[0]:
            shares += 1_000  # the correction the restatement makes
        price = _close(symbol, period)
        splits: list[tuple[str, str | None, float]] = [("SOLE", None, 1.0)]
        if m is NORTHWIND and unit("13f-shared", symbol) < 0.3:
            splits = [("SOLE", None, 0.7), ("DFND", "1,2", 0.3)]
        if m is MERIDIAN:
            splits = [("SOLE", None, 0.6), ("DFND", "1", 0.3), ("OTR", "2", 0.1)]
        for discretion, others, share in splits:
            count = max(1, int(shares * share))
            out.append(Row(symbol, fails.description(symbol), _title(symbol),
                           fails.cusip(symbol), _figi(symbol) if figis else None, count, "SH",
                           None, discretion, others, count * price))
    if m is HARBORVIEW and kind is None:
        for symbol, option in (("SPY", "Put"), ("QQQ", "Call")):
            count = 50_000 + stable_hash("13f-option", symbol, period) % 50_000
            out.append(Row(symbol, fails.description(symbol), _title(symbol),
                           fails.cusip(symbol), None, count, "SH", option, "SOLE", None,
                           count * _close(symbol, period)))
    if m is MERIDIAN and kind is None:
        for symbol in ("AAPL", "MSFT", "NVDA", "AMZN", "JPM", "KO", "DIS", "INTC"):
            amount = 1_000_000 * (1 + stable_hash("13f-note", symbol, period) % 20)
            out.append(Row(symbol, fails.description(symbol), "NOTE 1.500% 3/1",
                           fails.cusip(symbol)[:6] + "AB" + fails.cusip(symbol)[8],
                           None, amount, "PRN", None, "SOLE", None, amount * 0.97))
    return out


def _value(row: Row, report: Report) -> int:
    return round(row.dollars) if report.day >= DOLLARS_SINCE else round(row.dollars / 1000)


def _leaf(tag: str, value: Any, prefix: str) -> str:
    return f"<{prefix}{tag}>{html.escape(str(value), quote=False)}</{prefix}{tag}>"


def information_table(report: Report) -> str:
    """The table's XML: no prefix, an ``ns1:`` prefix or a default namespace."""
    style = report.manager.table_style
    prefix = "ns1:" if style == "prefixed" else ""
    declare = {"prefixed": f' xmlns:ns1="{NAMESPACE}"',
               "default": f' xmlns="{NAMESPACE}"'}.get(style, "")
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n',
             f"<{prefix}informationTable{declare}"
             ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n']
    for row in rows(report):
        sole, shared, none = (row.shares, 0, 0) if row.discretion == "SOLE" else \
            (0, row.shares, 0) if row.discretion == "DFND" else (0, 0, row.shares)
        cells = [_leaf("nameOfIssuer", row.issuer, prefix),
                 _leaf("titleOfClass", row.title, prefix), _leaf("cusip", row.cusip, prefix)]
        if row.figi:
            cells.append(_leaf("figi", row.figi, prefix))
        cells += [_leaf("value", _value(row, report), prefix),
                  f"<{prefix}shrsOrPrnAmt>{_leaf('sshPrnamt', row.shares, prefix)}"
                  f"{_leaf('sshPrnamtType', row.kind, prefix)}</{prefix}shrsOrPrnAmt>"]
        if row.put_call:
            cells.append(_leaf("putCall", row.put_call, prefix))
        cells.append(_leaf("investmentDiscretion", row.discretion, prefix))
        if row.others:
            cells.append(_leaf("otherManager", row.others, prefix))
        cells.append(f"<{prefix}votingAuthority>{_leaf('Sole', sole, prefix)}"
                     f"{_leaf('Shared', shared, prefix)}{_leaf('None', none, prefix)}"
                     f"</{prefix}votingAuthority>")
        parts.append(f"  <{prefix}infoTable>" + "".join(cells) + f"</{prefix}infoTable>\n")
    parts.append(f"</{prefix}informationTable>\n")
    return "".join(parts)


def cover_page(report: Report) -> str:
    """``primary_doc.xml``: header, cover page (amendment information) and summary page."""
    m = report.manager
    table = rows(report)
    total = sum(_value(row, report) for row in table)
    amendment = ""
    if report.amendment:
        number, kind = report.amendment
        amendment = (f"<amendmentNo>{number}</amendmentNo><amendmentInfo><amendmentType>"
                     f"{kind}</amendmentType></amendmentInfo>")
    kind = "13F NOTICE" if m.notices_only else "13F HOLDINGS REPORT"
    quarter = report.period.strftime("%m-%d-%Y")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<edgarSubmission xmlns="{COVER_NAMESPACE}" '
        'xmlns:com="http://www.sec.gov/edgar/common">\n'
        f"<headerData><submissionType>{report.form}</submissionType><filerInfo>"
        "<liveTestFlag>LIVE</liveTestFlag><filer><credentials>"
        f"<cik>{m.cik:010d}</cik><ccc>XXXXXXXX</ccc></credentials></filer>"
        f"<periodOfReport>{quarter}</periodOfReport></filerInfo></headerData>\n"
        f"<formData><coverPage><reportCalendarOrQuarter>{quarter}</reportCalendarOrQuarter>"
        f"<isAmendment>{'true' if report.amendment else 'false'}</isAmendment>{amendment}"
        f"<filingManager><name>{html.escape(m.name)}</name><address><com:city>{m.city}"
        f"</com:city><com:stateOrCountry>{m.state}</com:stateOrCountry></address>"
        f"</filingManager><reportType>{kind}</reportType></coverPage>"
        f"<summaryPage><otherIncludedManagersCount>0</otherIncludedManagersCount>"
        f"<tableEntryTotal>{len(table)}</tableEntryTotal><tableValueTotal>{total}"
        "</tableValueTotal></summaryPage></formData>\n</edgarSubmission>\n")


def document(report: Report, name: str) -> tuple[str, str] | None:
    """(body, content type) of a filed document; None for a name the filing lacks."""
    if name == "primary_doc.xml":
        return cover_page(report), "text/xml"
    if report.form != "13F-NT" and name == report.table:
        return information_table(report), "text/xml"
    return None


# -- submissions and search -------------------------------------------------------------------
def _columns(listed: list[Report]) -> dict[str, list[Any]]:
    def column(pick: Any) -> list[Any]:
        return [pick(r) for r in listed]

    return {
        "accessionNumber": column(lambda r: r.accession),
        "filingDate": column(lambda r: r.day.isoformat()),
        "reportDate": column(lambda r: r.period.isoformat()),
        "acceptanceDateTime": column(lambda r: f"{r.day.isoformat()}T16:05:11.000Z"),
        "act": column(lambda r: "34"), "form": column(lambda r: r.form),
        "fileNumber": column(lambda r: f"028-{r.manager.cik % 100000:05d}"),
        "filmNumber": column(lambda r: str(stable_hash("film", r.accession) % 10**8)),
        "items": column(lambda r: ""), "core_type": column(lambda r: r.form),
        "size": column(lambda r: 8000 + 300 * len(rows(r))),
        "isXBRL": column(lambda r: 0), "isInlineXBRL": column(lambda r: 0),
        "primaryDocument": column(lambda r: f"{XSL}/primary_doc.xml"),
        "primaryDocDescription": column(lambda r: ""),
    }


def _history_name(m: Manager) -> str:
    return f"CIK{m.cik:010d}-submissions-001.json"


def submissions(m: Manager, today: date) -> dict[str, Any]:
    """``submissions/CIK##########.json``: the manager's header and ``filings.recent``;
    Cedar Ridge's filings before :data:`HISTORY_BEFORE` in an older page."""
    listed = reports(m, today)
    older: list[Report] = []
    if m is CEDAR_RIDGE:
        older = [r for r in listed if r.day < HISTORY_BEFORE]
        listed = [r for r in listed if r.day >= HISTORY_BEFORE]
    address = {"street1": "100 MAIN STREET", "street2": None, "city": m.city,
               "stateOrCountry": m.state, "zipCode": f"{stable_hash('zip', m.cik) % 10**5:05d}",
               "stateOrCountryDescription": m.state}
    files = [{"name": _history_name(m), "filingCount": len(older),
              "filingFrom": older[-1].day.isoformat(), "filingTo": older[0].day.isoformat()}
             ] if older else []
    return {
        "cik": f"{m.cik:010d}", "entityType": "other", "sic": "", "sicDescription": "",
        "ownerOrg": "", "insiderTransactionForOwnerExists": 0,
        "insiderTransactionForIssuerExists": 0, "name": m.name, "tickers": [],
        "exchanges": [], "ein": f"{stable_hash('ein', m.cik) % 10**9:09d}", "lei": None,
        "description": "", "website": "", "investorWebsite": "", "category": "",
        "fiscalYearEnd": "1231", "stateOfIncorporation": m.state,
        "stateOfIncorporationDescription": m.state,
        "addresses": {"mailing": address, "business": address},
        "phone": f"617-555-{m.cik % 10000:04d}", "flags": "", "formerNames": [],
        "filings": {"recent": _columns(listed), "files": files},
    }


def with_reports(body: dict[str, Any], m: Manager, today: date) -> dict[str, Any]:
    """A company's submissions with its 13F filings merged into ``filings.recent`` (by
    filing date, newest first, as EDGAR lists them)."""
    recent = body["filings"]["recent"]
    ours = _columns(reports(m, today))
    count = len(recent["accessionNumber"])
    rows = [{k: v[i] for k, v in recent.items()} for i in range(count)]
    rows += [{k: ours.get(k, [""] * len(ours["form"]))[i] for k in recent}
             for i in range(len(ours["form"]))]
    rows.sort(key=lambda row: row["filingDate"], reverse=True)
    merged = {k: [row[k] for row in rows[:1000]] for k in recent}
    return {**body, "filings": {**body["filings"], "recent": merged}}


def history_page(m: Manager, page: str, today: date) -> dict[str, Any] | None:
    """An older page of the filing list (its columns only, as EDGAR serves them)."""
    if m is not CEDAR_RIDGE or page != "001":
        return None
    older = [r for r in reports(m, today) if r.day < HISTORY_BEFORE]
    return _columns(older) if older else None


def _matches(m: Manager, terms: list[str], today: date) -> bool:
    """Whether a manager's filings hold the query's words: its name, or (its table's text)
    an issuer it holds in its latest report."""
    if not any(r.day <= today for r in reports(m, today)):
        return False
    return any(all(t in text for t in terms)
               for text in (m.name.lower(), *(fails.description(s).lower()
                                             for s in _universe(m))))


def _display_name(m: Manager) -> str:
    """EDGAR's ``Name  (TICKERS)  (CIK ##########)``; a listed company's tickers too."""
    listed = company(m.cik)
    tickers = f"  ({', '.join(listed.tickers)})" if listed is not None else ""
    return f"{m.name}{tickers}  (CIK {m.cik:010d})"


def search(terms: list[str], forms: list[str], offset: int, size: int,
           today: date) -> dict[str, Any]:
    """Full-text search restricted to 13F forms: one hit per filing of the managers whose
    documents hold every term (Elasticsearch's shape), newest first."""
    keep = {f.upper() for f in forms}
    found = [r for m in MANAGERS if terms and _matches(m, terms, today)
             for r in reports(m, today) if r.form in keep]
    found.sort(key=lambda r: (r.day, r.accession), reverse=True)
    hits = [{"_index": "edgar_file", "_id": f"{r.accession}:primary_doc.xml",
             "_score": round(10 - 5 * unit("score", " ".join(terms), r.accession), 4),
             "_source": {"ciks": [f"{r.manager.cik:010d}"],
                         "period_ending": r.period.isoformat(),
                         "file_num": [f"028-{r.manager.cik % 100000:05d}"],
                         "display_names": [_display_name(r.manager)],
                         "root_forms": [r.form.removesuffix("/A")],
                         "file_date": r.day.isoformat(), "form": r.form, "adsh": r.accession,
                         "file_type": r.form, "file_description": "",
                         "biz_states": [r.manager.state], "inc_states": [r.manager.state]}}
            for r in found[offset:offset + size]]
    return {"took": 31, "timed_out": False,
            "hits": {"total": {"value": len(found), "relation": "eq"},
                     "max_score": hits[0]["_score"] if hits else None, "hits": hits}}
