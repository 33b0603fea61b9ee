"""Earnings calls: the HTML list page, v1 quoteType (quartrId) and the xhr transcript.

Why: the transcript flow needs three upstream answers that agree with each other. Every
equity gets a fiscal calendar derived from its symbol (fiscal-year end month, days from
quarter end to the call, call hour); a call exists once the clock has passed its time, so
the newest listed quarter moves with the sandbox clock. Funds, indices, currencies, crypto
and futures have no calls.

The sandbox's quartrId encodes the symbol (bijective base 42), so the transcript endpoint
can tell which company a (quartrId, eventId) pair belongs to without any state; event and
transcript ids are hashes of (symbol, fiscal year, quarter). A pair the list page would not
produce answers 404.
"""

from __future__ import annotations

import calendar
import html
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any
from urllib.parse import quote

from marketdata.sandbox.instruments import (
    EQUITY,
    FAMOUS,
    Instrument,
    get_instrument,
    pick,
    stable_hash,
    unit,
)
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.common import (
    Request,
    error_response,
    finance_error,
    json_response,
    text_response,
)
from marketdata.sandbox.yahoo.market import market_view

HTML_TYPE = "text/html; charset=utf-8"
LISTED_CALLS = 8
_MAX_HISTORY = 48  # quarters a transcript can be asked for (12 years)

# Famous companies' real fiscal calendars: (fiscal-year end month, days to the call, hour).
_CALENDARS = {
    "AAPL": (9, 30, 21), "MSFT": (6, 29, 21), "NVDA": (1, 28, 21), "GOOGL": (12, 29, 21),
    "GOOG": (12, 29, 21), "AMZN": (12, 31, 21), "META": (12, 30, 21), "TSLA": (12, 22, 21),
    "NFLX": (12, 17, 20), "AMD": (12, 34, 21), "INTC": (12, 24, 21), "JPM": (12, 14, 12),
    "V": (9, 28, 21), "KO": (12, 42, 13), "DIS": (9, 38, 21), "BABA": (3, 45, 12),
    "BRK-B": (12, 34, 15),
}
_QUARTR_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ.-=&^"
_BASE = len(_QUARTR_ALPHABET) + 1

_FIRST = ("James", "Maria", "Robert", "Linda", "David", "Susan", "Daniel", "Karen", "Paul",
          "Nancy", "Kevin", "Aisha", "Hiro", "Elena", "Marcus", "Priya", "Tomás", "Grace")
_LAST = ("Walker", "Chen", "Garcia", "Patel", "Miller", "Novak", "Okafor", "Rossi", "Klein",
         "Tanaka", "Schmidt", "Dubois", "Haddad", "Larsen", "Moreau", "Iyer", "Brennan")
_FIRMS = (("Morgan Stanley", "Managing Director"), ("Goldman Sachs", "Managing Director"),
          ("JP Morgan", "Equity Research Analyst"), ("UBS", "Managing Director"),
          ("Evercore ISI", "Senior Managing Director"), ("Bank of America", "Analyst"),
          ("Wells Fargo", "Senior Equity Analyst"), ("Bernstein", "Senior Analyst"),
          ("Barclays", "Analyst"), ("Citi", "Managing Director"))


# -- the fiscal calendar ------------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    symbol: str
    fiscal_year: int
    quarter: int
    epoch: int  # when the call is held

    @property
    def period(self) -> str:
        return f"Q{self.quarter}"

    @property
    def event_id(self) -> int:
        return 100_000 + stable_hash("sandbox-event", self.symbol, self.fiscal_year,
                                     self.quarter) % 900_000

    @property
    def transcript_id(self) -> int:
        return 1_000_000 + stable_hash("sandbox-transcript", self.symbol, self.fiscal_year,
                                       self.quarter) % 9_000_000

    @property
    def href(self) -> str:
        sym = quote(self.symbol, safe="")
        return (f"/quote/{sym}/earnings/{sym}-{self.period}-{self.fiscal_year}"
                f"-earnings_call-{self.event_id}.html")


