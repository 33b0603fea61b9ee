"""The raw XML ownership documents of the sandbox's Form 4 filings
(``/Archives/edgar/data/{cik}/{folder}/{file}.xml``), in EDGAR's ownership XML (schema
``X0508`` for filings since April 2023, with the Rule 10b5-1 box ``aff10b5One``; ``X0306``
before, without it).

Each Form 4 of a company's filing list (``filings.py``: eight a year) has one, made from
sha256 of its accession number, so the same filing always says the same. The list's
``primaryDocument`` is the XSL rendering (``xslF345X05/wk-form4_....xml``, an HTML page:
``documents.py``); the raw XML is the same file name in the filing's folder.

Who reports: the company's officers as the Yahoo sandbox's assetProfile lists them (names
written ``LAST FIRST`` as EDGAR does; a ``CEO & Director`` is both) and three directors.
What (one pattern per filing, by sha256):

- a sale under a Rule 10b5-1 plan: 1-3 ``S`` rows over the period's days, each a weighted
  average price with its range in a footnote;
- RSUs vesting: a derivative ``M`` row (Restricted Stock Unit, exercise price only in a
  footnote), the shares acquired (``M``, price 0) and those withheld for taxes (``F``);
- an option exercise and sale: a derivative ``M`` row (Employee Stock Option, exercise
  price, exercisable and expiration dates), ``M`` at the exercise price and ``S``;
- an annual grant: a derivative ``A`` row of RSUs (price 0, vesting in a footnote);
- a director's purchase (``P``), filed jointly with the director's family trust (a second
  reporting owner, owning indirectly "By Trust");
- a gift (``G``, price 0).

Prices are the sandbox series' close of the trade day (so the Yahoo sandbox agrees);
amounts scale with the company's size. Every document also has a holding row (401(k)
shares, no transaction) in one filing of four, which is not a transaction. Trade days run
from the filing's ``reportDate`` (its earliest) to its filing day.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import date, timedelta
from html import escape

import numpy as np

from marketdata.sandbox.common import Request, text_response
from marketdata.sandbox.instruments import pick, stable_hash, unit
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.sec.companies import Company, company
from marketdata.sandbox.sec.filings import Filing, find_filing
from marketdata.sandbox.yahoo.quote_summary import _FIRST, _LAST, _officers

XML_TYPE = "application/xml"
# The day EDGAR's schema X0508 (with aff10b5One) took effect.
X0508_SINCE = date(2023, 4, 1)
KINDS = ("plan_sale", "rsu_vest", "option_exercise", "grant", "purchase", "gift")
# Shares of each pattern by weight: sales and vestings are the common ones.
_WEIGHTS = (0.3, 0.25, 0.15, 0.15, 0.1, 0.05)


@dataclass(frozen=True)
class Person:
    name: str  # EDGAR's "LAST FIRST"
    cik: int
    director: bool
    officer_title: str | None


def raw_name(f: Filing) -> str | None:
    """The raw XML's file name of a Form 4 (its primary document without the XSL folder)."""
    if f.form != "4" or "/" not in f.primary:
        return None
    return f.primary.split("/", 1)[1]


def _person_cik(c: Company, name: str) -> int:
    return 1_000_000 + stable_hash("insider-cik", c.cik, name) % 999_000


def insiders(c: Company) -> list[Person]:
    """The company's reporting persons: its officers (the Yahoo sandbox's), then three
    directors."""
    out = []
    for officer in _officers(c.instrument):
        first, last = officer["name"].split(" ", 1)[1].split(" ", 1)
        title = officer["title"]
        name = f"{last} {first}"
        out.append(Person(name, _person_cik(c, name), "Director" in title,
                          title.split(" & ")[0]))
    for k in range(3):
        name = f"{pick(_LAST, 'dir-ln', c.ticker, k)} " \
               f"{pick(_FIRST[k % 2], 'dir-fn', c.ticker, k)}"
        if any(p.name == name for p in out):
            name += f" {chr(ord('A') + k)}"
        out.append(Person(name, _person_cik(c, name), True, None))
    return out


def kind(f: Filing) -> str:
    draw, total = unit("f4-kind", f.accession), 0.0
    for name, weight in zip(KINDS, _WEIGHTS, strict=True):
        total += weight
        if draw < total:
            return name
    return KINDS[-1]


# The documents of one answer are asked for at once: the first builds the company's series
# (seconds, the session calendar included), the others wait for it rather than each
# building its own.
_SERIES_LOCK = threading.Lock()


