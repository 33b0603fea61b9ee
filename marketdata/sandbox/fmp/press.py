"""``/stable/news/press-releases?symbols=A[,B]&limit=N[&page=P]``.

Why: the press-releases endpoint asks FMP first when a key is set; the sandbox gives every
equity a deterministic wire history in FMP's shape ``{symbol, publishedDate, publisher,
title, image, site, text, url}``, newest first:

- quarterly results on the Yahoo sandbox's earnings days (the 18th-28th of January,
  April, July and October, per symbol) at 16:05 exchange time, each announced by a
  "date of earnings release" note two weeks before;
- a dividend declaration two weeks after results, for equities that pay one;
- other corporate news (conferences, appointments, launches, buybacks) on days drawn with
  a 2% chance each, seeded by (symbol, day).

Releases go back two years from the clock and never later than it. ``publishedDate`` is
``YYYY-MM-DD HH:MM:SS`` in UTC wall time without a zone (FMP's own zone is not
documented). ``limit`` defaults to 20 (at most 250), ``page`` to 0; several symbols are
merged newest first. Unknown symbols and non-equities have no releases (``[]``). Names,
datelines and texts are synthetic; ``url`` and ``image`` point at example.com.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from marketdata.sandbox.common import Request, json_response
from marketdata.sandbox.fmp.common import equity, headquarters, missing, today
from marketdata.sandbox.instruments import Instrument, pick, stable_hash, unit
from marketdata.sandbox.response import SandboxResponse

HISTORY_DAYS = 730
DEFAULT_LIMIT, MAX_LIMIT = 20, 250
_WIRES = (("Business Wire", "businesswire.com"), ("PRNewsWire", "prnewswire.com"),
          ("GlobeNewswire", "globenewswire.com"))
_EXCHANGES = {"NMS": "NASDAQ", "NGM": "NASDAQ", "NCM": "NASDAQ", "NYQ": "NYSE"}
_QUARTERS = ("First", "Second", "Third", "Fourth")
_CONFERENCES = ("Global Technology Conference", "Healthcare Conference",
                "Consumer & Retail Conference", "Industrials Summit", "Financials Forum")
_ROLES = ("Chief Financial Officer", "Chief Operating Officer", "Chief Technology Officer",
          "General Counsel", "Independent Director")
_PRODUCTS = ("platform", "product line", "service", "partnership program")


def _name(inst: Instrument) -> str:
    return inst.long_name or inst.short_name


def _ticker(inst: Instrument) -> str:
    return f"{_EXCHANGES.get(inst.exchange.code, 'NYSE')}: {inst.symbol}"


def _at(day: date, tz: str, hour: int, minute: int) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=ZoneInfo(tz)) \
        .astimezone(UTC)


def _scheduled(inst: Instrument, first: date, last: date) -> list[tuple[datetime, str, str]]:
    """Results, their date announcements and dividends in [first, last]: (when, kind, title)."""
    name, out = _name(inst), []
    day_of_month = min(18 + inst.seed % 12, 28)  # the Yahoo sandbox's earnings day
    for year in range(first.year - 1, last.year + 1):
        for k, month in enumerate((1, 4, 7, 10)):
            results = date(year, month, day_of_month)
            quarter = _QUARTERS[(k - 1) % 4]
            fiscal = year - 1 if month == 1 else year
            out.append((_at(results, inst.tz, 16, 5), "results",
                        f"{name} Reports {quarter} Quarter {fiscal} Results"))
            out.append((_at(results - timedelta(days=14), inst.tz, 8, 0), "date",
                        f"{name} to Announce {quarter} Quarter {fiscal} Results on "
                        f"{results.strftime('%B')} {results.day}, {results.year}"))
            if inst.dividend_yield > 0:
                out.append((_at(results + timedelta(days=14), inst.tz, 16, 15), "dividend",
                            f"{name} Declares Quarterly Dividend"))
    return [row for row in out if first <= row[0].date() <= last]


def _other(inst: Instrument, day: date) -> tuple[datetime, str, str] | None:
    sym, key = inst.symbol, day.toordinal()
    if unit("fmp-pr", sym, key) >= 0.02:
        return None
    name = _name(inst)
    titles = (f"{name} to Present at the {pick(_CONFERENCES, 'fmp-conf', sym, key)}",
              f"{name} Appoints New {pick(_ROLES, 'fmp-role', sym, key)}",
              f"{name} Launches New {pick(_PRODUCTS, 'fmp-prod', sym, key).title()}",
              f"{name} Announces Share Repurchase Program")
    title = pick(titles, "fmp-kind", sym, key)
    return _at(day, inst.tz, 7 + stable_hash("fmp-hour", sym, key) % 10, 0), "news", title


def _text(inst: Instrument, when: datetime, kind: str, title: str) -> str:
    city, state = headquarters(inst)
    place = f"{city.upper()}, {state}" if state else city.upper()
    wire = pick(_WIRES, "fmp-wire", inst.symbol)[0]
    lead = f"{place}--({wire})--{_name(inst)} ({_ticker(inst)}) "
    if kind == "results":
        body = ("today announced financial results for its fiscal quarter. Revenue and "
                "earnings per share are detailed in the tables below. Management will host "
                "a conference call to discuss the results at 4:30 p.m. Eastern Time today.")
    elif kind == "date":
        body = ("will release its quarterly financial results after the market close and "
                "host a conference call for analysts and investors the same day.")
    elif kind == "dividend":
        body = ("announced that its Board of Directors has declared a quarterly cash "
                "dividend payable to shareholders of record at the close of business on the "
                "record date.")
    else:
        body = f"today announced: {title}. Further details are available on its website."
    return lead + body + " (Synthetic sandbox press release.)"


def releases(inst: Instrument, now: datetime) -> list[dict[str, Any]]:
    """Every release of an equity in the two years up to ``now``, newest first."""
    last, first = now.date(), now.date() - timedelta(days=HISTORY_DAYS)
    found = _scheduled(inst, first, last)
    day = first
    while day <= last:
        item = _other(inst, day)
        if item is not None:
            found.append(item)
        day += timedelta(days=1)
    found = [row for row in found if row[0] <= now]
    found.sort(key=lambda row: row[0], reverse=True)
    publisher, site = pick(_WIRES, "fmp-wire", inst.symbol)
    out = []
    for when, kind, title in found:
        ident = stable_hash("fmp-release", inst.symbol, int(when.timestamp())) % 10**12
        out.append({"symbol": inst.symbol, "publishedDate": when.strftime("%Y-%m-%d %H:%M:%S"),
                    "publisher": publisher, "title": title,
                    "image": f"https://images.example.com/press/{ident}.jpg", "site": site,
                    "text": _text(inst, when, kind, title),
                    "url": f"https://press.example.com/{inst.symbol.lower()}/{ident}"})
    return out


def handle_press_releases(req: Request) -> SandboxResponse:
    raw = req.arg("symbols") or req.arg("symbol")
    symbols = [s.strip().upper() for s in (raw or "").split(",") if s.strip()]
    if not symbols:
        return missing("symbols")
    limit, page = req.int_arg("limit", DEFAULT_LIMIT), req.int_arg("page", 0)
    if limit is None or page is None or limit < 0 or page < 0:
        return missing("limit")
    limit = min(limit, MAX_LIMIT)
    now = today(req)
    found: list[dict[str, Any]] = []
    for symbol in dict.fromkeys(symbols):
        inst = equity(symbol)
        if inst is not None:
            found.extend(releases(inst, now))
    found.sort(key=lambda row: row["publishedDate"], reverse=True)
    return json_response(found[page * limit:(page + 1) * limit])
