"""SEC EDGAR's Form 13F holdings reports: the keyless source of ``/v2/filings/{cik}/13f`` and
``/v2/filings/13f/search``.

The calls go through the SEC provider of :mod:`marketdata.providers.sec` (its declared
User-Agent, its pacer of 10 calls a second, its lane and status map), all GET:

1. the manager's filing list, ``https://data.sec.gov/submissions/CIK##########.json``
   (parsed by :func:`~marketdata.providers.sec.parse_company_submissions`): its
   ``filings.recent`` and, for a manager whose recent list is short of its history (a
   large manager files thousands of Schedule 13Gs a year), up to :data:`MAX_HISTORY_PAGES`
   of the older pages ``filings.files`` names (``CIK##########-submissions-001.json``,
   the same columnar arrays). Only 13F-HR and 13F-HR/A rows are kept; the list is cached
   an hour, each older page a day.
2. each 13F-HR/A of the quarter asked for: its cover page, the filing's
   ``primary_doc.xml`` (the ``primaryDocument`` EDGAR lists is its XSLT rendering,
   ``xslForm13F_X02/primary_doc.xml``; the raw XML has the same name in the folder), for
   ``amendmentNo`` and ``amendmentType`` (``RESTATEMENT`` or ``NEW HOLDINGS``). Cached a
   week (a filing never changes).
3. the filing's index page (``{accession}-index.htm``, the parser and cache of the SEC
   provider), whose document table names the information table by its *type*,
   ``INFORMATION TABLE``: its file name is the filer agent's choice (``infotable.xml``,
   ``46994.xml``, ``form13fInfoTable.xml``...).
4. the information table itself, parsed streaming with expat (:func:`parse_information_table`):
   tables run to tens of thousands of rows (tens of MB); elements are read as they come,
   never held as a tree. Namespaced (``<ns1:infoTable>``, or a default namespace) or not,
   elements are matched by local name. A document type declaration is refused outright, so
   no entity can be declared, let alone expanded (the defence ``defusedxml`` gives, without
   adding it: expat never fetches external entities, and with no DTD there are none).

Which filings make a quarter's holdings: the report is the latest of the original 13F-HR
and the amendments that restate it (``RESTATEMENT``, or an amendment whose cover gives no
type); the rows of every ``NEW HOLDINGS`` amendment filed after it are added. Values are
normalised to dollars by each filing's own date
(:func:`~marketdata.records.institutions.value_unit`).

Caching a table: a filed table never changes, so each one is parsed once and kept a week
per accession number, as its rows in JSON, zlib-compressed. The byte budget: a table whose
compressed rows exceed :data:`TABLE_CACHE_MAX_BYTES` (8 MiB: the largest entry the
in-process cache takes at its default 128 MiB budget, and tens of thousands of rows) is not
kept, only a marker saying so, and is fetched and parsed again when asked for.

Finding filers by name: EDGAR has no name search for 13F filers, so EDGAR's full-text search
(the call of ``/v2/filings/search``, :func:`~marketdata.providers.sec.search_filings`) is
asked for the name as a phrase in 13F-HR and 13F-HR/A filings; the filers of the hits whose
EDGAR name holds every word of the query (as a word's start) are the answer, in the order
of their first hit (EDGAR's relevance), with their newest filing date among the hits.
:data:`SEARCH_PAGES` pages of 100 hits are read at most.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

import orjson

from marketdata import formatting as fmt
from marketdata import safexml
from marketdata.concurrency import run_parallel
from marketdata.errors import NotFound
from marketdata.logs import get_logger
from marketdata.providers import sec
from marketdata.providers.sec import (
    ACCESSION,
    ARCHIVES_URL,
    FILING_TTL,
    PROVIDER,
    SUBMISSIONS_TTL,
    SUBMISSIONS_URL,
    filing_documents,
    parse_company_submissions,
    search_filings,
    sec_provider,
)
from marketdata.records.filings import Filing, SubmissionsPage
from marketdata.records.institutions import (
    FORMS,
    XML_SINCE,
    Addition,
    Holding,
    InstitutionalFiler,
    InstitutionalHoldings,
    is_period,
    nearest_periods,
    value_unit,
)

log = get_logger("marketdata.providers.sec_13f")

# Older filing-list pages read for one manager at most (each up to a few thousand filings).
MAX_HISTORY_PAGES = 4
TABLE_CACHE_MAX_BYTES = 8 * 1024 * 1024
INFORMATION_TABLE = "INFORMATION TABLE"
COVER_DOCUMENT = "primary_doc.xml"
_DOCUMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}", re.ASCII)
# Bytes handed to expat at a time.
CHUNK = 64 * 1024
SEARCH_SIZE = 100
SEARCH_PAGES = 2

# One information-table row as parsed and cached: the text of each column, in this order;
# the numbers as numbers (the value as filed, in the filing's unit).
COLUMNS: Final = ("nameofissuer", "titleofclass", "cusip", "figi", "value", "sshprnamt",
                  "sshprnamttype", "putcall", "investmentdiscretion", "othermanager", "sole",
                  "shared", "none")
_COLUMN = {name: i for i, name in enumerate(COLUMNS)}
_NUMBERS = frozenset(_COLUMN[n] for n in ("value", "sshprnamt", "sole", "shared", "none"))
Row = list[Any]


# -- safe, streaming XML ----------------------------------------------------------------------
class _NotThis(Exception):
    """The document's root element is not the one expected."""