def close(c: Company, day: date) -> float:
    """The sandbox series' close on ``day`` (the last session's on a day without one)."""
    with _SERIES_LOCK:
        series = get_series(c.instrument)
    i = int(np.searchsorted(series.days, np.datetime64(day), side="right")) - 1
    return round(float(series.c[max(i, 0)]), 2)


def _trade_days(f: Filing) -> list[date]:
    first = date.fromisoformat(f.report_date)
    days = [first + timedelta(days=k) for k in range((f.day - first).days + 1)]
    return [d for d in days if d.weekday() < 5] or [first]


def _size(c: Company, f: Filing, salt: str, low: float, high: float) -> int:
    """Shares, log-uniform in [low, high] scaled down for the largest companies' prices."""
    scale = 1.0 if c.instrument.anchor_price < 500 else 0.2
    return max(1, int(scale * low * (high / low) ** unit(salt, f.accession)))


def _value(text: object, notes: tuple[str, ...] = ()) -> str:
    refs = "".join(f'<footnoteId id="{n}"/>' for n in notes)
    shown = "" if text is None else f"<value>{escape(str(text))}</value>"
    return shown + refs


def _owner(p: Person, other_text: str | None = None) -> str:
    officer = p.officer_title is not None
    rows = [f"<isDirector>{int(p.director)}</isDirector>",
            f"<isOfficer>{int(officer)}</isOfficer>",
            "<isTenPercentOwner>0</isTenPercentOwner>",
            f"<isOther>{int(other_text is not None)}</isOther>"]
    if officer:
        rows.append(f"<officerTitle>{escape(p.officer_title or '')}</officerTitle>")
    if other_text is not None:
        rows.append(f"<otherText>{escape(other_text)}</otherText>")
    return ("<reportingOwner><reportingOwnerId>"
            f"<rptOwnerCik>{p.cik:010d}</rptOwnerCik><rptOwnerName>{escape(p.name)}"
            "</rptOwnerName></reportingOwnerId><reportingOwnerAddress><rptOwnerStreet1>"
            "ONE SANDBOX WAY</rptOwnerStreet1><rptOwnerCity>SANDBOX</rptOwnerCity>"
            "<rptOwnerState>DE</rptOwnerState><rptOwnerZipCode>19801</rptOwnerZipCode>"
            "</reportingOwnerAddress><reportingOwnerRelationship>" + "".join(rows)
            + "</reportingOwnerRelationship></reportingOwner>")


@dataclass
class _Row:
    """One row being written: Table I unless ``derivative`` holds Table II's terms."""

    title: str
    day: date
    code: str
    shares: float
    price: float | None
    moved: str
    after: float
    direct: bool = True
    nature: str | None = None
    notes: tuple[str, ...] = ()
    price_notes: tuple[str, ...] = ()
    derivative: tuple[float | None, date | None, date | None, float] | None = None
    exercise_notes: tuple[str, ...] = ()


def _row_xml(row: _Row) -> str:
    nature = ("<ownershipNature><directOrIndirectOwnership>"
              f"{_value('D' if row.direct else 'I')}</directOrIndirectOwnership>"
              + (f"<natureOfOwnership>{_value(row.nature)}</natureOfOwnership>"
                 if row.nature else "") + "</ownershipNature>")
    coding = ("<transactionCoding><transactionFormType>4</transactionFormType>"
              f"<transactionCode>{row.code}</transactionCode>"
              "<equitySwapInvolved>0</equitySwapInvolved>"
              + "".join(f'<footnoteId id="{n}"/>' for n in row.notes) + "</transactionCoding>")
    amounts = (f"<transactionAmounts><transactionShares>{_value(row.shares)}"
               "</transactionShares><transactionPricePerShare>"
               f"{_value(row.price, row.price_notes)}</transactionPricePerShare>"
               "<transactionAcquiredDisposedCode>"
               f"{_value(row.moved)}</transactionAcquiredDisposedCode></transactionAmounts>")
    after = ("<postTransactionAmounts><sharesOwnedFollowingTransaction>"
             f"{_value(row.after)}</sharesOwnedFollowingTransaction></postTransactionAmounts>")
    head = f"<securityTitle>{_value(row.title)}</securityTitle>"
    when = f"<transactionDate>{_value(row.day.isoformat())}</transactionDate>"
    if row.derivative is None:
        return ("<nonDerivativeTransaction>" + head + when + coding + amounts + after + nature
                + "</nonDerivativeTransaction>")
    price, exercisable, expires, underlying = row.derivative

    def day(value: date | None) -> str:
        # A date the terms leave to a footnote (an RSU's vesting) is only its reference.
        return _value(value.isoformat()) if value else _value(None, row.exercise_notes)

    terms = ("<conversionOrExercisePrice>"
             + (_value(price) if price is not None else _value(None, row.exercise_notes))
             + "</conversionOrExercisePrice>")
    dates = (f"<exerciseDate>{day(exercisable)}</exerciseDate><expirationDate>"
             f"{day(expires)}</expirationDate><underlyingSecurity><underlyingSecurityTitle>"
             f"{_value('Common Stock')}</underlyingSecurityTitle><underlyingSecurityShares>"
             f"{_value(underlying)}</underlyingSecurityShares></underlyingSecurity>")
    return ("<derivativeTransaction>" + head + terms + when + coding + amounts + dates + after
            + nature + "</derivativeTransaction>")


