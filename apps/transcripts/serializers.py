from typing import Any

from rest_framework import serializers

from apps.core.params import IntegerParam, QuerySerializer
from apps.core.v2 import (
    INTEGER,
    STRING,
    FieldsQuery,
    OrderedPageQuery,
    connection_schema,
    nullable,
    object_schema,
    order_param,
)
from apps.quotes.serializers import LangParam
from apps.transcripts.services import MIN_YEAR, latest_year
from marketdata.records.fundamentals import QUARTERS


class QuarterField(serializers.ChoiceField):
    """Q1..Q4; ``q1`` is accepted too (clients type it, and it cannot mean anything else)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str):
            data = data.strip().upper()
        return super().to_internal_value(data)


def _year_field(alone: str = "every call of that fiscal year, newest first") -> IntegerParam:
    return IntegerParam(
        required=False, min_value=MIN_YEAR, max_value=latest_year(),
        help_text=f"Fiscal year, {MIN_YEAR} to the current year + 1. Alone: {alone}")


class EarningsTranscriptQuery(QuerySerializer):
    # What ``year`` without ``quarter`` selects, for its help text.
    year_alone = "every call of that fiscal year, newest first"

    quarter = QuarterField(
        choices=list(QUARTERS), required=False,
        help_text="Fiscal quarter (case-insensitive). Alone: the most recent call of that "
                  "quarter")
    year = _year_field()

    def get_fields(self) -> dict[str, serializers.Field]:
        # The upper bound moves with the calendar: rebuilt per request, not at import.
        fields = super().get_fields()
        fields["year"] = _year_field(self.year_alone)
        return fields


class TranscriptSpeaker(serializers.Serializer):
    name = serializers.CharField()
    role = serializers.CharField(allow_null=True)
    company = serializers.CharField(allow_null=True)


class TranscriptMetadata(serializers.Serializer):
    source = serializers.CharField(help_text="Always 'Yahoo Finance'")
    retrieved_at = serializers.DateTimeField(help_text="When the transcript was fetched "
                                             "upstream (UTC)")
    transcripts_id = serializers.IntegerField(required=False,
                                              help_text="Yahoo's transcript id")
    eventId = serializers.IntegerField(help_text="Yahoo's event id of the call")  # noqa: N815
    eventType = serializers.CharField(required=False)  # noqa: N815
    fiscalYear = serializers.IntegerField()  # noqa: N815
    fiscalPeriod = serializers.CharField(help_text="Same as quarter")  # noqa: N815
    title = serializers.CharField(help_text="e.g. 'Q2 2026'")
    isLatest = serializers.BooleanField(required=False,  # noqa: N815
                                        help_text="The company's most recent call")
    updated = serializers.DateTimeField(required=False, help_text="Last transcript revision")
    quartrId = serializers.CharField(help_text="Company id of Yahoo's transcript "  # noqa: N815
                                     "supplier")
    url = serializers.URLField(help_text="The call's page on Yahoo Finance")
    speakers = TranscriptSpeaker(many=True, help_text="Every listed speaker with role and "
                                 "company (null for the operator)")


class TranscriptItem(serializers.Serializer):
    symbol = serializers.CharField()
    quarter = serializers.ChoiceField(choices=list(QUARTERS), help_text="Fiscal quarter")
    year = serializers.IntegerField(help_text="Fiscal year")
    date = serializers.DateTimeField(help_text="Date and time of the call (UTC)")
    transcript = serializers.CharField(
        help_text="Full text: one block per speaker turn, 'Name: text', blocks separated by "
                  "a blank line")
    participants = serializers.ListField(
        child=serializers.CharField(),
        help_text="Speaker names, in order of first appearance (as labelled in transcript)")
    metadata = TranscriptMetadata()


class EarningsTranscript(serializers.Serializer):
    symbol = serializers.CharField()
    transcripts = TranscriptItem(many=True)


# -- v2 ----------------------------------------------------------------------------------------
def _lang_param() -> LangParam:
    return LangParam(required=False, help_text=(
        "BCP 47 language tag (e.g. `de-DE`), accepted for compatibility; anything else is a "
        "400. No translation is done: the text is always in the language Yahoo serves the "
        "transcript in (the call's own, English for the calls it lists), whatever `lang` "
        "or `Accept-Language` say"))


class V2EarningsTranscriptQuery(EarningsTranscriptQuery, FieldsQuery):
    year_alone = "the latest call of that fiscal year"


class V2TranscriptQuery(V2EarningsTranscriptQuery):
    lang = _lang_param()


class V2TranscriptsAllQuery(OrderedPageQuery):
    lang = _lang_param()
    order = order_param("desc", "calls (by fiscal year and quarter)")


_QUARTER = nullable("string", enum=[*QUARTERS, None])
EARNINGS_TRANSCRIPT_RESPONSE = object_schema({
    "symbol": {"type": "string"},
    "quarter": {**_QUARTER, "description": "Fiscal quarter of the call"},
    "year": {**INTEGER, "description": "Fiscal year of the call"},
    "date": nullable("string", format="date-time",
                     description="Date and time of the call (ISO 8601, UTC)"),
    "text": {"type": "string", "description": "The full transcript as one text (\"\" when "
                                               "the source has none)"},
}, "One earnings call's transcript; `fields` selects these members (all present "
   "without it)")

_SPEAKER = object_schema({
    "speaker": {"type": "integer", "description": "The speaker's number in the transcript"},
    "speakerData": object_schema({
        "company": {**STRING, "description": "null for the operator"},
        "name": {"type": "string"},
        "role": {**STRING, "description": "null for the operator"},
    }, required=("company", "name", "role")),
}, required=("speaker", "speakerData"))
TRANSCRIPT_RESPONSE = object_schema({
    "transcriptContent": object_schema({
        "companyId": {**INTEGER, "description": "The company's id at Yahoo's transcript "
                                                "supplier (Quartr)"},
        "eventId": {**INTEGER, "description": "Yahoo's event id of the call"},
        "version": {**STRING, "description": "Version of the transcript format"},
        "speakerMapping": {"type": "array", "items": _SPEAKER,
                           "description": "Every listed speaker, in the source's order"},
        "transcript": {**object_schema({
            "numberOfSpeakers": {**INTEGER, "description": "As the source counts them"},
            "text": {"type": "string", "description": "The full text as the source sends "
                                                      "it (paragraph timings left out)"},
        }, required=("numberOfSpeakers", "text")), "type": ["object", "null"],
            "description": "null when the source sent no transcript body"},
    }, required=("companyId", "eventId", "version", "speakerMapping", "transcript")),
    "transcriptMetadata": object_schema({
        "date": {**INTEGER, "description": "Time of the call, Unix seconds"},
        "eventId": INTEGER,
        "eventType": {**STRING, "description": "e.g. `Earnings call`"},
        "fiscalPeriod": {**_QUARTER, "description": "Fiscal quarter"},
        "fiscalYear": INTEGER,
        "isLatest": {**nullable("boolean"), "description": "The company's most recent call"},
        "s3Url": {**STRING, "description": "Where the supplier stores the document"},
        "title": {**STRING, "description": "e.g. `Q2 2026`"},
        "transcriptId": {"type": ["integer", "string", "null"],
                         "description": "The supplier's transcript id (an integer as Yahoo "
                                        "sends it)"},
        "transcriptType": {**STRING, "description": "e.g. `IN_HOUSE`"},
        "updated": {**INTEGER, "description": "Last revision, Unix seconds"},
    }, required=("date", "eventId", "eventType", "fiscalPeriod", "fiscalYear", "isLatest",
                 "s3Url", "title", "transcriptId", "transcriptType", "updated")),
}, "One earnings call's transcript document; `fields` selects these members (both "
   "present without it)")

_CALL = object_schema({
    "eventId": {"type": "string", "description": "Yahoo's event id of the call"},
    "quarter": {**_QUARTER, "description": "Fiscal quarter (the transcript's when the "
                                          "listing has none)"},
    "year": INTEGER,
    "title": {"type": "string", "description": "e.g. `Q2 2026 Earnings Call`"},
    "url": {"type": "string", "format": "uri", "description": "The call's page on Yahoo "
                                                              "Finance"},
    "transcript": TRANSCRIPT_RESPONSE,
}, "A listed call and its transcript document; `fields` selects these members (all "
   "present without it)")
TRANSCRIPTS_ALL_RESPONSE = connection_schema(_CALL, "earnings calls, newest first "
                                             "(`order=desc`, the default) or oldest first "
                                             "(`order=asc`)")
