"""SEC EDGAR ownership filings: the keyless source of ``/v2/filings/{symbol}/insiders``.

Directors, officers and 10 % owners report their trades in the issuer's securities on Form 4
(within two business days) and Form 5 (yearly, within 45 days of the fiscal year's end);
each filing's main document is an XML ``ownershipDocument`` (EDGAR's ownership XML
technical specification): the issuer, the reporting owners (``reportingOwner``: id,
relationship), Table I (``nonDerivativeTable``: ``nonDerivativeTransaction`` and
``nonDerivativeHolding`` rows) and Table II (``derivativeTable``: ``derivativeTransaction``
and ``derivativeHolding``), each value in a ``<value>`` element that may be accompanied or
replaced by ``<footnoteId id="F1"/>`` references to the document's ``footnotes``.

The calls, all through the SEC provider of :mod:`marketdata.providers.sec` (its declared
User-Agent, pacer, lane and status map):

1. ticker -> CIK (``company_tickers.json``, cached a day) and the company's filing list
   (``data.sec.gov/submissions/CIK##########.json``, cached an hour): the same cached
   calls as ``/v2/filings``. Ownership filings about the issuer are in the issuer's list.
   A busy filer's list holds only its latest 1,000 or so filings; when the window reaches
   further back, the older pages it names (``filings.files``,
   ``data.sec.gov/submissions/CIK##########-submissions-001.json``, cached a day) are read,
   newest first, at most :data:`MAX_OLDER_PAGES` a request.
2. each ownership filing's XML document:
   ``www.sec.gov/Archives/edgar/data/{cik}/{accession without dashes}/{file}.xml``. The
   list's ``primaryDocument`` is the XSL rendering (``xslF345X05/wk-form4_1691533817.xml``,
   an HTML page); the raw XML is the same file name without the ``xsl.../`` folder. A filed
   document never changes: each is parsed once and the parse cached 30 days, per accession.

Which filings: Forms 4, 4/A, 5 and 5/A (Form 3, the initial statement, holds no
transactions). A filing's transactions fall between its ``reportDate`` (the period of
report: the earliest transaction of a Form 4; the fiscal year's end of a Form 5, whose
transactions are within the year before) and its filing date, so a filing is read when
that span meets the window. At most :data:`~marketdata.records.insiders.MAX_FILINGS` are
read a request, newest first, in rounds of :data:`ROUND_SIZE` through the shared fan-out
while the request deadline leaves time for a round; the answer says what was not read.
Filings whose document fails are left out with a notice (the answer is then partial and
never stored whole); when none could be read, that failure is the answer (502/503/504
naming SEC EDGAR).

Parsing is safe by construction: expat, with any DOCTYPE refused at its start (so no entity
is ever declared, let alone expanded; an undeclared entity reference is a well-formedness
error) and external entities never fetched; documents over :data:`MAX_DOCUMENT_BYTES` or
rows past :data:`MAX_ROWS` are refused or cut. The Python standard library's parser is used
(``defusedxml`` is not a dependency); these handlers are what it would add.

A filer's own list also holds the ownership filings it made *as an owner* of other issuers
(Berkshire Hathaway's Form 4s on its holdings): a document whose ``issuerCik`` is another
company's adds no rows. Holdings rows (Tables I and II without a transaction) are not
transactions and are not served.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import date, timedelta
from xml.etree import ElementTree

from marketdata import formatting as fmt
from marketdata import safexml
from marketdata.cache import TTLPolicy, note_incomplete
from marketdata.concurrency import gather_partial
from marketdata.errors import MarketDataError, UpstreamError, telling_failure
from marketdata.logs import get_logger
from marketdata.providers import sec
from marketdata.providers.sec import PROVIDER, sec_provider
from marketdata.records.filings import Filing
from marketdata.records.insiders import (
    CODES,
    MAX_FILINGS,
    TRANSACTION_FORMS,
    DerivativeTerms,
    InsiderTransaction,
    InsiderWindow,
    OwnerRelationship,
    OwnershipFiling,
    ReportingOwner,
)

log = get_logger("marketdata.providers.sec_insiders")

DOCUMENT_TTL = TTLPolicy("sec_ownership_document", open=2592000, extended=2592000,
                         closed=2592000, market_aware=False)

# Ownership documents fetched at once: one EDGAR call each, a second's worth at its pace.
ROUND_SIZE = 10
# Older pages of a filing list read for one request (each one EDGAR call of up to ~2 MB).
MAX_OLDER_PAGES = 5
# A Form 4 document is a few kB; a long Form 5 some tens. Larger is no ownership document.
MAX_DOCUMENT_BYTES = 2 * 1024 * 1024
# Transaction rows read from one document (a busy fund's joint filing has some dozens).
MAX_ROWS = 500
# A filing without a reportDate is read when filed up to this long after the window
# (Form 4's two business days, with room for late filings).
LATE_FILING_DAYS = 45
# A Form 5 reports the fiscal year that ends on its reportDate.
FORM5_SPAN_DAYS = 366
# Notices name at most this many filings.
NAMED = 5

_XSL_FOLDER = re.compile(r"xsl[A-Za-z0-9_]+/", re.ASCII)
_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}\.xml", re.ASCII | re.IGNORECASE)
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_TRUE = {"1", "true"}
_FALSE = {"0", "false"}


# -- the filing list ------------------------------------------------------------------------
def raw_document(primary: str | None) -> str | None:
    """The raw XML file of an ownership filing from the list's ``primaryDocument``: the XSL
    rendering's file name without its ``xsl.../`` folder (``xslF345X05/wk-form4_1.xml`` ->
    ``wk-form4_1.xml``), or the name itself when it is already the XML. None when it is not
    a plain ``.xml`` file name (paper-era text filings, or anything odd: the name goes into
    a URL)."""
    if not primary:
        return None
    name = _XSL_FOLDER.sub("", primary.strip(), count=1) if _XSL_FOLDER.match(primary.strip()) \
        else primary.strip()
    return name if _FILE.fullmatch(name) else None


def ownership_filings(rows: Iterable[Filing]) -> list[OwnershipFiling]:
    """The Forms 4, 5 and amendments of a filing list, as :class:`OwnershipFiling`
    (``document`` None for a filing without an XML document: not readable)."""
    found = []
    for row in rows:
        filed = _day(row.filing_date)
        if row.form not in TRANSACTION_FORMS or not row.accession_number \
                or not sec.ACCESSION.fullmatch(row.accession_number) or filed is None:
            continue
        found.append(OwnershipFiling(accession_number=row.accession_number, form=row.form,
                                     filed_at=filed, report_date=_day(row.report_date),
                                     document=raw_document(row.primary_document)))
    return found


def may_hold(filing: OwnershipFiling, start: date, end: date) -> bool:
    """Whether a filing may report transactions dated ``start``..``end``: they are dated
    on or before its filing date and on or after its period of report (a Form 5: within the
    fiscal year ending on it)."""
    filed = date.fromisoformat(filing.filed_at)
    if filed < start:
        return False
    if filing.report_date is None:
        return filed <= end + timedelta(days=LATE_FILING_DAYS)
    first = date.fromisoformat(filing.report_date)
    if filing.form.startswith("5"):
        first -= timedelta(days=FORM5_SPAN_DAYS)
    return first <= end


def _newest_first(filings: Iterable[OwnershipFiling]) -> list[OwnershipFiling]:
    unique = {f.accession_number: f for f in filings}
    return sorted(unique.values(), key=lambda f: (f.filed_at, f.accession_number),
                  reverse=True)


@dataclass(frozen=True)
class Candidates:
    """The ownership filings of a window with an XML document, newest first; those
    without one (not readable); the older pages of the list the window reaches that were
    not read (their cap)."""

    filings: list[OwnershipFiling]
    unreadable: list[OwnershipFiling]
    pages_left: int


def window_filings(symbol: str, cik: int, start: date, end: date) -> Candidates:
    """The company's ownership filings that may hold transactions in the window, newest
    first: from the filing list's recent part, then, while fewer than the cap were found
    and the window reaches before it, from its older pages."""
    listed = sec.company_filings(symbol)
    found = [f for f in ownership_filings(listed.filings) if may_hold(f, start, end)]
    oldest = min((row.filing_date for row in listed.filings if row.filing_date), default=None)
    pages = [page for page in listed.older_pages if page.filing_to >= start.isoformat()]
    if oldest is not None and oldest < start.isoformat():
        pages = []  # the recent part already reaches back past the window's start
    read = 0
    for page in pages:
        if sum(f.document is not None for f in found) >= MAX_FILINGS \
                or read >= MAX_OLDER_PAGES:
            break
        found.extend(f for f in ownership_filings(sec.submissions_page(cik, page))
                     if may_hold(f, start, end))
        read += 1
    readable = _newest_first(f for f in found if f.document is not None)
    return Candidates(readable, _newest_first(f for f in found if f.document is None),
                      pages_left=len(pages) - read if len(readable) < MAX_FILINGS else 0)


# -- the XML ----------------------------------------------------------------------------------
def _local(name: str) -> str:
    return name.rsplit(":", 1)[-1]


def safe_xml(content: bytes) -> ElementTree.Element:
    """Parse XML without any DTD: a DOCTYPE (where entities would be declared) is refused at
    its start, entity declarations and external entity references too, so no entity is
    ever expanded or fetched. Element names lose their namespace prefix (EDGAR writes none;
    a producer that adds one is read alike). :class:`marketdata.safexml.Refused` or
    :class:`marketdata.safexml.ExpatError` for anything else than a plain XML document."""
    builder = ElementTree.TreeBuilder()
    safexml.parse(content, lambda name, attributes: builder.start(_local(name), attributes),
                  lambda name: builder.end(_local(name)), builder.data)
    return builder.close()


def _node_text(node: ElementTree.Element | None) -> str | None:
    return None if node is None else fmt.text(node.text)


def _value(parent: ElementTree.Element, path: str) -> str | None:
    """An element's value: the text of its ``<value>`` child (most elements), else its own
    text (``transactionCode``, ``rptOwnerName``...); None when absent or blank."""
    node = parent.find(path)
    if node is None:
        return None
    inner = node.find("value")
    return _node_text(inner if inner is not None else node)


def _flag(text: str | None) -> bool | None:
    lowered = (text or "").strip().lower()
    return True if lowered in _TRUE else False if lowered in _FALSE else None


def _number(text: str | None) -> float | None:
    """A decimal as a number (an integer when whole); None for blanks and anything else."""
    if text is None:
        return None
    try:
        number = float(text.replace(",", ""))
    except ValueError:
        return None
    if not math.isfinite(number):
        return None
    return int(number) if number.is_integer() and abs(number) < 1e15 else number


def _day(text: str | None) -> str | None:
    """``YYYY-MM-DD`` (a date with a zone, ``2024-04-01-05:00``, keeps its day)."""
    if text is None or not _DAY.match(text):
        return None
    try:
        return date.fromisoformat(text[:10]).isoformat()
    except ValueError:
        return None


def _cik(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() and 0 < len(text) <= 10 else None


def _owner(node: ElementTree.Element) -> ReportingOwner:
    relation = node.find("reportingOwnerRelationship")

    def box(name: str) -> bool:
        return bool(_flag(_value(relation, name))) if relation is not None else False

    def said(name: str) -> str | None:
        return _value(relation, name) if relation is not None else None

    return ReportingOwner(
        name=_value(node, "reportingOwnerId/rptOwnerName"),
        cik=_cik(_value(node, "reportingOwnerId/rptOwnerCik")),
        relationship=OwnerRelationship(
            director=box("isDirector"), officer=box("isOfficer"),
            officer_title=said("officerTitle"), ten_percent_owner=box("isTenPercentOwner"),
            other=box("isOther"), other_text=said("otherText")))


def _footnotes(root: ElementTree.Element) -> dict[str, str]:
    out = {}
    for note in root.iterfind("footnotes/footnote"):
        key, text = note.get("id"), fmt.text("".join(note.itertext()))
        if key and text:
            out[key] = text
    return out


@dataclass(frozen=True)
class OwnershipDocument:
    """One filing's document as read: the filing, its issuer, period of report, the
    original filing date of an amendment, its reporting owners and transaction rows."""

    filing: OwnershipFiling
    issuer_cik: int | None
    period: str | None
    original_filed_at: str | None
    owners: list[ReportingOwner]
    rows: list[InsiderTransaction]


def parse_ownership_document(content: bytes, filing: OwnershipFiling) -> OwnershipDocument:
    """An ``ownershipDocument`` -> its owners and transaction rows (Table I rows first,
    then Table II, each in the document's order), every footnote a row refers to (in its
    values, coding or ownership) resolved to its text. A body that is not such a document
    is a 502."""
    if len(content) > MAX_DOCUMENT_BYTES:
        raise PROVIDER.bad_answer("sent an ownership document over 2 MB")
    try:
        root = safe_xml(content)
    except safexml.Refused:
        raise PROVIDER.bad_answer("sent an ownership document with a DOCTYPE or entity "
                                  "declarations (refused, never expanded)") from None
    except safexml.ExpatError:
        raise PROVIDER.bad_answer("sent an ownership document that is not well-formed "
                                  "XML") from None
    if root.tag != "ownershipDocument":
        raise PROVIDER.bad_answer("sent a document that is not an ownershipDocument")
    owners = [_owner(node) for node in root.iterfind("reportingOwner")]
    if not owners:
        raise PROVIDER.bad_answer("sent an ownership document without a reporting owner")
    notes = _footnotes(root)
    plan = _flag(_value(root, "aff10b5One"))
    form = filing.form or _value(root, "documentType") or "4"
    original = _day(_value(root, "dateOfOriginalSubmission")) if form.endswith("/A") else None
    rows: list[InsiderTransaction] = []
    for table, tag, derivative in (("nonDerivativeTable", "nonDerivativeTransaction", False),
                                   ("derivativeTable", "derivativeTransaction", True)):
        for node in root.iterfind(f"{table}/{tag}"):
            if len(rows) >= MAX_ROWS:
                break
            rows.append(_row(node, derivative, filing, form, original, plan, owners, notes))
    return OwnershipDocument(filing=filing, issuer_cik=_cik(_value(root, "issuer/issuerCik")),
                             period=_day(_value(root, "periodOfReport")),
                             original_filed_at=original, owners=owners, rows=rows)


def _row(node: ElementTree.Element, derivative: bool, filing: OwnershipFiling, form: str,
         original: str | None, plan: bool | None, owners: list[ReportingOwner],
         notes: Mapping[str, str]) -> InsiderTransaction:
    amounts = "transactionAmounts/"
    shares = _number(_value(node, amounts + "transactionShares"))
    price = _number(_value(node, amounts + "transactionPricePerShare"))
    total = _number(_value(node, amounts + "transactionTotalValue"))
    value = total if total is not None else (
        round(shares * price, 2) if shares is not None and price is not None else None)
    code = _value(node, "transactionCoding/transactionCode")
    code = code.upper() if code else None
    moved = _value(node, amounts + "transactionAcquiredDisposedCode")
    moved = moved.upper() if moved else None
    held = _value(node, "ownershipNature/directOrIndirectOwnership")
    held = held.upper() if held else None
    referred = dict.fromkeys(ref.get("id") for ref in node.iter("footnoteId"))
    terms = DerivativeTerms(
        exercise_price=_number(_value(node, "conversionOrExercisePrice")),
        exercise_date=_day(_value(node, "exerciseDate")),
        expiration_date=_day(_value(node, "expirationDate")),
        underlying_security=_value(node, "underlyingSecurity/underlyingSecurityTitle"),
        underlying_shares=_number(_value(node, "underlyingSecurity/underlyingSecurityShares")),
    ) if derivative else None
    return InsiderTransaction(
        filed_at=filing.filed_at, accession_number=filing.accession_number, form=form,
        original_filed_at=original, superseded=False, insider=owners[0], owners=owners,
        transaction_date=_day(_value(node, "transactionDate")),
        deemed_execution_date=_day(_value(node, "deemedExecutionDate")),
        code=code, code_meaning=CODES.get(code) if code else None,
        equity_swap=_flag(_value(node, "transactionCoding/equitySwapInvolved")),
        trading_plan=plan, security_title=_value(node, "securityTitle"),
        shares=shares, price=price, value=value,
        acquired_or_disposed=moved if moved in ("A", "D") else None,  # type: ignore[arg-type]
        shares_owned_after=_number(_value(
            node, "postTransactionAmounts/sharesOwnedFollowingTransaction")),
        direct=True if held == "D" else False if held == "I" else None,
        nature_of_ownership=_value(node, "ownershipNature/natureOfOwnership"),
        derivative=terms,
        footnotes=[notes[key] for key in referred if key and key in notes])


# -- amendments ---------------------------------------------------------------------------------
def superseded(documents: Iterable[OwnershipDocument]) -> set[str]:
    """The accession numbers of the originals that an amendment among ``documents`` amends:
    the same form (``4`` for a ``4/A``), filed on the amendment's date of original
    submission, by the same first reporting owner, for the same period of report (where
    both say one)."""
    documents = list(documents)
    out: set[str] = set()
    for amendment in documents:
        if not amendment.filing.form.endswith("/A") or amendment.original_filed_at is None:
            continue
        base = amendment.filing.form.removesuffix("/A")
        for original in documents:
            if original.filing.form == base \
                    and original.filing.filed_at == amendment.original_filed_at \
                    and original.owners[0].cik == amendment.owners[0].cik \
                    and (original.period is None or amendment.period is None
                         or original.period == amendment.period):
                out.add(original.filing.accession_number)
    return out


# -- fetches --------------------------------------------------------------------------------------
def ownership_document(cik: int, filing: OwnershipFiling) -> OwnershipDocument:
    """One filing's XML document, parsed (cached 30 days: a filed document never
    changes)."""
    if filing.document is None:
        raise PROVIDER.bad_answer("listed an ownership filing without an XML document")
    provider = sec_provider()
    url = f"{sec.ARCHIVES_URL}/{cik}/{filing.accession_number.replace('-', '')}/" \
          f"{filing.document}"
    return provider.cached(
        "ownership_document", {"cik": cik, "accession": filing.accession_number},
        lambda: parse_ownership_document(provider.get("ownership_document", url).content,
                                         filing),
        DOCUMENT_TTL, group="sec")


def _named(accessions: list[str]) -> str:
    shown = ", ".join(accessions[:NAMED])
    return shown + (f" and {len(accessions) - NAMED} more" if len(accessions) > NAMED else "")


def _effective_day(row: InsiderTransaction) -> str:
    return row.transaction_date or row.filed_at


def insider_transactions(symbol: str, start: str, end: str) -> InsiderWindow:
    """The ``insider_transactions`` fetcher: every transaction row dated ``start``..``end``
    (ISO days; a row without a transaction date counts on its filing date) of the
    company's ownership filings, newest transaction first (then the filing, then the
    document's order), with what could not be read. 404 for a ticker EDGAR does not list,
    before any document is fetched."""
    first, last = date.fromisoformat(start), date.fromisoformat(end)
    cik = sec.cik_for(symbol)
    found = window_filings(symbol, cik, first, last)
    chosen = found.filings[:MAX_FILINGS]
    documents: list[OwnershipDocument] = []
    failures: list[tuple[OwnershipFiling, MarketDataError]] = []
    position, stopped = 0, ""
    while position < len(chosen):
        if position and not sec.time_for_a_round():
            stopped = "time"
            break
        batch = chosen[position:position + ROUND_SIZE]
        position += len(batch)
        fetched = gather_partial(
            lambda filing: ownership_document(cik, filing), batch, what="ownership filing",
            log_fields=lambda filing: {"symbol": symbol, "accession": filing.accession_number})
        documents.extend(document for _, document in fetched.values)
        failures.extend(fetched.left_out)
        if not fetched.values:
            stopped = "failing"  # every filing of the round failed: EDGAR is failing
            break
    if position >= len(chosen):
        stopped = ""  # the last round: nothing was left to read
    if not documents and failures:
        failure = telling_failure([e for _, e in failures if isinstance(e, UpstreamError)])
        raise failure or failures[0][1]
    if position < len(chosen):
        note_incomplete()  # cut by time or failures: never stored as a whole answer
    notices = _notices(found, chosen, position, stopped, failures)
    gone = superseded(documents)
    rows = [replace(row, superseded=True) if row.accession_number in gone else row
            for document in documents if document.issuer_cik in (None, cik)
            for row in document.rows if start <= _effective_day(row) <= end]
    rows.sort(key=lambda row: (_effective_day(row), row.filed_at, row.accession_number),
              reverse=True)
    return InsiderWindow(cik=cik, filings=len(found.filings) + len(found.unreadable),
                         filings_read=len(documents), transactions=rows, notices=notices,
                         truncated=bool(notices))


def _notices(found: Candidates, chosen: list[OwnershipFiling], position: int, stopped: str,
             failures: list[tuple[OwnershipFiling, MarketDataError]]) -> list[str]:
    """What the answer leaves out, one sentence each (empty when nothing)."""
    notices = []
    if len(found.filings) > len(chosen):
        notices.append(
            f"The window holds {len(found.filings)} ownership filings; the {len(chosen)} "
            f"filed most recently are read (the cap of a request), back to "
            f"{chosen[-1].filed_at}: transactions filed before that are missing. Narrow "
            "start/end to read the others.")
    if found.pages_left:
        notices.append(
            f"{found.pages_left} older pages of the company's filing list reach into the "
            f"window and were not read (at most {MAX_OLDER_PAGES} a request): its earliest "
            "filings are missing. Narrow start/end.")
    if stopped:
        why = "within the request's time" if stopped == "time" else \
            "after a round of them all failed"
        since = chosen[position - 1].filed_at
        notices.append(
            f"{len(chosen) - position} of the filings to read were not reached {why}: "
            f"transactions filed before {since} are missing. The filings read are kept, so "
            "asking again goes further back.")
    if failures:
        notices.append(
            f"{len(failures)} filings could not be read ({PROVIDER.display_name}: "
            f"{failures[0][1].detail}); their transactions are missing: "
            f"{_named([filing.accession_number for filing, _ in failures])}.")
    if found.unreadable:
        notices.append(
            f"{len(found.unreadable)} ownership filings have no XML document (filed on "
            "paper or as text) and are not read: "
            f"{_named([f.accession_number for f in found.unreadable])}.")
    return notices
