"""Earnings-call transcripts: the list of calls, the company's Quartr id, the transcript.

Yahoo has no single transcript API. Three calls, each cached on its own:

1. ``finance.yahoo.com/quote/{SYMBOL}/earnings-calls/`` (an HTML page, no crumb): every
   call is a link ``/quote/AAPL/earnings/AAPL-Q2-2026-earnings_call-548666.html``; the
   number is Yahoo's event id, ``Q2-2026`` the fiscal period. Parsed with the standard
   library's HTML parser (the project has no lxml).
2. ``query1/v1/finance/quoteType/{SYMBOL}`` (JSON): ``quoteType.result[0].quartrId`` is
   the company id of Yahoo's transcript supplier (Quartr). This is the v1 quoteType API,
   not the quoteSummary ``quoteType`` module, which carries no quartrId.
3. ``finance.yahoo.com/xhr/transcript?eventType=earnings_call&quartrId=&eventId=`` (JSON,
   crumb): ``transcriptContent`` (speakers, paragraphs with per-word timings) and
   ``transcriptMetadata`` (fiscal period and year, call date, transcript id, the
   document's type and storage URL).

Parsers are pure (payload in, records out); ``fetch_*`` go through the cache. The capability
table's fetchers: :func:`fetch_earnings_calls` (``earnings_calls``) and
:func:`company_transcripts` (``transcripts``: the Quartr id once, then one call's transcript
per ask).
"""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any
from urllib.parse import quote, unquote, urljoin, urlsplit

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.formatting import raw
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_error_description, yahoo_provider
from marketdata.records.fundamentals import (
    QUARTERS,
    CompanyTranscripts,
    EarningsCall,
    Paragraph,
    Speaker,
    Transcript,
)

GROUP = "transcripts"
_EVENT_ID = re.compile(r"earnings_call-(\d+)")
_PERIOD = re.compile(r"-([Qq]\d)-(\d{4})-earnings_call")
_QUOTE_SEGMENT = re.compile(r"/quote/([^/?#]+)/")
_HTML_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


