"""GET /api/v2/doc/doc?query=...&mode=artlist&format=json: GDELT's article list.

Why: the world news endpoint must run offline through its real parser, pacing-free. The
answer has GDELT's shape, ``{"articles": [{url, url_mobile, title, seendate, socialimage,
domain, language, sourcecountry}]}``, and GDELT's habits: ``{}`` when nothing matches,
plain-text refusals with HTTP 200 for a query GDELT will not run. Articles are synthetic and
deterministic: each UTC day of the window holds 1-6 articles per search subject, their
times, outlets and headlines drawn from sha256 of (subject, day, index), so a day's
articles never change and only "today" grows with the clock. Headlines come from templates
about the subject with positive, negative or neutral wording, so sentiment varies; they
carry no prices.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from marketdata.sandbox.common import BASE_HEADERS, Request, json_response
from marketdata.sandbox.instruments import pick, stable_hash
from marketdata.sandbox.response import SandboxResponse

MIN_PHRASE_CHARS = 5
DEFAULT_RECORDS, MAX_RECORDS = 75, 250
DEFAULT_TIMESPAN = timedelta(days=90)  # GDELT searches the last 3 months by default
ARTICLES_PER_DAY = (1, 6)
RATE_LIMITED_MARKER, NO_NEWS_MARKER = "ratelimited", "nonews"

TOO_SHORT = "The specified phrase is too short."
OR_OUTSIDE_PARENS = "Queries containing OR'd terms must be surrounded by ()."
PARENS_WITHOUT_OR = "Parentheses may only be used around OR'd statements."
THROTTLED = "Please limit requests to one every 5 seconds."

_TOKEN = re.compile(r'"[^"]*"|\(|\)|[^\s()"]+')
_TIMESPAN = re.compile(r"(\d+)\s*(min|minutes?|h|hours?|d|days?|w|weeks?|m|months?)",
                       re.IGNORECASE)
_UNIT_SECONDS = {"min": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "m": 30 * 86400}

POSITIVE_TITLES = (
    "{name} shares rise after results beat expectations",
    "{name} raises full-year outlook on strong demand",
    "Analysts upgrade {name}, citing improving margins",
    "{name} hits record high",
    "{name} wins major contract",
    "{name} announces share buyback program",
)
NEGATIVE_TITLES = (
    "{name} shares fall after profit warning",
    "{name} faces lawsuit over disclosure practices",
    "{name} to cut jobs as demand slows",
    "Regulators open probe into {name}",
    "{name} misses revenue estimates",
    "Analysts downgrade {name} on weaker outlook",
)
NEUTRAL_TITLES = (
    "{name} to present at industry conference",
    "{name} sets date for annual shareholder meeting",
    "{name} names new board member",
    "What to watch as {name} reports this week",
    "{name} opens new office in {city}",
    "{name} executives discuss strategy in interview",
)
_TONES = (POSITIVE_TITLES, NEGATIVE_TITLES, NEUTRAL_TITLES)
# Fictional outlets on the reserved .example TLD: nobody mistakes these for real reporting.
DOMAINS = ("marketcourier.example", "ledgerdaily.example", "northbridgetimes.example",
           "tradewirenews.example", "capitalobserver.example", "businessherald.example",
           "globalmarketsreview.example", "financepost.example")
COUNTRIES = ("United States", "United Kingdom", "Canada", "Australia", "India", "Singapore",
             "Ireland")
CITIES = ("Austin", "Dublin", "Singapore", "Toronto", "Munich", "Sydney", "Bangalore")


def plain(text: str, status: int = 200) -> SandboxResponse:
    """GDELT's plain-text answer (it labels them text/html)."""
    return SandboxResponse(status, {"Content-Type": "text/html; charset=utf-8",
                                    **BASE_HEADERS}, text.encode())


class QueryRefused(ValueError):
    """GDELT's own words for a query it will not run."""


def parse_query(query: str) -> tuple[list[str], dict[str, str]]:
    """(search terms, operators) of a DOC API query, or QueryRefused with GDELT's message.

    Rules checked, as GDELT applies them: a quoted phrase needs ``MIN_PHRASE_CHARS``
    letters or digits; OR-ed terms must sit inside parentheses; parentheses may hold only
    OR-ed terms (no nesting). ``name:value`` words are operators (``sourcelang:english``).
    """
    tokens = _TOKEN.findall(query)
    terms: list[str] = []
    operators: dict[str, str] = {}
    depth, group_has_or, group_size = 0, False, 0
    for i, part in enumerate(tokens):
        if part == "(":
            if depth:
                raise QueryRefused(PARENS_WITHOUT_OR)
            depth, group_has_or, group_size = 1, False, 0
        elif part == ")":
            if not depth or not group_has_or or group_size < 2:
                raise QueryRefused(PARENS_WITHOUT_OR)
            depth = 0
        elif part.upper() == "OR":
            if not depth:
                raise QueryRefused(OR_OUTSIDE_PARENS)
            if i + 1 >= len(tokens) or tokens[i + 1] == ")" or group_size == 0:
                raise QueryRefused(OR_OUTSIDE_PARENS)
            group_has_or = True
        elif part.startswith('"'):
            phrase = part.strip('"').strip()
            if sum(ch.isalnum() for ch in phrase) < MIN_PHRASE_CHARS:
                raise QueryRefused(TOO_SHORT)
            terms.append(phrase)
            group_size += depth
        elif ":" in part and not part.startswith(":"):
            key, _, value = part.partition(":")
            operators[key.lower()] = value.lower()
        else:
            terms.append(part)
            group_size += depth
    if depth:
        raise QueryRefused(PARENS_WITHOUT_OR)
    return terms, operators


