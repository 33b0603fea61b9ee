"""Earnings-call transcripts: pick the call(s) from the list, fetch, shape for v1 and v2.

Which calls a request means (v1 ``/v1/earnings-transcript``):
- no filter: the latest call that has a transcript;
- ``quarter`` and ``year``: that call;
- ``year`` only: every call of that fiscal year, newest first;
- ``quarter`` only: the most recent call of that fiscal quarter that has a transcript.

v2 (``/v2/earnings-transcript``, ``/v2/transcripts``) always answers one call: the same
rules, except that ``year`` alone means the latest call of that year with a transcript.
``/v2/transcripts/{symbol}/all`` pages the listed calls and fetches the page's transcripts
concurrently.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from apps.core.symbols import require_symbol
from apps.core.v2 import paginate
from marketdata.capabilities import fundamentals
from marketdata.concurrency import gather_partial, run_parallel
from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.formatting import iso_datetime, utc_datetime
from marketdata.records.fundamentals import (
    QUARTERS,
    CompanyTranscripts,
    EarningsCall,
    Transcript,
)
from marketdata.records.members import DATE_TIME, URI, member

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


@dataclass(frozen=True)
class TranscriptSpeaker:
    name: str = member()
    role: str | None = member()
    company: str | None = member()


@dataclass(frozen=True)
class TranscriptMetadata:
    """What v1 tells of a transcript besides its text: a member without a value is left out
    (the optional ones are those the spec marks so; the others always have one)."""

    source: str = member("Always 'Yahoo Finance'")
    retrieved_at: str = member("When the transcript was fetched upstream (UTC)",
                               name="retrieved_at", schema=DATE_TIME)
    transcripts_id: int | str | None = member("Yahoo's transcript id", name="transcripts_id",
                                              optional=True, schema={"type": "integer"})
    event_id: int = member("Yahoo's event id of the call")
    event_type: str | None = member(optional=True)
    fiscal_year: int = member()
    fiscal_period: str = member("Same as quarter")
    title: str = member("e.g. 'Q2 2026'")
    is_latest: bool | None = member("The company's most recent call", optional=True)
    updated: str | None = member("Last transcript revision", optional=True, schema=DATE_TIME)
    quartr_id: str = member("Company id of Yahoo's transcript supplier")
    url: str = member("The call's page on Yahoo Finance", schema=URI)
    speakers: list[TranscriptSpeaker] = member("Every listed speaker with role and company "
                                               "(null for the operator)")


@dataclass(frozen=True)
class TranscriptItem:
    """The v1 TranscriptItem: one call's transcript as text, by speaker turn."""

    symbol: str = member()
    quarter: str = member("Fiscal quarter", schema={"enum": list(QUARTERS)})
    year: int = member("Fiscal year")
    date: str = member("Date and time of the call (UTC)", schema=DATE_TIME)
    transcript: str = member("Full text: one block per speaker turn, 'Name: text', blocks "
                             "separated by a blank line")
    participants: list[str] = member("Speaker names, in order of first appearance (as "
                                     "labelled in transcript)")
    metadata: TranscriptMetadata = member()


@dataclass(frozen=True)
class EarningsTranscript:
    """The v1 EarningsTranscript: the calls a request means, newest first."""

    symbol: str = member()
    transcripts: list[TranscriptItem] = member()


def transcript_item(symbol: str, call: EarningsCall, quartr_id: str,
                    transcript: Transcript) -> TranscriptItem:
    """The TranscriptItem of the spec; Yahoo's metadata wins over what the link said."""
    quarter = transcript.fiscal_period or call.quarter
    year = transcript.fiscal_year or call.year
    date = iso_datetime(transcript.date)
    if quarter is None or year is None or date is None:
        raise UpstreamBadResponse("yahoo", f"Yahoo Finance transcript for {symbol} event "
                                  f"{call.event_id} has no fiscal period or date")
    metadata = TranscriptMetadata(
        source=SOURCE,
        # Set on every fetch (the provider stamps it).
        retrieved_at=transcript.retrieved_at or "",
        transcripts_id=transcript.transcript_id,
        event_id=transcript.event_id or call.event_id,
        event_type=transcript.event_type,
        fiscal_year=year,
        fiscal_period=quarter,
        title=transcript.title or f"{quarter} {year}",
        is_latest=transcript.is_latest,
        updated=iso_datetime(transcript.updated),
        quartr_id=quartr_id,
        url=call.url,
        speakers=[TranscriptSpeaker(s.name, s.role, s.company) for s in transcript.speakers],
    )
    return TranscriptItem(symbol, quarter, year, date, _speaker_turns(transcript),
                          _participants(transcript), metadata)


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