def _local(name: str) -> str:
    """An element's local name, lower-cased (expat writes ``uri}local`` for a namespaced
    one, with the separator below)."""
    return name.rsplit("}", 1)[-1].lower()


def _read(content: bytes, what: str, start: Callable[[str, Any], None],
          end: Callable[[str], None], text: Callable[[str], Any]) -> None:
    """Feed ``content`` to expat in chunks with the handlers (given expat's names:
    ``uri}local`` for a namespaced element); malformed XML, a DTD or another root is a 502
    naming ``what``."""
    try:
        safexml.parse(content, start, end, text, namespace_separator="}", chunk=CHUNK)
    except safexml.ExpatError as exc:
        raise PROVIDER.bad_answer(
            f"sent {what} that is not well-formed XML ({safexml.error_text(exc)})") from None
    except safexml.Refused:
        raise PROVIDER.bad_answer(f"sent {what} with a document type declaration (refused: "
                                  "entities are never expanded)") from None
    except _NotThis:
        raise PROVIDER.bad_answer(f"sent a document that is not {what}") from None


def _number(text: str | None) -> int | float | None:
    """A table's number: digits, maybe with thousands separators or a fraction (filers'
    tools write ``1,234`` or ``1234.0`` now and then); anything else None."""
    if text is None:
        return None
    cleaned = text.replace(",", "").strip()
    if not _NUMBER.fullmatch(cleaned):
        return None
    number = float(cleaned)
    return int(number) if number.is_integer() else number


_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]*)?", re.ASCII)
_ROW, _ROOT = -1, -2  # the kinds of element that are not a column


def parse_information_table(content: bytes) -> list[Row]:
    """A 13F information table -> its rows in table order, each the :data:`COLUMNS` (text
    with white space runs collapsed, None where empty; the numeric columns as numbers, the
    value in the filing's unit). ``[]`` for a table without rows; not XML, a DTD or another
    document is a 502.

    Written for speed (a table may have 100,000 rows): an element's kind is looked up once
    per distinct name, text is collected by ``list.append`` itself and joined only at the
    end of a column's element."""
    rows: list[Row] = []
    kinds: dict[str, int | None] = {}
    parts: list[str] = []
    row: Row | None = None
    seen_root = False

    def kind_of(name: str) -> int | None:
        nonlocal seen_root
        local = name.rsplit("}", 1)[-1].lower()
        if not seen_root:
            seen_root = True
            if local != "informationtable":
                raise _NotThis
            return _ROOT  # not memoised: the root's name may reappear only as an error
        found = _COLUMN.get(local, _ROW if local == "infotable" else None)
        kinds[name] = found
        return found

    def start(name: str, _attributes: Any) -> None:
        nonlocal row
        kind = kinds[name] if name in kinds else kind_of(name)
        if kind == _ROW:
            row = [None] * len(COLUMNS)
        parts.clear()

    def end(name: str) -> None:
        nonlocal row
        kind = kinds.get(name)
        if kind is None or row is None:
            return
        if kind == _ROW:
            rows.append(row)
            row = None
            return
        value = " ".join("".join(parts).split()) or None
        row[kind] = _number(value) if kind in _NUMBERS else value

    _read(content, "an information table", start, end, parts.append)
    return rows


@dataclass(frozen=True)
class Cover:
    """What a 13F cover page (``primary_doc.xml``) says of the filing."""

    period: str | None
    amendment: bool
    amendment_number: int | None
    amendment_type: str | None