def timespan_of(text: str | None) -> timedelta | None:
    """``2w``, ``15min``, ``24h``, ``3months`` -> a timedelta; None when unreadable."""
    if not text:
        return DEFAULT_TIMESPAN
    match = _TIMESPAN.fullmatch(text.strip())
    if match is None:
        return None
    unit = match.group(2).lower()
    key = "min" if unit.startswith("min") else unit[0]
    return timedelta(seconds=int(match.group(1)) * _UNIT_SECONDS[key])


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60]


def article(subject: str, day: datetime, index: int) -> dict[str, str]:
    """The ``index``-th article of ``day`` about ``subject`` (sha256-seeded)."""
    key = (subject.lower(), day.date().isoformat(), index)
    minute = stable_hash("gdelt-minute", *key) % (24 * 4) * 15  # GDELT updates every 15 min
    seen = day + timedelta(minutes=minute)
    titles = pick(_TONES, "gdelt-tone", *key)
    title = pick(titles, "gdelt-title", *key).format(name=subject,
                                                     city=pick(CITIES, "gdelt-city", *key))
    domain = pick(DOMAINS, "gdelt-domain", *key)
    token = stable_hash("gdelt-url", *key)
    path = f"{seen:%Y/%m/%d}/{_slug(title)}-{token % 16**8:08x}"
    return {
        "url": f"https://www.{domain}/{path}",
        "url_mobile": f"https://m.{domain}/{path}" if token % 4 == 0 else "",
        "title": title,
        "seendate": f"{seen:%Y%m%dT%H%M%S}Z",
        "socialimage": "" if token % 5 == 0 else
        f"https://www.{domain}/images/{token % 16**12:012x}.jpg",
        "domain": domain,
        "language": "English",
        "sourcecountry": pick(COUNTRIES, "gdelt-country", *key),
    }


def articles_about(subject: str, start: datetime, end: datetime) -> list[dict[str, str]]:
    """Every article about ``subject`` seen in [start, end], oldest first."""
    low, high = ARTICLES_PER_DAY
    out: list[tuple[datetime, dict[str, str]]] = []
    day = datetime(start.year, start.month, start.day, tzinfo=UTC)
    while day <= end:
        count = low + stable_hash("gdelt-count", subject.lower(), day.date().isoformat()) \
            % (high - low + 1)
        for index in range(count):
            item = article(subject, day, index)
            seen = datetime.strptime(item["seendate"], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
            if start <= seen <= end:
                out.append((seen, item))
        day += timedelta(days=1)
    out.sort(key=lambda pair: (pair[0], pair[1]["url"]))
    return [item for _, item in out]


def handle_doc(req: Request) -> SandboxResponse:
    args = {key.lower(): values[-1] for key, values in req.query.items() if values}
    if (args.get("mode") or "").lower() != "artlist":
        return plain("The sandbox simulates mode=ArtList only.")
    if (args.get("format") or "").lower() != "json":
        return plain("The sandbox simulates format=json only.")
    query = (args.get("query") or "").strip()
    if not query:
        return plain("Please specify a query.")
    try:
        terms, operators = parse_query(query)
    except QueryRefused as refused:
        return plain(str(refused))
    lowered = " ".join(terms).lower()
    if RATE_LIMITED_MARKER in lowered:
        return plain(THROTTLED)
    span = timespan_of(args.get("timespan"))
    if span is None:
        return plain("Invalid timespan.")
    try:
        records = int(args.get("maxrecords") or DEFAULT_RECORDS)
    except ValueError:
        records = DEFAULT_RECORDS
    records = max(1, min(records, MAX_RECORDS))
    language = operators.get("sourcelang", "english")
    if not terms or NO_NEWS_MARKER in lowered or language not in ("english", "eng"):
        return json_response({})
    now = req.clock().astimezone(UTC).replace(microsecond=0)
    found = articles_about(terms[0], now - span, now)
    sort = (args.get("sort") or "").lower()
    if sort == "datedesc":
        found.reverse()
    elif sort != "dateasc":  # GDELT's default relevance order: a stable shuffle here
        found.sort(key=lambda item: stable_hash("gdelt-rank", lowered, item["url"]))
    found = found[:records]
    return json_response({"articles": found} if found else {})