def _matching_calls(symbol: str, quarter: str | None, year: int | None) -> list[EarningsCall]:
    """The listed calls a request means, newest first; NotFound when none matches (before
    the Quartr id or any transcript is asked for)."""
    calls = select_calls(fundamentals.earnings_calls(symbol), quarter, year)
    if not calls:
        raise NotFound(f"No earnings call found for {_describe(symbol, quarter, year)}")
    return calls


def earnings_transcript(symbol_text: str, quarter: str | None = None,
                        year: int | None = None) -> EarningsTranscript:
    """The EarningsTranscript resource for a symbol and optional fiscal quarter/year."""
    symbol = require_symbol(symbol_text)
    calls = _matching_calls(symbol, quarter, year)
    company = fundamentals.company_transcripts(symbol)
    if year is not None and quarter is None:
        found = _all_available(company, calls)
    else:
        found = _first_available(company, calls)
    if not found:
        raise NotFound(f"No transcript available for {_describe(symbol, quarter, year)}")
    return EarningsTranscript(symbol, [transcript_item(symbol, c, company.company_id, t)
                                       for c, t in found])


# -- v2 ----------------------------------------------------------------------------------------
# The v2 answers are interface-only shapes made from the shared Transcript (v1 shows it
# otherwise): each declares its members once, here (see marketdata.records.members).
QUARTER_ENUM = {"enum": [*QUARTERS, None]}


@dataclass(frozen=True)
class CallText:
    """``/v2/earnings-transcript``: one call's transcript as plain text."""

    symbol: str = member()
    quarter: str | None = member("Fiscal quarter of the call", schema=QUARTER_ENUM)
    year: int | None = member("Fiscal year of the call")
    date: datetime | None = member("Date and time of the call (ISO 8601, UTC)")
    text: str = member('The full transcript as one text ("" when the source has none)')


@dataclass(frozen=True)
class SpeakerData:
    company: str | None = member("null for the operator")
    name: str = member()
    role: str | None = member("null for the operator")


@dataclass(frozen=True)
class SpeakerEntry:
    # Always a number: the source's speakers without one are not listed.
    speaker: int | None = member("The speaker's number in the transcript",
                                 schema={"type": "integer"})
    speaker_data: SpeakerData = member()


@dataclass(frozen=True)
class TranscriptBody:
    number_of_speakers: int | None = member("As the source counts them")
    text: str = member("The full text as the source sends it (paragraph timings left out)")


@dataclass(frozen=True)
class TranscriptContent:
    company_id: int | None = member("The company's id at Yahoo's transcript supplier "
                                    "(Quartr)")
    event_id: int | None = member("Yahoo's event id of the call")
    version: str | None = member("Version of the transcript format")
    speaker_mapping: list[SpeakerEntry] = member("Every listed speaker, in the source's order")
    transcript: TranscriptBody | None = member("null when the source sent no transcript body")


@dataclass(frozen=True)
class DocumentMetadata:
    date: int | None = member("Time of the call, Unix seconds")
    event_id: int | None = member()
    event_type: str | None = member("e.g. `Earnings call`")
    fiscal_period: str | None = member("Fiscal quarter", schema=QUARTER_ENUM)
    fiscal_year: int | None = member()
    is_latest: bool | None = member("The company's most recent call")
    s3_url: str | None = member("Where the supplier stores the document")
    title: str | None = member("e.g. `Q2 2026`")
    transcript_id: int | str | None = member("The supplier's transcript id (an integer as "
                                             "Yahoo sends it)")
    transcript_type: str | None = member("e.g. `IN_HOUSE`")
    updated: int | None = member("Last revision, Unix seconds")


@dataclass(frozen=True)
class TranscriptDocument:
    """``/v2/transcripts``: the source's transcript document, members in camelCase, the
    paragraph and word timings left out."""

    transcript_content: TranscriptContent = member()
    transcript_metadata: DocumentMetadata = member()

    @classmethod
    def of(cls, transcript: Transcript, call: EarningsCall,
           company: CompanyTranscripts) -> TranscriptDocument:
        """``transcript`` is null when the source sent content without one."""
        event_id = transcript.event_id or call.event_id
        body = TranscriptBody(transcript.speaker_count, transcript.text) \
            if transcript.has_body else None
        speakers = [SpeakerEntry(s.index, SpeakerData(s.company, s.name, s.role))
                    for s in transcript.speakers]
        return cls(
            TranscriptContent(_company_id(transcript, company), event_id, transcript.version,
                              speakers, body),
            DocumentMetadata(transcript.date, event_id, transcript.event_type,
                               transcript.fiscal_period or call.quarter,
                               transcript.fiscal_year or call.year, transcript.is_latest,
                               transcript.s3_url, transcript.title, transcript.transcript_id,
                               transcript.transcript_type, transcript.updated))