def _calendar(symbol: str) -> tuple[int, int, int]:
    if symbol in _CALENDARS:
        return _CALENDARS[symbol]
    end_month = pick((12, 12, 12, 12, 12, 3, 6, 9, 1), "fy-end", symbol)
    return end_month, 18 + stable_hash("call-delay", symbol) % 24, pick((13, 21), "hr", symbol)


def _call(symbol: str, fiscal_year: int, quarter: int) -> Call:
    end_month, delay, hour = _calendar(symbol)
    index = fiscal_year * 12 + (end_month - 1) - 3 * (4 - quarter)
    year, month = divmod(index, 12)
    last = date(year, month + 1, calendar.monthrange(year, month + 1)[1])
    held = datetime.combine(last + timedelta(days=delay), datetime.min.time(), UTC)
    return Call(symbol, fiscal_year, quarter, int(held.timestamp()) + hour * 3600)


def held_calls(inst: Instrument, now: int, limit: int = LISTED_CALLS) -> list[Call]:
    """The instrument's calls held by ``now``, newest first (none unless an equity)."""
    if inst.kind != EQUITY:
        return []
    out: list[Call] = []
    fiscal_year = datetime.fromtimestamp(now, UTC).year + 2
    quarter = 4
    while len(out) < limit and fiscal_year > 1985:
        call = _call(inst.symbol, fiscal_year, quarter)
        if call.epoch <= now and call.epoch >= inst.first_trade:
            out.append(call)
        fiscal_year, quarter = (fiscal_year, quarter - 1) if quarter > 1 else (fiscal_year - 1, 4)
    return out


# -- quartrId <-> symbol ------------------------------------------------------------------
def quartr_id(symbol: str) -> str:
    number = 0
    for ch in symbol:
        number = number * _BASE + _QUARTR_ALPHABET.index(ch) + 1
    return str(number)


def symbol_for_quartr_id(text: str | None) -> str | None:
    if not text or not text.isdigit() or len(text) > 40:
        return None
    number, chars = int(text), []
    while number:
        number, digit = divmod(number, _BASE)
        if digit == 0:
            return None
        chars.append(_QUARTR_ALPHABET[digit - 1])
    return "".join(reversed(chars)) or None


# -- GET /quote/{symbol}/earnings-calls/ ----------------------------------------------------
def _company(inst: Instrument) -> str:
    return inst.display_name or inst.long_name or inst.short_name


def _not_found_page(symbol: str) -> SandboxResponse:
    sym = html.escape(symbol)
    page = (f"<!DOCTYPE html><html lang=\"en-US\"><head><meta charset=\"utf-8\"><title>"
            f"Symbol Lookup from Yahoo Finance</title></head><body><main><h1>Sorry, we "
            f"couldn't find {sym}</h1><p><a href=\"/lookup?s={quote(symbol, safe='')}\">"
            f"Search for {sym}</a></p></main></body></html>")
    return text_response(page, 404, HTML_TYPE)


def _related(symbol: str, now: int) -> Call | None:
    """Another company's latest call, shown in a side panel as Yahoo does."""
    others = sorted(s for s, v in FAMOUS.items() if v[0] == EQUITY and s != symbol)
    inst = get_instrument(pick(others, "related", symbol))
    calls = held_calls(inst, now, 1) if inst else []
    return calls[0] if calls else None