_Tables = tuple[list[_Row], list[_Row], dict[str, str], bool]


def _rows(c: Company, f: Filing, pattern: str) -> _Tables:
    """(Table I rows, Table II rows, footnotes by id, whether under a 10b5-1 plan)."""
    days = _trade_days(f)
    first = days[0]
    price = close(c, first)
    held = _size(c, f, "f4-held", 20_000, 2_000_000)
    notes: dict[str, str] = {}
    table1: list[_Row] = []
    table2: list[_Row] = []
    plan = False
    if pattern == "plan_sale":
        plan = True
        adopted = f.day - timedelta(days=120 + stable_hash("f4-plan", f.accession) % 120)
        notes["F1"] = ("The sales reported on this Form 4 were effected pursuant to a Rule "
                       "10b5-1 trading plan adopted by the reporting person on "
                       f"{adopted:%B} {adopted.day}, {adopted.year}.")
        left = held
        for k in range(1 + stable_hash("f4-rows", f.accession) % 3):
            day = days[min(k, len(days) - 1)]
            mid = close(c, day)
            low, high = round(mid * 0.995, 2), round(mid * 1.005, 2)
            key = f"F{k + 2}"
            notes[key] = (f"The price reported is a weighted average price. These shares were "
                          f"sold in multiple transactions at prices ranging from ${low:.2f} to "
                          f"${high:.2f}, inclusive.")
            sold = _size(c, f, f"f4-sold{k}", 1_000, 50_000)
            left -= sold
            table1.append(_Row("Common Stock", day, "S", sold, mid, "D", left, notes=("F1",),
                               price_notes=(key,)))
    elif pattern == "rsu_vest":
        notes["F1"] = "Each restricted stock unit represents a contingent right to receive " \
                      "one share of the issuer's common stock."
        notes["F2"] = "Shares withheld by the issuer to satisfy tax withholding obligations " \
                      "upon the vesting of restricted stock units."
        vested = _size(c, f, "f4-vest", 2_000, 80_000)
        withheld = int(vested * 0.42)
        table1.append(_Row("Common Stock", first, "M", vested, 0, "A", held + vested))
        table1.append(_Row("Common Stock", first, "F", withheld, price, "D",
                           held + vested - withheld, notes=("F2",)))
        table2.append(_Row("Restricted Stock Unit", first, "M", vested, 0, "D",
                           vested * (1 + stable_hash("f4-left", f.accession) % 3),
                           derivative=(None, None, None, vested), exercise_notes=("F1",)))
    elif pattern == "option_exercise":
        plan = True
        strike = round(price * (0.45 + 0.3 * unit("f4-strike", f.accession)), 2)
        granted = first - timedelta(days=365 * (3 + stable_hash("f4-age", f.accession) % 5))
        options = _size(c, f, "f4-opts", 5_000, 100_000)
        notes["F1"] = "Exercised and sold pursuant to a Rule 10b5-1 trading plan."
        table1.append(_Row("Common Stock", first, "M", options, strike, "A", held + options))
        table1.append(_Row("Common Stock", first, "S", options, price, "D", held,
                           notes=("F1",)))
        table2.append(_Row("Employee Stock Option (right to buy)", first, "M", options, 0,
                           "D", 0, derivative=(strike, granted + timedelta(days=365),
                                               granted + timedelta(days=3652), options)))
    elif pattern == "grant":
        units = _size(c, f, "f4-grant", 1_000, 60_000)
        notes["F1"] = "Each restricted stock unit represents a contingent right to receive " \
                      "one share of the issuer's common stock."
        notes["F2"] = ("The restricted stock units vest in four equal annual installments "
                       "beginning on the first anniversary of the grant date.")
        table2.append(_Row("Restricted Stock Unit", first, "A", units, 0, "A", units,
                           notes=("F2",), derivative=(None, None, None, units),
                           exercise_notes=("F1",)))
    elif pattern == "purchase":
        bought = _size(c, f, "f4-buy", 500, 20_000)
        table1.append(_Row("Common Stock", first, "P", bought, price, "A", held + bought,
                           direct=False, nature="By Trust", notes=("F1",)))
        notes["F1"] = ("The shares are held by the reporting person's family trust, of which "
                       "the reporting person is a trustee; the reporting person disclaims "
                       "beneficial ownership except to the extent of any pecuniary interest.")
    else:  # gift
        given = _size(c, f, "f4-gift", 200, 10_000)
        notes["F1"] = "Bona fide gift to a charitable foundation."
        table1.append(_Row("Common Stock", first, "G", given, 0, "D", held - given,
                           notes=("F1",)))
    return table1, table2, notes, plan


