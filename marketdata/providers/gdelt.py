"""GDELT DOC 2.0 API (keyless): recent articles that mention a company, each with a
sentiment scored here (:mod:`marketdata.sentiment`).

One upstream call per symbol and cache period::

    GET https://api.gdeltproject.org/api/v2/doc/doc?query=<q>&mode=artlist&format=json
        &maxrecords=75&timespan=2w&sort=datedesc

**The query.** GDELT refuses quoted phrases shorter than five characters (so ``"AAPL"`` and
``"TSLA"`` are refused) and finds few articles by ticker anyway; news names companies. So the
query is the company's name from the Yahoo quote (:func:`marketdata.providers.yahoo.quote.
fetch_quotes`; an unknown symbol is a 404 before GDELT is asked), cleaned of legal and
group suffixes ("Apple Inc." -> ``"Apple"``, "Alibaba Group Holding Limited" ->
``"Alibaba"``, "The Walt Disney Company" -> ``"Walt Disney"``), as a phrase. When the
cleaned name is shorter than five letters or digits, the least-cleaned form that is long
enough is used ("Visa Inc." -> ``"Visa Inc"``); a crypto pair drops its quote currency
("Bitcoin USD" -> ``"Bitcoin"``), a future becomes ``"<root> futures"``. A ticker of five or
more letters is OR-ed in (``("Alphabet" OR "GOOGL")``: GDELT wants OR-ed terms in
parentheses and parentheses only there). ``sourcelang:english`` keeps the articles to the
language the sentiment model reads. A symbol with no usable name is a 404.

**The answer.** ``{"articles": [{url, url_mobile, title, seendate, socialimage, domain,
language, sourcecountry}]}``; with no match GDELT answers ``{}`` (no articles: an empty
list). GDELT answers some refusals as plain text with HTTP 200: "Please limit requests to
one every 5 seconds..." is the upstream 429; a refusal of the query's grammar ("The
specified phrase is too short.", "Queries containing OR'd terms must be surrounded by
()") is a 404 like a symbol without a searchable name: the query was built for this
symbol, so no retry would help, and a NotFound is remembered for a while (no further calls
spent on it); any other text, an HTML page or JSON of another shape is a 502. Any HTTP
4xx is a 502 (the client turns 429 into the upstream 429 itself).

**Respecting GDELT's pace** (it asks for at most one request every 5 seconds): at most one
call in flight per process (``max_concurrency=1``), no retries (``max_attempts=1``: a retry
would break the pace), call starts spaced ``GDELT_MIN_INTERVAL_SECONDS`` (5) apart per
process (a call waits for its turn within the request deadline, or is a 429 without calling
when the deadline is nearer than its turn), and the 15-minute cache (``general_news``
policy, stale copies served when GDELT fails) with single-flight, so a symbol costs one
call per 15 minutes however many clients ask. In sandbox mode nothing is paced.

Articles become News items ``{title, link, source, img, time, sentiment}``: link = url,
source = domain (the url's host when GDELT sends none), img = socialimage (null when
empty), time = ``seendate`` as ISO 8601 UTC (``2024-01-15T16:30:00Z``; null when GDELT's
value is unreadable): an absolute time stays true in a cache where "5 minutes ago" would
not. Newest first; an article without url or title is left out; a url seen twice is kept
once.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import orjson
from django.conf import settings

from marketdata import deadline, pacing
from marketdata.errors import (
    MarketDataError,
    NotFound,
    UpstreamRateLimited,
)
from marketdata.formatting import text
from marketdata.http import ProviderConfig, UpstreamResponse
from marketdata.providers.base import Provider
from marketdata.providers.registry import get_provider
from marketdata.records.news import (
    WORLD_NEWS_MAX_ARTICLES,
    WORLD_NEWS_TIMESPAN,
    HeadlineSentiment,
    WorldNewsItem,
)
from marketdata.sentiment import score_headline

PROVIDER = ProviderConfig(name="gdelt", display_name="GDELT DOC API", connect_timeout=3.0,
                          read_timeout=10.0, max_attempts=1, max_concurrency=1,
                          hosts=("api.gdeltproject.org",))
DOC_URL = "https://api.gdeltproject.org/api/v2/doc/doc"
MAX_RECORDS = WORLD_NEWS_MAX_ARTICLES  # GDELT's own default for ArtList (it allows 250)
TIMESPAN = WORLD_NEWS_TIMESPAN
MIN_PHRASE_CHARS = 5  # letters or digits; GDELT refuses shorter quoted phrases
MIN_INTERVAL_SECONDS = 5.0
NEWS_POLICY = "general_news"  # 15 minutes, whatever the market does
QUERY_POLICY = "fundamentals"  # a company's name changes rarely: the query is kept a day
LANGUAGE = "english"

# Trailing words dropped from a company name, one at a time (case-insensitive, dots and
# commas ignored): legal forms and group words that headlines leave out.
_NAME_SUFFIXES = frozenset({
    "inc", "incorporated", "corp", "corporation", "co", "company", "companies", "ltd",
    "limited", "plc", "llc", "lp", "llp", "nv", "sa", "sab", "spa", "ag", "se", "asa", "ab",
    "as", "a/s", "oyj", "bhd", "tbk", "kk", "holdings", "holding", "group", "new", "the", "&",
    "and", "de", "cv", "com",
})
_FUTURE_EXPIRY = re.compile(r"\s+[A-Z][a-z]{2}\s+\d{2}$")  # "Gold Apr 25"
_NAME_JUNK = re.compile(r"\([^)]*\)|[^\w\s&'.\-/]")  # "(The)", quotes, commas, ...
_THROTTLE = re.compile(r"one every (\d+) seconds?", re.IGNORECASE)
_QUERY_REFUSALS = ("phrase is too short", "or'd terms", "parentheses may only",
                   "too short or too long", "keywords were too", "query was too",
                   "timespan is too")


# -- the query -----------------------------------------------------------------------------
@dataclass(frozen=True)
class SearchTerms:
    """The GDELT query for one symbol and the words of its name (left out of sentiment)."""

    query: str
    name_words: tuple[str, ...]


def _alnum(phrase: str) -> int:
    return sum(ch.isalnum() for ch in phrase)


def _strip_word(word: str) -> str:
    return word.strip(".,").lower().replace(".", "")


def name_candidates(name: str) -> list[str]:
    """The name with its trailing (and a leading "The") suffix words dropped one at a time,
    most-cleaned first: "Visa Inc." -> ["Visa", "Visa Inc"]."""
    cleaned = " ".join(_NAME_JUNK.sub(" ", name).split())
    words = cleaned.split()
    if len(words) > 1 and words[0].lower() == "the":
        words = words[1:]
    forms = [words]
    while len(forms[-1]) > 1 and _strip_word(forms[-1][-1]) in _NAME_SUFFIXES:
        forms.append(forms[-1][:-1])
    out: list[str] = []
    for form in reversed(forms):
        phrase = " ".join(form).strip(" ,&'-/")
        if phrase.lower().endswith(".com"):  # "Amazon.com" is "Amazon" in headlines
            phrase = phrase[:-4]
        phrase = phrase.rstrip(".")
        if phrase and phrase not in out:
            out.append(phrase)
    return out


def search_name(name: str | None, quote_type: str | None) -> str | None:
    """The phrase GDELT is asked for: the most-cleaned form of ``name`` with at least
    ``MIN_PHRASE_CHARS`` letters or digits; None when there is none."""
    if not name or not name.strip():
        return None
    name = name.strip()
    if quote_type == "CRYPTOCURRENCY":
        name = re.sub(r"\s+[A-Z]{3}$", "", name)  # "Bitcoin USD"
    elif quote_type == "FUTURE":
        name = f"{_FUTURE_EXPIRY.sub('', name).strip()} futures"
    return next((phrase for phrase in name_candidates(name)
                 if _alnum(phrase) >= MIN_PHRASE_CHARS), None)


def build_query(symbol: str, name: str | None, quote_type: str | None) -> SearchTerms:
    """GDELT query for a symbol whose quote says ``name``/``quote_type`` (see the module doc).
    NotFound when neither the name nor the ticker can be searched."""
    phrase = search_name(name, quote_type)
    ticker = symbol if symbol.isalpha() and len(symbol) >= MIN_PHRASE_CHARS else None
    if phrase is None and ticker is None:
        raise NotFound(f"No news search is possible for {symbol}: it has no name of at least "
                       f"{MIN_PHRASE_CHARS} letters to search for")
    terms = [t for t in (phrase, ticker) if t]
    if len(terms) == 2 and terms[0].lower() == terms[1].lower():
        terms = terms[:1]
    quoted = [f'"{t}"' for t in terms]
    query = quoted[0] if len(quoted) == 1 else "(" + " OR ".join(quoted) + ")"
    words = tuple(dict.fromkeys(w for t in terms for w in re.findall(r"\w+", t)))
    return SearchTerms(f"{query} sourcelang:{LANGUAGE}", words)


def artlist_params(query: str) -> dict[str, str]:
    return {"query": query, "mode": "artlist", "format": "json",
            "maxrecords": str(MAX_RECORDS), "timespan": TIMESPAN, "sort": "datedesc"}


# -- the answer ----------------------------------------------------------------------------
def plain_text_error(body: str) -> MarketDataError:
    """What a plain-text answer (HTTP 200, not JSON) means."""
    message = " ".join(body.split())
    throttle = _THROTTLE.search(message)
    if throttle:
        return UpstreamRateLimited(PROVIDER.name, f"{PROVIDER.display_name} asks for at most "
                                   f"one request every {throttle.group(1)} seconds; retry "
                                   "later", 429)
    lowered = message.lower()
    readable = len(message) <= 200 and "<" not in message
    if readable and any(refusal in lowered for refusal in _QUERY_REFUSALS):
        return NotFound(f"No news search is possible: {PROVIDER.display_name} refused "
                        f"the query ({message})")
    if readable and message:
        return PROVIDER.bad_answer(f"answered with a message instead of articles: {message}")
    return PROVIDER.bad_answer("answered with a body that is not JSON")


def decode_artlist(response: UpstreamResponse) -> Any:
    """The JSON body, or the error its plain-text answer means. GDELT's JSON now and then
    holds raw control characters in titles, which a strict parser refuses."""
    body = response.content.strip()
    if not body.startswith(b"{"):
        raise plain_text_error(response.text)
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        try:
            return json.loads(body.decode("utf-8", errors="replace"), strict=False)
        except ValueError:
            raise PROVIDER.bad_answer(
                "answered with JSON it could not finish (malformed)") from None


def parse_seendate(value: Any) -> str | None:
    """``20240115T163000Z`` (or ``20240115163000``) -> ``2024-01-15T16:30:00Z``."""
    digits = re.fullmatch(r"(\d{8})T?(\d{6})Z?", value.strip()) if isinstance(value, str) \
        else None
    if digits is None:
        return None
    try:
        moment = datetime.strptime(digits.group(1) + digits.group(2) + "+0000",
                                   "%Y%m%d%H%M%S%z")
    except ValueError:
        return None
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_articles(payload: Any, ignore: Iterable[str] = ()) -> list[dict[str, Any]]:
    """ArtList JSON -> News items, newest first (see the module doc). ``ignore``: words
    left out of the sentiment (the company's name)."""
    if not isinstance(payload, dict):
        raise PROVIDER.bad_answer("answered with JSON that is not an object")
    rows = payload.get("articles", [])
    if not isinstance(rows, list):
        raise PROVIDER.bad_answer("answered with an 'articles' member that is not a list")
    ignore = tuple(ignore)
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    for row in rows:
        if not isinstance(row, dict):
            continue
        link, title = text(row.get("url")), text(row.get("title"))
        if not link or not title or link in seen:
            continue
        seen.add(link)
        items.append({
            "title": title,
            "link": link,
            "source": text(row.get("domain")) or urlsplit(link).hostname,
            "img": text(row.get("socialimage")) or None,
            "time": parse_seendate(row.get("seendate")),
            "sentiment": score_headline(title, ignore).as_dict(),
        })
    # Newest first whatever order GDELT used; undated items last (stable otherwise).
    items.sort(key=lambda item: item["time"] or "", reverse=True)
    return items


# -- pacing --------------------------------------------------------------------------------
class GdeltPacer(pacing.Pacer):
    """Call starts ``interval`` seconds apart in this process; a turn that would leave less
    than a second of the request deadline (of ``REQUEST_DEADLINE_SECONDS`` outside one) is
    a 429 without touching the upstream."""

    def __init__(self, interval: float) -> None:
        super().__init__(interval, self._refused, leave_seconds=1.0,
                         budget_without_deadline=deadline.default_seconds(), clock=time)

    def _refused(self) -> UpstreamRateLimited:
        return UpstreamRateLimited(
            PROVIDER.name, f"{PROVIDER.display_name} allows one request every "
            f"{self.interval:g} seconds and its next slot is too far away; retry shortly",
            None)


class GdeltProvider(Provider):
    """Keyless; paced (see the module doc); every 4xx is a 502 (there is no resource to
    be missing: "no articles" is an empty answer)."""

    config = PROVIDER

    def __init__(self, client: Any) -> None:
        super().__init__(client)
        interval = float(getattr(settings, "GDELT_MIN_INTERVAL_SECONDS",
                                 MIN_INTERVAL_SECONDS))
        self.pacer = GdeltPacer(interval if self.paced else 0.0)

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        if response.status >= 400:
            return PROVIDER.bad_answer(f"answered HTTP {response.status}", response.status)
        return None

    def articles(self, terms: SearchTerms) -> list[dict[str, Any]]:
        self.pacer.wait()
        response = self.get("doc", DOC_URL, artlist_params(terms.query))
        return parse_articles(decode_artlist(response), terms.name_words)


def search_terms(symbol: str) -> SearchTerms:
    """The query for a validated symbol, from its Yahoo quote (cached a day; an unknown
    symbol is a NotFound, remembered like data)."""
    from marketdata.providers.yahoo.quote import fetch_quotes

    def resolve() -> SearchTerms:
        snapshot = fetch_quotes([symbol]).get(symbol)
        if snapshot is None:
            raise NotFound(f"Symbol not found: '{symbol}'")
        return build_query(symbol, snapshot.name, snapshot.quote_type)

    provider: GdeltProvider = get_provider(PROVIDER.name)
    return provider.cached("query", {"symbol": symbol}, resolve, QUERY_POLICY,
                           group="world_news")


def fetch_world_news(symbol: str) -> list[dict[str, Any]]:
    """News items about a validated symbol, newest first, through the 15-minute cache."""
    provider: GdeltProvider = get_provider(PROVIDER.name)

    def fetch() -> list[dict[str, Any]]:
        return provider.articles(search_terms(symbol))

    return provider.cached("artlist", {"symbol": symbol}, fetch, NEWS_POLICY,
                           group="world_news")


def world_news(symbol: str) -> list[WorldNewsItem]:
    """The ``world_news`` fetcher: :func:`fetch_world_news` as records (the cache keeps
    the items as they were)."""
    return [WorldNewsItem(**{**item, "sentiment": HeadlineSentiment(**item["sentiment"])})
            for item in fetch_world_news(symbol)]