def handle_earnings_calls_page(req: Request) -> SandboxResponse:
    """The earnings-calls page: the last eight calls, each linked twice (title, transcript
    button), plus one related company's call; 404 page for unknown symbols."""
    inst = get_instrument(req.params.get("symbol", ""))
    if inst is None:
        return _not_found_page(req.params.get("symbol", ""))
    now = req.now()
    name = html.escape(inst.long_name or inst.short_name)
    sym = html.escape(inst.symbol)
    rows = []
    for call in held_calls(inst, now):
        held = datetime.fromtimestamp(call.epoch, UTC)
        title = f"{call.period} {call.fiscal_year}"
        href = html.escape(call.href)
        rows.append(
            f"<li class=\"call\"><a href=\"{href}\" title=\"{title} Earnings Call\">"
            f"<h3>{html.escape(_company(inst))} {title} Earnings Call</h3></a>"
            f"<time datetime=\"{held.isoformat().replace('+00:00', 'Z')}\">"
            f"{held.strftime('%b %d, %Y')}</time> <a href=\"{href}\" "
            f"aria-label=\"Read {title} transcript\">Read transcript</a></li>")
    body = (f"<ul class=\"calls\">{''.join(rows)}</ul>" if rows
            else "<p class=\"empty\">No earnings calls available.</p>")
    related = _related(inst.symbol, now) if rows else None
    aside = ""
    if related is not None:
        aside = (f"<aside><h2>Recent calls from related companies</h2><a href=\""
                 f"{html.escape(related.href)}\">{html.escape(related.symbol)} "
                 f"{related.period} {related.fiscal_year} Earnings Call</a></aside>")
    page = (
        f"<!DOCTYPE html><html lang=\"en-US\"><head><meta charset=\"utf-8\"><title>{name} "
        f"({sym}) Earnings Calls &amp; Transcripts - Yahoo Finance</title></head><body>"
        f"<header><nav><a href=\"/\">Yahoo Finance</a> <a href=\"/markets/\">Markets</a> "
        f"<a href=\"/quote/{quote(inst.symbol, safe='')}/\">Summary</a> <a href=\"/quote/"
        f"{quote(inst.symbol, safe='')}/news/\">News</a></nav></header><main>"
        f"<section data-testid=\"earnings-calls\"><h1>{name} ({sym}) Earnings Calls</h1>"
        f"{body}</section>{aside}</main></body></html>")
    return text_response(page, 200, HTML_TYPE)


# -- GET /v1/finance/quoteType/{symbol} -----------------------------------------------------
def handle_quote_type(req: Request) -> SandboxResponse:
    """v1 quoteType: the instrument's identity; equities carry a quartrId."""
    raw_symbol = req.params.get("symbol", "")
    inst = get_instrument(raw_symbol)
    if inst is None:
        return error_response("quoteType", "Not Found",
                              f"Quote not found for symbol: {raw_symbol.upper()}", 404)
    view = market_view(get_series(inst), req.now())
    result: dict[str, Any] = {"symbol": inst.symbol, "quoteType": inst.kind}
    if inst.kind == EQUITY:
        result["quartrId"] = quartr_id(inst.symbol)
    result.update({
        "exchange": inst.exchange.code, "shortName": inst.short_name,
        "longName": inst.long_name or inst.short_name,
        "messageBoardId": view.message_board_id, "exchangeTimezoneName": inst.tz,
        "exchangeTimezoneShortName": view.tz_short,
        "gmtOffSetMilliseconds": view.gmt_offset * 1000, "market": inst.exchange.market,
        "isEsgPopulated": False, "hasSelerityEarnings": inst.kind == EQUITY,
    })
    return json_response({"quoteType": {"result": [result], "error": None}})


# -- GET /xhr/transcript ----------------------------------------------------------------------
def _person(*parts: object) -> str:
    return f"{pick(_FIRST, 'first', *parts)} {pick(_LAST, 'last', *parts)}"


def _people(inst: Instrument, call: Call) -> dict[str, dict[str, Any]]:
    """Operator, investor relations, CEO, CFO (stable per company) and 2-3 analysts."""
    company = _company(inst)
    people: dict[str, dict[str, Any]] = {
        "operator": {"name": "Operator", "role": None, "company": None}}
    used = {"Operator"}
    roles = (("ir", pick(("Director of Investor Relations", "Vice President, Investor "
                          "Relations"), "ir-role", inst.symbol)),
             ("ceo", "CEO"), ("cfo", "CFO"))
    for key, role in roles:
        salt = 0
        while (name := _person(inst.symbol, key, salt)) in used:
            salt += 1
        used.add(name)
        people[key] = {"name": name, "role": role, "company": company}
    count = 2 + stable_hash("analysts", inst.symbol, call.fiscal_year, call.quarter) % 2
    for i in range(count):
        salt = 0
        while (name := _person(inst.symbol, call.fiscal_year, call.quarter, i, salt)) in used:
            salt += 1
        used.add(name)
        firm, role = pick(_FIRMS, "firm", inst.symbol, call.fiscal_year, call.quarter, i)
        people[f"analyst{i}"] = {"name": name, "role": role, "company": firm}
    return people


