from typing import Any

from rest_framework import serializers

from apps.core.params import IntegerParam, QuerySerializer
from apps.core.shapes import record_schema
from apps.core.v2 import FieldsQuery, OrderedPageQuery, connection_schema, order_param
from apps.quotes.serializers import LangParam
from apps.transcripts.services import (
    MIN_YEAR,
    CallText,
    ListedCall,
    SpeakerEntry,
    TranscriptBody,
    TranscriptContent,
    TranscriptDocument,
    latest_year,
)
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


EARNINGS_TRANSCRIPT_RESPONSE = record_schema(
    CallText, "One earnings call's transcript; `fields` selects these members (all present "
    "without it)", required=False)

# A list of records and an optional record: their annotations say only array and object
# (with their descriptions), the records say the items and the object.
_CONTENT = record_schema(TranscriptContent)["properties"]
TRANSCRIPT_RESPONSE = record_schema(
    TranscriptDocument, "One earnings call's transcript document; `fields` selects these "
    "members (both present without it)", required=False,
    nested={"transcriptContent": record_schema(TranscriptContent, nested={
        "speakerMapping": {**_CONTENT["speakerMapping"], "items": record_schema(SpeakerEntry)},
        "transcript": {**record_schema(TranscriptBody), **_CONTENT["transcript"]}})})

TRANSCRIPTS_ALL_RESPONSE = connection_schema(
    record_schema(ListedCall, "A listed call and its transcript document; `fields` selects "
                  "these members (all present without it)", required=False,
                  nested={"transcript": TRANSCRIPT_RESPONSE}),
    "earnings calls, newest first (`order=desc`, the default) or oldest first (`order=asc`)")