_COVER_LEAVES = frozenset({"reportcalendarorquarter", "isamendment", "amendmentno",
                           "amendmenttype"})


def parse_cover(content: bytes) -> Cover:
    """A 13F ``primary_doc.xml`` -> :class:`Cover` (``reportCalendarOrQuarter`` is
    ``MM-DD-YYYY``; given as ``YYYY-MM-DD``). A document whose root is not
    ``edgarSubmission`` is a 502."""
    found: dict[str, str] = {}
    parts: list[str] = []
    state: dict[str, Any] = {"root": None, "leaf": None}

    def start(name: str, _attributes: Any) -> None:
        local = _local(name)
        if state["root"] is None:
            state["root"] = local
            if local != "edgarsubmission":
                raise _NotThis
        elif local in _COVER_LEAVES and local not in found:
            state["leaf"] = local
            parts.clear()

    def end(name: str) -> None:
        if state["leaf"] == _local(name):
            found[state["leaf"]] = "".join(parts).strip()
            state["leaf"] = None

    _read(content, "a 13F cover page", start, end, parts.append)
    quarter = re.fullmatch(r"([0-9]{2})-([0-9]{2})-([0-9]{4})",
                           found.get("reportcalendarorquarter", ""))
    number = _number(found.get("amendmentno"))
    kind = " ".join(found.get("amendmenttype", "").upper().split()) or None
    return Cover(period=f"{quarter[3]}-{quarter[1]}-{quarter[2]}" if quarter else None,
                 amendment=found.get("isamendment", "").lower() in ("true", "1", "y"),
                 amendment_number=int(number) if number is not None else None,
                 amendment_type=kind)


# -- a manager's 13F filings ------------------------------------------------------------------
@dataclass(frozen=True)
class Report:
    """One 13F-HR or 13F-HR/A as the filing list gives it."""

    accession: str
    form: str
    filed: str
    period: str | None
    primary: str | None


@dataclass(frozen=True)
class Manager:
    """A filer's name and its 13F reports, newest filing first."""

    cik: int
    name: str | None
    reports: tuple[Report, ...]


def _reports(filings: list[Filing]) -> list[Report]:
    return [Report(f.accession_number, f.form, f.filing_date,
                   f.report_date if f.report_date and is_period(f.report_date) else None,
                   f.primary_document)
            for f in filings
            if f.form in FORMS and f.filing_date and f.accession_number
            and ACCESSION.fullmatch(f.accession_number)]


def history_pages(pages: Sequence[SubmissionsPage]) -> list[SubmissionsPage]:
    """The older filing-list pages worth reading: those whose filings reach
    :data:`~marketdata.records.institutions.XML_SINCE` (older ones hold no XML table), in
    EDGAR's order (newest first), at most :data:`MAX_HISTORY_PAGES`."""
    return [page for page in pages
            if page.filing_to >= XML_SINCE.isoformat()][:MAX_HISTORY_PAGES]


def manager(cik: int) -> Manager:
    """A filer's name and 13F reports (the list cached an hour); NotFound for a CIK EDGAR
    does not know."""
    provider = sec_provider()

    def fetch() -> Manager:
        payload = provider.get_json("submissions", SUBMISSIONS_URL.format(cik=cik),
                                    not_found=f"No EDGAR filer has CIK {cik}")
        filer = parse_company_submissions(payload)
        reports = {r.accession: r for r in _reports(filer.filings)}
        for page in history_pages(filer.older_pages):
            for report in _reports(sec.submissions_page(cik, page)):
                reports.setdefault(report.accession, report)
        ordered = sorted(reports.values(), key=lambda r: (r.filed, r.accession), reverse=True)
        return Manager(cik, filer.name, tuple(ordered))

    return provider.cached("13f_manager", {"cik": cik}, fetch, SUBMISSIONS_TTL,
                           group="sec_13f")


# -- one filing's documents -------------------------------------------------------------------
def _url(cik: int, accession: str, document: str) -> str:
    if not _DOCUMENT.fullmatch(document):
        raise PROVIDER.bad_answer("listed a document name that is not a plain file name")
    return f"{ARCHIVES_URL}/{cik}/{accession.replace('-', '')}/{document}"