# -- 1. the list of calls -------------------------------------------------------------------
class _EarningsCallLinks(HTMLParser):
    """Collects the href of every ``<a>`` that points at an earnings call."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "a":
            return
        for name, value in attrs:
            if name == "href" and value and "earnings_call" in value:
                self.hrefs.append(value)


def _call_from_href(href: str, symbol: str) -> EarningsCall | None:
    url = urljoin(yahoo.FINANCE + "/", href.strip())
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not (parts.hostname or "").endswith(
            "yahoo.com"):
        return None
    # The page also links other companies' calls (related tickers): keep this symbol's.
    owner = _QUOTE_SEGMENT.search(parts.path)
    if owner and unquote(owner.group(1)).upper() != symbol.upper():
        return None
    event = _EVENT_ID.search(parts.path)
    if event is None:
        return None
    quarter: str | None = None
    year: int | None = None
    period = _PERIOD.search(parts.path)
    if period and period.group(1).upper() in QUARTERS:
        quarter, year = period.group(1).upper(), int(period.group(2))
    return EarningsCall(int(event.group(1)), quarter, year, url)


def parse_earnings_calls(html: str, symbol: str) -> list[EarningsCall]:
    """The symbol's calls on the page, one per event id, newest (year, quarter) first.

    Calls without a period sort last; ties keep page order.
    """
    links = _EarningsCallLinks()
    links.feed(html)
    links.close()
    seen: dict[int, EarningsCall] = {}
    for href in links.hrefs:
        call = _call_from_href(href, symbol)
        if call is not None and call.event_id not in seen:
            seen[call.event_id] = call
    return sorted(seen.values(), key=lambda c: c.sort_key, reverse=True)


def earnings_calls_url(symbol: str) -> str:
    return f"{yahoo.FINANCE}/quote/{quote(symbol, safe='')}/earnings-calls/"


def _get_page(url: str, symbol: str) -> str:
    return yahoo_provider().get("earningsCalls", url, headers={"Accept": _HTML_ACCEPT},
                                auth=False,
                                not_found=f"No earnings calls found for {symbol}").text


def fetch_earnings_calls(symbol: str) -> list[EarningsCall]:
    """The calls of a validated symbol, newest first; NotFound when there are none
    (funds, indices, crypto, unknown symbols), remembered like data."""

    def fetch() -> list[EarningsCall]:
        calls = parse_earnings_calls(_get_page(earnings_calls_url(symbol), symbol), symbol)
        if not calls:
            raise NotFound(f"No earnings calls found for {symbol}")
        return calls

    return yahoo_provider().cached("earningsCalls", {"symbol": symbol}, fetch,
                                   "earnings_calls", group=GROUP)


# -- 2. the company's Quartr id -------------------------------------------------------------
def parse_quartr_id(payload: Any) -> str | None:
    """``quoteType.result[0].quartrId`` as a string; None when Yahoo has none (funds...).

    An empty result means Yahoo does not know the symbol: NotFound.
    """
    body = payload.get("quoteType") if isinstance(payload, dict) else None
    if not isinstance(body, dict):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance quoteType answer has no "
                                  "'quoteType' object")
    results = body.get("result")
    first = results[0] if isinstance(results, list) and results else None
    if not isinstance(first, dict):
        raise NotFound(yahoo_error_description(payload) or "Symbol not found")
    value = first.get("quartrId")
    if value is None or str(value).strip() == "":
        return None
    return str(value).strip()


def fetch_quartr_id(symbol: str) -> str:
    """The Quartr company id of a validated symbol, cached like the list of calls."""

    def fetch() -> str:
        payload = get_json("quoteType",
                           f"{yahoo.QUERY1}/v1/finance/quoteType/{quote(symbol, safe='')}",
                           {"lang": "en-US", "region": "US"},
                           not_found=f"Symbol {symbol} not found")
        quartr_id = parse_quartr_id(payload)
        if quartr_id is None:
            raise NotFound(f"No company ID (quartrId) found for {symbol}")
        return quartr_id

    return yahoo_provider().cached("quoteType", {"symbol": symbol}, fetch, "earnings_calls",
                                   group=GROUP)


# -- 3. the transcript ----------------------------------------------------------------------
def _int(value: Any) -> int | None:
    value = raw(value)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _stripped(value: Any) -> str | None:
    """Trimmed, blank -> None; unlike formatting.text, line breaks inside stay (the flat
    transcript text is compared with the paragraphs)."""
    return (value.strip() or None) if isinstance(value, str) else None


def _speakers(mapping: Any) -> dict[int, Speaker]:
    out: dict[int, Speaker] = {}
    for entry in mapping if isinstance(mapping, list) else []:
        if not isinstance(entry, dict):
            continue
        data = entry.get("speaker_data")
        data = data if isinstance(data, dict) else {}
        name = _stripped(data.get("name"))
        key = _int(entry.get("speaker"))
        if name is None or key is None:
            continue
        out[key] = Speaker(name, _stripped(data.get("role")), _stripped(data.get("company")),
                           key)
    return out


def _speaker_name(speakers: dict[int, Speaker], value: Any) -> str:
    index = _int(value)
    if index in speakers:
        return speakers[index].name
    return f"Speaker {index}" if index is not None else "Unknown speaker"


def _paragraph_stripped(paragraph: dict[str, Any]) -> str:
    text = _stripped(paragraph.get("text"))
    if text:
        return text
    sentences = paragraph.get("sentences")
    parts = [_stripped(s.get("text")) for s in sentences if isinstance(s, dict)] \
        if isinstance(sentences, list) else []
    return " ".join(p for p in parts if p)


def _remainder(text: str, paragraphs: list[Paragraph]) -> str:
    """Words of the flat text past the attributed paragraphs (seen in the recording: 40
    paragraphs cover 28.7k of 51.8k characters), so a transcript never loses its end."""
    spoken = " ".join(p.text for p in paragraphs)
    if not paragraphs or not text.startswith(spoken):
        return ""
    return text[len(spoken):].strip()


def parse_transcript(payload: Any) -> Transcript:
    """The xhr transcript body -> :class:`Transcript`.

    NotFound when Yahoo answered without transcript content (no transcript for the event).
    """
    content = payload.get("transcriptContent") if isinstance(payload, dict) else None
    if not isinstance(content, dict):
        raise NotFound("No transcript available for this earnings call")
    meta = payload.get("transcriptMetadata")
    meta = meta if isinstance(meta, dict) else {}
    body = content.get("transcript")
    has_body = isinstance(body, dict)
    body = body if isinstance(body, dict) else {}
    speakers = _speakers(content.get("speaker_mapping"))

    paragraphs: list[Paragraph] = []
    raw_paragraphs = body.get("paragraphs")
    for paragraph in raw_paragraphs if isinstance(raw_paragraphs, list) else []:
        if not isinstance(paragraph, dict):
            continue
        text = _paragraph_stripped(paragraph)
        if not text:
            continue
        paragraphs.append(Paragraph(_speaker_name(speakers, paragraph.get("speaker")), text))

    text = _stripped(body.get("text")) or ""
    period = _stripped(meta.get("fiscalPeriod"))
    period = period.upper() if period and period.upper() in QUARTERS else None
    is_latest = meta.get("isLatest")
    return Transcript(
        event_id=_int(meta.get("eventId")) or _int(content.get("event_id")),
        transcript_id=_int(meta.get("transcriptId")) or _stripped(meta.get("transcriptId")),
        company_id=_int(content.get("company_id")),
        title=_stripped(meta.get("title")),
        event_type=_stripped(meta.get("eventType")),
        fiscal_period=period,
        fiscal_year=_int(meta.get("fiscalYear")),
        date=_int(meta.get("date")),
        updated=_int(meta.get("updated")),
        is_latest=is_latest if isinstance(is_latest, bool) else None,
        speakers=list(speakers.values()),
        paragraphs=paragraphs,
        text=text,
        remainder=_remainder(text, paragraphs),
        version=_stripped(content.get("version")),
        s3_url=_stripped(meta.get("s3Url")),
        transcript_type=_stripped(meta.get("type")) or _stripped(meta.get("transcriptType")),
        speaker_count=_int(body.get("number_of_speakers")),
        has_body=has_body,
    )


def fetch_transcript(symbol: str, quartr_id: str, event_id: int) -> Transcript:
    """One call's transcript, cached for a week (transcripts do not change)."""

    def fetch() -> Transcript:
        payload = get_json("transcript", f"{yahoo.FINANCE}/xhr/transcript",
                           {"eventType": "earnings_call", "quartrId": quartr_id,
                            "eventId": str(event_id), "lang": "en-US", "region": "US"},
                           not_found=f"No transcript available for {symbol} event {event_id}")
        transcript = parse_transcript(payload)
        if transcript.event_id is not None and transcript.event_id != event_id:
            raise UpstreamBadResponse("yahoo", f"Yahoo Finance answered event "
                                      f"{transcript.event_id} for event {event_id}")
        now = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        return dataclasses.replace(transcript, retrieved_at=now)

    return yahoo_provider().cached("transcript", {"quartrId": quartr_id, "eventId": event_id},
                                   fetch, "transcript", group=GROUP)


def company_transcripts(symbol: str) -> CompanyTranscripts:
    """The ``transcripts`` fetcher: a validated symbol's Quartr id (fetched now, once) and
    the fetch of one listed call's transcript with it."""
    quartr_id = fetch_quartr_id(symbol)
    return CompanyTranscripts(
        quartr_id, lambda call: fetch_transcript(symbol, quartr_id, call.event_id))
