"""Each sandbox company's EDGAR filings, generated year by year.

Why year by year: a filing's accession number counts the company's filings of its year,
so a whole year is generated at once (dates later than the clock included) and then cut
at the clock. A filing therefore never changes once it exists, as on EDGAR, and the list
only grows as the clock moves.

What a domestic company files in a year (days from sha256 of the company and the month;
weekend days move to the Monday):
- an earnings 8-K (items 2.02, 9.01) on the day of each earnings call of the Yahoo sandbox
  (``yahoo/transcripts.py``), with the release as EX-99.1 (and, one company in three, a
  CFO commentary as EX-99.2), then a 10-Q, or the 10-K after the fourth quarter, a few
  days later;
- announcement 8-Ks (items 7.01 or 8.01, and 9.01) with an EX-99.1 press release, in about
  a third of the months;
- some 8-Ks without a press release: a material agreement (items 1.01, 9.01, only an
  EX-10.1), officer changes (5.02) and the annual meeting's vote (5.07);
- Form 4s (insider transactions), eight a year, each reporting trades of the 0-2 business
  days before it (its ``reportDate``, the period of report, is the earliest; the documents
  are ``insiders.py``'s).
"Quiet" companies (one generated company in ten) furnish no press releases: no earnings
or announcement 8-Ks, only the others. Alibaba, a foreign issuer, files a 6-K a month and
a 20-F each April, never an 8-K.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

from marketdata.sandbox.instruments import FAMOUS, stable_hash, unit
from marketdata.sandbox.sec.companies import Company, company
from marketdata.sandbox.yahoo.transcripts import held_calls

RECENT_YEARS = 3
RECENT_MAX = 1000
ANNOUNCEMENT_SHARE = 0.35
# Announcement topics (the release templates in documents.py); 0 needs a dividend payer.
TOPICS = 7


@dataclass(frozen=True)
class Exhibit:
    type: str
    document: str
    description: str


@dataclass(frozen=True)
class Filing:
    """One filing. ``kind``: earnings, announcement, agreement, officers, meeting, 10-Q,
    10-K, 4, 6-K or 20-F; ``topic``: the announcement template; ``period``: the fiscal
    quarter of an earnings release or a 10-Q/10-K (``Q3``; ``Q4`` for the 10-K) and
    ``fiscal_year``."""

    cik: int
    accession: str
    day: date
    form: str
    items: str
    primary: str
    description: str
    kind: str
    accepted: str
    report_date: str
    exhibits: tuple[Exhibit, ...] = ()
    topic: int = 0
    period: str = ""
    fiscal_year: int = 0

    @property
    def folder(self) -> str:
        return self.accession.replace("-", "")

    @property
    def press_release(self) -> Exhibit | None:
        return next((e for e in self.exhibits if e.type == "EX-99.1"), None)


def is_quiet(c: Company) -> bool:
    """Companies that furnish no press releases (never a famous one)."""
    return c.ticker not in FAMOUS and stable_hash("sec-quiet", c.ticker) % 10 == 0


def _weekday(day: date) -> date:
    return day + timedelta(days=(7 - day.weekday()) % 7) if day.weekday() >= 5 else day


def _in_month(c: Company, year: int, month: int, salt: str) -> date:
    day = 1 + stable_hash(salt, c.cik, year, month) % 27
    return _weekday(date(year, month, day))


def _slug(c: Company) -> str:
    return c.ticker.lower().replace("-", "")


def _primary(c: Company, form: str, day: date) -> str:
    stamp = day.strftime("%Y%m%d")
    if form == "4":
        return f"xslF345X05/wk-form4_{stable_hash('f4', c.cik, stamp) % 10**10}.xml"
    if form in ("8-K", "6-K") and stable_hash("agent", c.cik) % 2:
        number = stable_hash("ef", c.cik, stamp) % 10**8
        return f"ef{number:08d}_{form.lower().replace('-', '')}.htm"
    return f"{_slug(c)}-{stamp}.htm"


def _release_name(c: Company, day: date, number: int) -> str:
    """EX-99.x file names follow each filer agent's habits; one announcement in fifteen is
    a plain-text exhibit."""
    stamp = day.strftime("%Y%m%d")
    style = stable_hash("exname", c.cik) % 3
    if number == 1 and stable_hash("extxt", c.cik, stamp) % 15 == 0:
        return f"{_slug(c)}ex99{number}{stamp}.txt"
    return (f"{_slug(c)}-ex99{number}_{stamp}.htm", f"ex99-{number}.htm",
            f"a8-kex99{number}{stamp}.htm")[style]


def first_trade_day(cik: int, filed: date) -> date:
    """A Form 4's period of report, its earliest transaction: 0-2 business days before it
    was filed (the form is due within two)."""
    day = filed
    for _ in range(stable_hash("f4-lag", cik, filed) % 3):
        day -= timedelta(days=3 if day.weekday() == 0 else 1)
    return day


@dataclass(frozen=True)
class _Event:
    day: date
    kind: str
    topic: int = 0
    period: str = ""
    fiscal_year: int = 0


_RANK = {"earnings": 0, "announcement": 1, "agreement": 2, "officers": 3, "meeting": 4,
         "10-Q": 5, "10-K": 6, "4": 7, "6-K": 8, "20-F": 9}


def _events(c: Company, year: int) -> list[_Event]:
    if c.foreign:
        out = [_Event(_in_month(c, year, m, "6k"), "6-K") for m in range(1, 13)]
        return [*out, _Event(_weekday(date(year, 4, 25)), "20-F")]
    events: list[_Event] = []
    quiet = is_quiet(c)
    year_end = int(datetime(year, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp())
    for call in held_calls(c.instrument, year_end, limit=6):
        day = datetime.fromtimestamp(call.epoch, UTC).date()
        if day.year != year:
            continue
        if not quiet:
            events.append(_Event(day, "earnings", period=call.period,
                                 fiscal_year=call.fiscal_year))
        periodic = "10-K" if call.period == "Q4" else "10-Q"
        # The report carries its quarter (the XBRL facts of companyfacts.py use it).
        events.append(_Event(_weekday(day + timedelta(days=1 + stable_hash(
            "10q", c.cik, year, call.period) % 6)), periodic, period=call.period,
            fiscal_year=call.fiscal_year))
    for month in range(1, 13):
        if not quiet and unit("sec-ann", c.cik, year, month) < ANNOUNCEMENT_SHARE:
            topic = stable_hash("sec-topic", c.cik, year, month) % TOPICS
            if topic == 0 and c.instrument.dividend_yield <= 0:
                topic = 1
            events.append(_Event(_in_month(c, year, month, "ann"), "announcement", topic))
        if month % 3 == 2:
            events.append(_Event(_in_month(c, year, month, "f4a"), "4"))
            events.append(_Event(_in_month(c, year, month, "f4b"), "4"))
    if unit("sec-agreement", c.cik, year) < 0.5:
        events.append(_Event(_in_month(c, year, 1 + stable_hash("agr", c.cik, year) % 12,
                                       "agr"), "agreement"))
    if unit("sec-officers", c.cik, year) < 0.6:
        events.append(_Event(_in_month(c, year, 1 + stable_hash("off", c.cik, year) % 12,
                                       "off"), "officers"))
    events.append(_Event(_in_month(c, year, 5 + stable_hash("mtg", c.cik, year) % 2, "mtg"),
                         "meeting"))
    return events


_FORMS = {"earnings": ("8-K", "2.02,9.01"), "announcement": ("8-K", ""),
          "agreement": ("8-K", "1.01,9.01"), "officers": ("8-K", "5.02"),
          "meeting": ("8-K", "5.07"), "10-Q": ("10-Q", ""), "10-K": ("10-K", ""),
          "4": ("4", ""), "6-K": ("6-K", ""), "20-F": ("20-F", "")}
_DESCRIPTIONS = {"8-K": "8-K", "10-Q": "10-Q", "10-K": "10-K", "4": "FORM 4",
                 "6-K": "6-K", "20-F": "20-F"}


def _exhibits(c: Company, event: _Event) -> tuple[Exhibit, ...]:
    if event.kind == "earnings":
        out = [Exhibit("EX-99.1", _release_name(c, event.day, 1), "PRESS RELEASE")]
        if stable_hash("ex992", c.cik) % 3 == 0:
            out.append(Exhibit("EX-99.2", _release_name(c, event.day, 2),
                               "CFO COMMENTARY"))
        return tuple(out)
    if event.kind in ("announcement", "6-K"):
        return (Exhibit("EX-99.1", _release_name(c, event.day, 1), "PRESS RELEASE"),)
    if event.kind == "agreement":
        stamp = event.day.strftime("%Y%m%d")
        return (Exhibit("EX-10.1", f"{_slug(c)}-ex101_{stamp}.htm", "MATERIAL CONTRACT"),)
    return ()


def _items(c: Company, event: _Event) -> str:
    if event.kind == "announcement":
        return ("7.01,9.01", "8.01,9.01")[stable_hash("ann-item", c.cik, event.day) % 2]
    return _FORMS[event.kind][1]


# ~13 KiB a company-year: 1,024 are ~13 MiB (4,096 were up to ~55 MiB).
@lru_cache(maxsize=1024)
def filings_of_year(cik: int, year: int) -> tuple[Filing, ...]:
    """Every filing of the company in ``year``, in filing order (clock not applied)."""
    c = company(cik)
    if c is None:
        return ()
    events = sorted(_events(c, year), key=lambda e: (e.day, _RANK[e.kind], e.topic))
    base = 1 + stable_hash("sec-seq", cik, year) % 200
    out = []
    for seq, event in enumerate(events):
        form = _FORMS[event.kind][0]
        hour = 20 if event.kind == "earnings" else 10 + stable_hash("acc-h", cik, event.day) % 11
        minute, second = (stable_hash("acc-m", cik, event.day, event.kind) % 3600 // 60,
                          stable_hash("acc-s", cik, event.day, event.kind) % 60)
        report = first_trade_day(cik, event.day) if form == "4" else \
            event.day - timedelta(days=0 if form in ("8-K", "6-K") else 30)
        out.append(Filing(
            cik=cik, accession=f"{cik:010d}-{year % 100:02d}-{base + seq:06d}",
            day=event.day, form=form, items=_items(c, event),
            primary=_primary(c, form, event.day), description=_DESCRIPTIONS[form],
            kind=event.kind, accepted=f"{event.day.isoformat()}T{hour:02d}:{minute:02d}:"
                                      f"{second:02d}.000Z",
            report_date=report.isoformat(), exhibits=_exhibits(c, event), topic=event.topic,
            period=event.period, fiscal_year=event.fiscal_year))
    return tuple(out)


def recent_filings(cik: int, today: date) -> list[Filing]:
    """EDGAR's ``filings.recent``: the filings of the last three calendar years up to
    ``today``, newest first, at most 1,000."""
    out: list[Filing] = []
    for year in range(today.year, today.year - RECENT_YEARS, -1):
        out.extend(f for f in reversed(filings_of_year(cik, year)) if f.day <= today)
    return out[:RECENT_MAX]


def find_filing(cik: int, accession: str, today: date) -> Filing | None:
    """The filing with this accession number, if it exists by ``today``."""
    try:
        year = 2000 + int(accession.split("-")[1])
    except (IndexError, ValueError):
        return None
    if year > today.year:
        return None
    return next((f for f in filings_of_year(cik, year)
                 if f.accession == accession and f.day <= today), None)