def _money(value: float) -> str:
    return f"${value / 1e9:.1f} billion" if value >= 1e9 else f"${value / 1e6:.0f} million"


def _script(inst: Instrument, call: Call, people: dict[str, dict[str, Any]]
            ) -> list[tuple[str, list[str]]]:
    """(speaker key, sentences) per paragraph: prepared remarks, then Q&A."""
    company = _company(inst)
    first = {k: v["name"].split()[0] for k, v in people.items()}
    u = lambda tag: unit(tag, inst.symbol, call.fiscal_year, call.quarter)  # noqa: E731
    revenue = max(inst.shares_outstanding, 50_000_000) * inst.anchor_price * \
        (0.02 + 0.05 * unit("rev", inst.symbol)) * (1 + 0.1 * (u("drift") - 0.5))
    growth = round(-4 + 26 * u("growth"), 1)
    margin = round(30 + 40 * unit("margin", inst.symbol) + 2 * (u("gm") - 0.5), 1)
    eps = round(0.2 + 2.8 * unit("eps", inst.symbol) * (1 + 0.2 * (u("eps-q") - 0.5)), 2)
    guide = round(-2 + 15 * u("guide"), 1)
    direction = "up" if growth >= 0 else "down"
    next_q = f"Q{call.quarter % 4 + 1}"
    analysts = [k for k in people if k.startswith("analyst")]
    paragraphs: list[tuple[str, list[str]]] = [
        ("operator", [f"Good day, and welcome to the {company} {call.period} fiscal year "
                      f"{call.fiscal_year} earnings conference call.",
                      "Today's call is being recorded.",
                      f"At this time, I would like to turn the call over to "
                      f"{people['ir']['name']}, {people['ir']['role']}.",
                      "Please go ahead."]),
        ("ir", ["Thank you, and good afternoon, everyone.",
                f"With me today are {people['ceo']['name']}, our CEO, and "
                f"{people['cfo']['name']}, our CFO.",
                "Some of the information you will hear today consists of forward-looking "
                "statements, and actual results could differ materially.",
                f"With that, I'll turn the call over to {first['ceo']}."]),
        ("ceo", [f"Thank you, {first['ir']}.",
                 f"We delivered revenue of {_money(revenue)} this quarter, {direction} "
                 f"{abs(growth)}% from a year ago.",
                 "Demand across our core products remained healthy, and our teams executed "
                 "well on our roadmap.",
                 "We continued to invest in the areas we believe will drive long-term "
                 "growth."]),
        ("ceo", ["Our balance sheet remains strong, and we returned capital to shareholders "
                 "during the quarter.",
                 f"With that, I'll hand it over to {first['cfo']} to walk through the "
                 "numbers."]),
        ("cfo", [f"Thanks, {first['ceo']}.",
                 f"Revenue for the {call.period} quarter was {_money(revenue)}.",
                 f"Gross margin was {margin}%, and diluted earnings per share were ${eps}.",
                 "Operating expenses were in line with the outlook we gave last quarter."]),
        ("cfo", [f"Turning to our outlook for {next_q}, we expect revenue to grow "
                 f"between {guide}% and {round(guide + 3, 1)}% year over year.",
                 "With that, let's open the call to questions."]),
    ]
    topics = (("demand trends into next quarter", "ceo",
               "We are encouraged by what we see, and our pipeline remains solid."),
              ("how you are thinking about gross margin from here", "cfo",
               f"We expect gross margin to stay close to {margin}% as mix evolves."),
              ("capital allocation priorities", "cfo",
               "Our priorities are unchanged: invest in the business first, then return "
               "excess cash to shareholders."))
    for i, key in enumerate(analysts):
        person = people[key]
        intro = "Our first question" if i == 0 else "Our next question"
        question, answerer, answer = topics[i % len(topics)]
        paragraphs.append(("operator", [f"{intro} comes from {person['name']} with "
                                        f"{person['company']}.", "Please go ahead."]))
        paragraphs.append((key, ["Hi, thanks for taking my question.",
                                 f"Could you talk about {question}?"]))
        paragraphs.append((answerer, [f"Thanks, {first[key]}.", answer]))
    paragraphs.append(("operator", ["That concludes today's question-and-answer session.",
                                    "Thank you for participating. You may now disconnect."]))
    return paragraphs