def ownership_xml(c: Company, f: Filing) -> str:
    """The filing's ``ownershipDocument``."""
    people = insiders(c)
    pattern = kind(f)
    officers = [p for p in people if p.officer_title is not None]
    directors = [p for p in people if p.officer_title is None]
    pool = directors if pattern in ("purchase", "grant") and \
        stable_hash("f4-who", f.accession) % 2 else officers
    who = pick(pool, "f4-person", f.accession)
    table1, table2, notes, plan = _rows(c, f, pattern)
    owners = _owner(who)
    if pattern == "purchase":
        trust = Person(f"{who.name} Family Trust", _person_cik(c, who.name + " trust"), False,
                       None)
        owners += _owner(trust, other_text="Family trust of a director")
    holding = ""
    if stable_hash("f4-holding", f.accession) % 4 == 0:
        holding = ("<nonDerivativeHolding><securityTitle><value>Common Stock</value>"
                   "</securityTitle><postTransactionAmounts><sharesOwnedFollowingTransaction>"
                   f"{_value(_size(c, f, 'f4-401k', 100, 5_000))}"
                   "</sharesOwnedFollowingTransaction></postTransactionAmounts>"
                   "<ownershipNature><directOrIndirectOwnership><value>I</value>"
                   "</directOrIndirectOwnership><natureOfOwnership><value>By 401(k) Plan"
                   "</value></natureOfOwnership></ownershipNature></nonDerivativeHolding>")
    new_schema = f.day >= X0508_SINCE
    footnotes = "".join(f'<footnote id="{key}">{escape(text)}</footnote>'
                        for key, text in notes.items())
    return (
        '<?xml version="1.0"?>\n<ownershipDocument>\n'
        f"<schemaVersion>{'X0508' if new_schema else 'X0306'}</schemaVersion>\n"
        "<documentType>4</documentType>\n"
        f"<periodOfReport>{f.report_date}</periodOfReport>\n"
        "<notSubjectToSection16>0</notSubjectToSection16>\n"
        f"<issuer><issuerCik>{c.cik:010d}</issuerCik><issuerName>{escape(c.name)}"
        f"</issuerName><issuerTradingSymbol>{escape(c.ticker)}</issuerTradingSymbol>"
        f"</issuer>\n{owners}\n"
        + (f"<aff10b5One>{int(plan)}</aff10b5One>\n" if new_schema else "")
        + "<nonDerivativeTable>" + "".join(_row_xml(r) for r in table1) + holding
        + "</nonDerivativeTable>\n"
        + ("<derivativeTable>" + "".join(_row_xml(r) for r in table2) + "</derivativeTable>\n"
           if table2 else "")
        + f"<footnotes>{footnotes}</footnotes>\n<remarks></remarks>\n"
        f"<ownerSignature><signatureName>/s/ Attorney-in-fact for {escape(who.name)}"
        f"</signatureName><signatureDate>{f.day.isoformat()}</signatureDate>"
        "</ownerSignature>\n</ownershipDocument>\n")


def ownership_document(req: Request) -> SandboxResponse | None:
    """The raw XML of a Form 4 of the sandbox, or None when the path names no such file
    (the other archive answers take it)."""
    found = company(int(req.params["cik"]))
    folder, name = req.params["folder"], req.params["name"]
    if found is None:
        return None
    accession = f"{folder[:10]}-{folder[10:12]}-{folder[12:]}"
    filing = find_filing(found.cik, accession, req.clock().date())
    if filing is None or filing.folder != folder or raw_name(filing) != name:
        return None
    return text_response(ownership_xml(found, filing), content_type=XML_TYPE)