@dataclass(frozen=True)
class ListedCall:
    """``/v2/transcripts/{symbol}/all``: a listed call and its transcript document."""

    event_id: str = member("Yahoo's event id of the call")
    quarter: str | None = member("Fiscal quarter (the transcript's when the listing has none)",
                                 schema=QUARTER_ENUM)
    year: int | None = member()
    title: str = member("e.g. `Q2 2026 Earnings Call`")
    url: str = member("The call's page on Yahoo Finance", schema={"format": "uri"})
    transcript: TranscriptDocument = member()

    @classmethod
    def of(cls, call: EarningsCall, transcript: Transcript,
           company: CompanyTranscripts) -> ListedCall:
        quarter = call.quarter or transcript.fiscal_period
        year = call.year or transcript.fiscal_year
        return cls(str(call.event_id), quarter, year,
                   f"{quarter} {year} Earnings Call" if quarter and year else "Earnings Call",
                   call.url, TranscriptDocument.of(transcript, call, company))


def _one_transcript(symbol: str, quarter: str | None, year: int | None,
                    ) -> tuple[CompanyTranscripts, EarningsCall, Transcript]:
    """The call a v2 request means and its transcript: the newest matching call that has
    one (up to :data:`_LATEST_ATTEMPTS` tried, as for v1's latest call)."""
    calls = _matching_calls(symbol, quarter, year)
    company = fundamentals.company_transcripts(symbol)
    found = _first_available(company, calls)
    if not found:
        raise NotFound(f"No transcript available for {_describe(symbol, quarter, year)}")
    call, transcript = found[0]
    return company, call, transcript


def _flat_text(transcript: Transcript) -> str:
    """Yahoo's flat text; the paragraphs joined when it sent none."""
    return transcript.text or " ".join(p.text for p in transcript.paragraphs)


def v2_earnings_transcript(symbol_text: str, quarter: str | None = None,
                           year: int | None = None) -> CallText:
    """One call's text: fiscal quarter and year as the transcript labels them (the
    listing's when it does not), ``date`` the call's time."""
    symbol = require_symbol(symbol_text)
    _, call, transcript = _one_transcript(symbol, quarter, year)
    return CallText(symbol, transcript.fiscal_period or call.quarter,
                    transcript.fiscal_year or call.year, utc_datetime(transcript.date),
                    _flat_text(transcript))


def _company_id(transcript: Transcript, company: CompanyTranscripts) -> int | None:
    if isinstance(transcript.company_id, int):
        return transcript.company_id
    return int(company.company_id) if company.company_id.isdigit() else None


def v2_transcript(symbol_text: str, quarter: str | None = None,
                  year: int | None = None) -> TranscriptDocument:
    """One call's transcript document."""
    symbol = require_symbol(symbol_text)
    company, call, transcript = _one_transcript(symbol, quarter, year)
    return TranscriptDocument.of(transcript, call, company)


def v2_all_transcripts(symbol_text: str, cursor: int | None = None,
                       limit: int | None = None, reverse: bool = False) -> Any:
    """Every listed call with its transcript (:class:`ListedCall`), newest first (oldest
    first with ``reverse``): the bare list, or with ``cursor``/``limit`` one page of the
    calls as a connection (positions are the calls' places in the listing read in that
    order). Only the page's transcripts are fetched, concurrently; a call whose transcript
    cannot be had is left out. When none of a non-empty page can be had: the telling
    upstream failure, else 404."""
    symbol = require_symbol(symbol_text)
    window = paginate(fundamentals.earnings_calls(symbol), cursor, limit, reverse)
    calls: list[EarningsCall] = window if isinstance(window, list) else window["nodes"]
    if not calls:
        return window
    company = fundamentals.company_transcripts(symbol)
    fetched = gather_partial(company.fetch, calls, what="transcript",
                             label=lambda call: f"{symbol} event {call.event_id}")
    fetched.raise_if_empty(lambda: NotFound(f"No transcript available for {symbol}"))
    items = {call.event_id: ListedCall.of(call, transcript, company)
             for call, transcript in fetched.values}
    if isinstance(window, list):
        return [items[c.event_id] for c in window if c.event_id in items]
    edges = [{"cursor": edge["cursor"], "node": items[edge["node"].event_id]}
             for edge in window["edges"] if edge["node"].event_id in items]
    return {**window, "edges": edges, "nodes": [edge["node"] for edge in edges]}