def _words(sentence: str, start: float, salt: tuple[Any, ...]) -> tuple[list[dict], float]:
    words, t = [], start
    for i, token in enumerate(sentence.split()):
        length = 0.12 + 0.05 * len(token)
        word = re.sub(r"[^\w%$'-]", "", token).lower() or token.lower()
        words.append({"confidence": round(0.9 + 0.1 * unit("conf", *salt, i), 2),
                      "end": round(t + length, 2), "punctuated_word": token,
                      "start": round(t, 2), "word": word})
        t += length + 0.06
    return words, t


def transcript_payload(inst: Instrument, call: Call, latest: bool, now: int) -> dict[str, Any]:
    """The xhr body, keys as in the recording (alphabetical)."""
    people = _people(inst, call)
    ordered = sorted(people, key=lambda k: people[k]["name"])
    index = {key: i for i, key in enumerate(ordered)}
    paragraphs: list[dict[str, Any]] = []
    t = 0.12
    for n, (key, sentences) in enumerate(_script(inst, call, people)):
        start, rows = t, []
        for s, text in enumerate(sentences):
            words, end = _words(text, t, (call.event_id, n, s))
            rows.append({"end": round(end, 2), "start": round(t, 2), "text": text,
                         "words": words})
            t = end + 0.4
        paragraphs.append({"end": rows[-1]["end"], "sentences": rows, "speaker": index[key],
                           "start": round(start, 2), "text": " ".join(sentences)})
        t += 0.8
    number = int(quartr_id(inst.symbol))
    company_id: int | str = number if number < 2**63 else str(number)  # JSON numbers: 64-bit
    held = datetime.fromtimestamp(call.epoch, UTC)
    updated = min(call.epoch + 3600 * (20 + stable_hash("upd", call.event_id) % 60), now)
    return {
        "transcriptContent": {
            "company_id": company_id,
            "event_id": call.event_id,
            "speaker_mapping": [{"speaker": index[k], "speaker_data": {
                "company": people[k]["company"], "name": people[k]["name"],
                "role": people[k]["role"]}} for k in ordered],
            "transcript": {"number_of_speakers": len(ordered), "paragraphs": paragraphs,
                           "text": " ".join(p["text"] for p in paragraphs)},
            "version": "1.0.0",
        },
        "transcriptMetadata": {
            "date": call.epoch, "eventId": call.event_id, "eventType": "Earnings call",
            "fiscalPeriod": call.period, "fiscalYear": call.fiscal_year, "isLatest": latest,
            "s3Url": f"s3://sandbox-market-data/shared/transcripts/{held.year}/{held.month}/"
                     f"{held.day}/{call.transcript_id}.json",
            "title": f"{call.period} {call.fiscal_year}", "transcriptId": call.transcript_id,
            "type": "IN_HOUSE", "updated": updated,
        },
    }


def handle_transcript(req: Request) -> SandboxResponse:
    """The transcript of a call the list page links, for its company's quartrId; 404 for
    any other (quartrId, eventId) pair or event type."""
    symbol = symbol_for_quartr_id(req.arg("quartrId"))
    inst = get_instrument(symbol) if symbol else None
    event = req.arg("eventId") or ""
    now = req.now()
    calls = held_calls(inst, now, _MAX_HISTORY) if inst is not None else []
    match = next((c for c in calls if str(c.event_id) == event), None)
    if match is None or inst is None or req.arg("eventType") != "earnings_call":
        return finance_error("Not Found", "Transcript not found", 404)
    payload = transcript_payload(inst, match, match == calls[0], now)
    return json_response(payload)