def cover(cik: int, report: Report) -> Cover:
    """The cover page of one filing (cached a week)."""
    provider = sec_provider()
    # EDGAR lists the XSLT rendering (``xslForm13F_X02/primary_doc.xml``): the raw XML has
    # the same file name in the filing's folder.
    name = (report.primary or COVER_DOCUMENT).rsplit("/", 1)[-1]
    if not name.lower().endswith(".xml"):
        name = COVER_DOCUMENT
    url = _url(cik, report.accession, name)
    return provider.cached(
        "13f_cover", {"cik": cik, "accession": report.accession},
        lambda: parse_cover(provider.get("13f_cover", url).content), FILING_TTL,
        group="sec_13f")


def table_document(cik: int, accession: str) -> str | None:
    """The information table's file name, from the filing's index (the first XML document
    of type ``INFORMATION TABLE``); None when the filing has none (a report whose holdings
    all other managers report)."""
    for document in filing_documents(cik, accession):
        if document["type"] == INFORMATION_TABLE and \
                document["document"].lower().endswith(".xml"):
            return document["document"]
    return None


@dataclass(frozen=True)
class PackedTable:
    """A parsed table as cached: its rows' JSON, zlib-compressed; ``packed`` None when that
    was over :data:`TABLE_CACHE_MAX_BYTES` (not kept)."""

    rows: int
    packed: bytes | None


def pack(rows: list[Row]) -> PackedTable:
    packed = zlib.compress(orjson.dumps(rows), 6)
    return PackedTable(len(rows), packed if len(packed) <= TABLE_CACHE_MAX_BYTES else None)


def unpack(table: PackedTable) -> list[Row]:
    assert table.packed is not None
    return cast(list[Row], orjson.loads(zlib.decompress(table.packed)))


def information_table(cik: int, accession: str) -> list[Row]:
    """The rows of one filing's information table (``[]`` when it has none), parsed once
    and kept a week under the byte budget (see the module doc)."""
    document = table_document(cik, accession)
    if document is None:
        return []
    provider = sec_provider()
    url = _url(cik, accession, document)
    parsed: list[list[Row]] = []

    def fetch() -> PackedTable:
        rows = parse_information_table(provider.get("13f_table", url).content)
        parsed.append(rows)
        table = pack(rows)
        if table.packed is None:
            log.info("13F table over the cache budget: not kept", cik=cik,
                     accession=accession, rows=len(rows))
        return table

    table = provider.cached("13f_table", {"cik": cik, "accession": accession}, fetch,
                            FILING_TTL, group="sec_13f")
    if parsed:
        return parsed[0]
    if table.packed is None:
        return parse_information_table(provider.get("13f_table", url).content)
    return unpack(table)


# -- the fetchers -----------------------------------------------------------------------------
def _as_int(value: Any) -> int | None:
    return None if value is None else round(value)


def _dollars(value: Any, unit: str) -> int | None:
    if value is None:
        return None
    return round(value * 1000) if unit == "thousands" else round(value)


def _choice(value: str | None, allowed: dict[str, str]) -> Any:
    return allowed.get((value or "").upper())


_SHARE_TYPES = {"SH": "SH", "PRN": "PRN"}
_PUT_CALL = {"PUT": "Put", "CALL": "Call"}


def holding_of(row: Row, unit: str) -> Holding:
    """A table row as a :class:`Holding`, its value in dollars."""
    (issuer, title, cusip, figi, value, shares, kind, put_call, discretion, others, sole,
     shared, none) = row
    return Holding(issuer=issuer, cusip=cusip, figi=figi, class_=title,
                   value=_dollars(value, unit), shares=_as_int(shares),
                   shares_type=_choice(kind, _SHARE_TYPES),
                   put_call=_choice(put_call, _PUT_CALL),
                   discretion=discretion.upper() if discretion else None,
                   other_managers=others, voting_sole=_as_int(sole),
                   voting_shared=_as_int(shared), voting_none=_as_int(none))


def _served(report: Report) -> bool:
    return report.period is not None and report.filed >= XML_SINCE.isoformat()


def _tables(cik: int, reports: list[Report]) -> list[list[Row]]:
    """The tables of several filings at once; the first failure is raised."""
    outcomes = run_parallel(lambda r: information_table(cik, r.accession), reports)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return cast(list[list[Row]], outcomes)


