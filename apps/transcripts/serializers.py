from typing import Any

from rest_framework import serializers

from apps.core.params import IntegerParam, QuerySerializer
from apps.transcripts.services import MIN_YEAR, latest_year
from marketdata.records.fundamentals import QUARTERS


class QuarterField(serializers.ChoiceField):
    """Q1..Q4; ``q1`` is accepted too (clients type it, and it cannot mean anything else)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str):
            data = data.strip().upper()
        return super().to_internal_value(data)


def _year_field() -> IntegerParam:
    return IntegerParam(
        required=False, min_value=MIN_YEAR, max_value=latest_year(),
        help_text=f"Fiscal year, {MIN_YEAR} to the current year + 1. Alone: every call of "
                  "that fiscal year, newest first")


class EarningsTranscriptQuery(QuerySerializer):
    quarter = QuarterField(
        choices=list(QUARTERS), required=False,
        help_text="Fiscal quarter (case-insensitive). Alone: the most recent call of that "
                  "quarter")
    year = _year_field()

    def get_fields(self) -> dict[str, serializers.Field]:
        # The upper bound moves with the calendar: rebuilt per request, not at import.
        fields = super().get_fields()
        fields["year"] = _year_field()
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
