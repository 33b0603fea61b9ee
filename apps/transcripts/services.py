"""Earnings-call transcripts: pick the call(s) from the list, fetch, shape as TranscriptItem.

Which calls a request means:
- no filter: the latest call that has a transcript;
- ``quarter`` and ``year``: that call;
- ``year`` only: every call of that fiscal year, newest first;
- ``quarter`` only: the most recent call of that fiscal quarter that has a transcript.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from apps.core.symbols import require_symbol
from marketdata.capabilities import fundamentals
from marketdata.concurrency import run_parallel
from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.formatting import iso_datetime
from marketdata.records.fundamentals import CompanyTranscripts, EarningsCall, Transcript

SOURCE = "Yahoo Finance"
MIN_YEAR = 1990
# A listed call can be too fresh to have a transcript yet: try a few older ones.
_LATEST_ATTEMPTS = 3


def latest_year() -> int:
    """The highest `year` accepted: fiscal years run up to a year ahead of the calendar."""
    return datetime.now(UTC).year + 1


def _describe(symbol: str, quarter: str | None, year: int | None) -> str:
    return " ".join(str(p) for p in (symbol, quarter, year) if p)


def select_calls(calls: list[EarningsCall], quarter: str | None,
                 year: int | None) -> list[EarningsCall]:
    """The listed calls matching the filters, newest first (the list is sorted)."""
    return [c for c in calls
            if (quarter is None or c.quarter == quarter) and (year is None or c.year == year)]


def _speaker_turns(transcript: Transcript) -> str:
    """One block per speaker turn, ``Name: text``; a turn's paragraphs are joined by a
    newline and blocks by a blank line. Yahoo's flat text when there are no paragraphs;
    flat text past the last paragraph is a final block without a speaker."""
    blocks: list[tuple[str, list[str]]] = []
    for paragraph in transcript.paragraphs:
        if blocks and blocks[-1][0] == paragraph.speaker:
            blocks[-1][1].append(paragraph.text)
        else:
            blocks.append((paragraph.speaker, [paragraph.text]))
    if not blocks:
        return transcript.text
    turns = [f"{name}: " + "\n".join(texts) for name, texts in blocks]
    if transcript.remainder:
        turns.append(transcript.remainder)
    return "\n\n".join(turns)


def _participants(transcript: Transcript) -> list[str]:
    """Speaker names in order of first appearance, then listed speakers who did not speak."""
    names = dict.fromkeys(p.speaker for p in transcript.paragraphs)
    names.update(dict.fromkeys(s.name for s in transcript.speakers))
    return list(names)


def transcript_item(symbol: str, call: EarningsCall, quartr_id: str,
                    transcript: Transcript) -> dict[str, Any]:
    """The TranscriptItem of the spec; Yahoo's metadata wins over what the link said."""
    quarter = transcript.fiscal_period or call.quarter
    year = transcript.fiscal_year or call.year
    date = iso_datetime(transcript.date)
    if quarter is None or year is None or date is None:
        raise UpstreamBadResponse("yahoo", f"Yahoo Finance transcript for {symbol} event "
                                  f"{call.event_id} has no fiscal period or date")
    metadata = {
        "source": SOURCE,
        "retrieved_at": transcript.retrieved_at,
        "transcripts_id": transcript.transcript_id,
        "eventId": transcript.event_id or call.event_id,
        "eventType": transcript.event_type,
        "fiscalYear": year,
        "fiscalPeriod": quarter,
        "title": transcript.title or f"{quarter} {year}",
        "isLatest": transcript.is_latest,
        "updated": iso_datetime(transcript.updated),
        "quartrId": quartr_id,
        "url": call.url,
        "speakers": [{"name": s.name, "role": s.role, "company": s.company}
                     for s in transcript.speakers],
    }
    return {
        "symbol": symbol,
        "quarter": quarter,
        "year": year,
        "date": date,
        "transcript": _speaker_turns(transcript),
        "participants": _participants(transcript),
        "metadata": {k: v for k, v in metadata.items() if v is not None},
    }


def _first_available(company: CompanyTranscripts,
                     calls: Iterable[EarningsCall]) -> list[tuple[EarningsCall, Transcript]]:
    for call in list(calls)[:_LATEST_ATTEMPTS]:
        try:
            return [(call, company.fetch(call))]
        except NotFound:
            continue
    return []


def _all_available(company: CompanyTranscripts,
                   calls: list[EarningsCall]) -> list[tuple[EarningsCall, Transcript]]:
    """Every call's transcript, fetched concurrently; calls without one are left out, and
    any other failure fails the request (no silently partial year)."""
    results = run_parallel(company.fetch, calls)
    found: list[tuple[EarningsCall, Transcript]] = []
    for call, result in zip(calls, results, strict=True):
        if isinstance(result, NotFound):
            continue
        if isinstance(result, BaseException):
            raise result
        found.append((call, result))
    return found


def earnings_transcript(symbol_text: str, quarter: str | None = None,
                        year: int | None = None) -> dict[str, Any]:
    """The EarningsTranscript resource for a symbol and optional fiscal quarter/year."""
    symbol = require_symbol(symbol_text)
    calls = select_calls(fundamentals.earnings_calls(symbol), quarter, year)
    if not calls:
        raise NotFound(f"No earnings call found for {_describe(symbol, quarter, year)}")
    company = fundamentals.company_transcripts(symbol)
    if year is not None and quarter is None:
        found = _all_available(company, calls)
    else:
        found = _first_available(company, calls)
    if not found:
        raise NotFound(f"No transcript available for {_describe(symbol, quarter, year)}")
    return {"symbol": symbol, "transcripts": [transcript_item(symbol, c, company.company_id, t)
                                              for c, t in found]}