def institutional_holdings(cik: int, period: str | None) -> InstitutionalHoldings:
    """The ``institutional_holdings`` fetcher: a manager's holdings for the report quarter
    ending ``period`` (``YYYY-MM-DD``; None: the latest), rows in table order (the report's,
    then each addition's). NotFound for an unknown CIK, a filer without 13F reports, or a
    quarter without one (naming the nearest quarters that have one)."""
    found = manager(cik)
    label = f"CIK {cik}" + (f" ({found.name})" if found.name else "")
    if not found.reports:
        raise NotFound(f"{label} has filed no 13F holdings report (13F-HR)")
    served = [r for r in found.reports if _served(r)]
    periods = sorted({cast(str, r.period) for r in served}, reverse=True)
    if not periods:
        raise NotFound(f"{label} filed no 13F-HR with an XML information table (EDGAR has "
                       f"them as XML from {XML_SINCE.isoformat()} on)")
    chosen = period or periods[0]
    if chosen not in periods:
        raise NotFound(f"{label} filed no 13F-HR for the quarter ending {chosen}; nearest "
                       f"quarters with one: {', '.join(nearest_periods(periods, chosen))}")
    in_period = sorted((r for r in served if r.period == chosen),
                       key=lambda r: (r.filed, r.accession))
    covers = {r.accession: cover(cik, r) for r in in_period if r.form == "13F-HR/A"}

    def adds(report: Report) -> bool:
        return report.accession in covers and \
            covers[report.accession].amendment_type == "NEW HOLDINGS"

    bases = [r for r in in_period if not adds(r)]
    base = bases[-1] if bases else in_period[0]
    after = in_period[in_period.index(base) + 1:]
    additions = [r for r in after if adds(r)]
    tables = _tables(cik, [base, *additions])
    holdings = [holding_of(row, value_unit(base.filed)) for row in tables[0]]
    added = []
    for report, rows in zip(additions, tables[1:], strict=True):
        unit = value_unit(report.filed)
        holdings.extend(holding_of(row, unit) for row in rows)
        added.append(Addition(report.accession, report.filed,
                              covers[report.accession].amendment_number, unit, len(rows)))
    base_cover = covers.get(base.accession)
    # An amendment as the report: a restatement, or (no report of the quarter listed) a
    # new-holdings amendment standing alone.
    kind = None if base_cover is None else "NEW HOLDINGS" if adds(base) else "RESTATEMENT"
    return InstitutionalHoldings(
        cik=cik, name=found.name, period=chosen, filed_at=base.filed,
        accession_number=base.accession, form=cast(Any, base.form),
        amendment_number=base_cover.amendment_number if base_cover else None,
        amendment_type=cast(Any, kind),
        value_unit=value_unit(base.filed), additions=added,
        total_value=sum(h.value or 0 for h in holdings), holdings_count=len(holdings),
        periods=periods, holdings=holdings)


# -- filers by name ---------------------------------------------------------------------------
_WORD = re.compile(r"[a-z0-9]+")
_TRAILER = re.compile(r"\s*\((?:CIK\s+[0-9]+|[^()]*)\)\s*$")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def display_name(text: str) -> str | None:
    """EDGAR's ``Name  (TICKERS)  (CIK 0001234567)`` -> ``Name``."""
    name = re.split(r"\s{2,}\(", text, maxsplit=1)[0]
    while (trimmed := _TRAILER.sub("", name)) != name:
        name = trimmed
    return fmt.text(name)


def _matches(name: str, wanted: list[str]) -> bool:
    have = words(name)
    return all(any(word.startswith(w) for word in have) for w in wanted)


def institutional_filers(name: str) -> list[InstitutionalFiler]:
    """The ``institutional_filers`` fetcher: filers of 13F reports whose EDGAR name holds
    every word of ``name`` (see the module doc); ``[]`` when none."""
    wanted = words(name)
    if not wanted:
        return []
    query = '"' + name.replace('"', " ").strip() + '"'
    found: dict[int, InstitutionalFiler] = {}
    offset = 0
    for _ in range(SEARCH_PAGES):
        page = search_filings(query, list(FORMS), None, None, offset, SEARCH_SIZE)
        for hit in page.hits:
            if hit.form not in FORMS:
                continue
            for cik_text, display in zip(hit.ciks, hit.display_names, strict=False):
                filer = display_name(display)
                if not cik_text.isdigit() or int(cik_text) <= 0 or filer is None \
                        or not _matches(filer, wanted):
                    continue
                cik = int(cik_text)
                known = found.get(cik)
                dates = [d for d in (hit.file_date, known.latest_filed_at if known else None)
                         if d]
                found[cik] = InstitutionalFiler(cik, known.name if known else filer,
                                                max(dates) if dates else None)
        offset += len(page.hits)
        if len(page.hits) < SEARCH_SIZE or (page.total_hits is not None
                                            and offset >= page.total_hits):
            break
    return list(found.values())
