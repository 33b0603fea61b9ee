"""One shape per answer: every v2 view's declared output (the members `fields` selects
among and those always present) is exactly the member set of its response schema's object,
and a view whose answer is a record's (apps.core.shapes) has the record's members in both,
so a member cannot be in the schema and not the answer, or the reverse."""

from __future__ import annotations

from dataclasses import is_dataclass
from typing import Any

import pytest
from django.urls import get_resolver

from apps.analysts.services import ReportedQuarter
from apps.charts import services as charts
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView, connection_schema
from apps.transcripts.services import (
    CallText,
    DocumentMetadata,
    ListedCall,
    SpeakerData,
    SpeakerEntry,
    TranscriptBody,
    TranscriptContent,
    TranscriptDocument,
)
from marketdata.records import sectors
from marketdata.records.analysts import GradingAction, PriceTargetConsensus, PriceTargetSummary
from marketdata.records.bars import ChartMeta
from marketdata.records.companies import PressRelease
from marketdata.records.crypto import Coin, CoinMatch, GlobalMarket, TrendingCoin
from marketdata.records.feeds import FeedItem, MarketNewsItem
from marketdata.records.gauges import FearAndGreed
from marketdata.records.market import CurrencyInfo, MarketSummaryItem, SummarySpark, TrendingSymbol
from marketdata.records.members import member_names
from marketdata.records.news import (
    HeadlineSentiment,
    MarketSentiment,
    ScoredNewsItem,
    WorldNewsItem,
)
from marketdata.records.quotes import ForexQuote, FuturesQuote


def _views() -> list[type[V2ApiView]]:
    found: list[type[V2ApiView]] = []

    def walk(patterns: list[Any]) -> None:
        for pattern in patterns:
            if hasattr(pattern, "url_patterns"):
                walk(pattern.url_patterns)
                continue
            view = getattr(pattern.callback, "cls", None)
            if isinstance(view, type) and issubclass(view, V2ApiView) and view not in found:
                found.append(view)

    walk(get_resolver().url_patterns)
    return found


def _object(schema: Any) -> dict[str, Any] | None:
    """The object a schema describes, through a connection's bare-array form and arrays."""
    if not isinstance(schema, dict):
        return None
    if "oneOf" in schema:
        return _object(schema["oneOf"][0])
    if schema.get("type") == "array":
        return _object(schema.get("items"))
    return schema


def _at(schema: Any, path: tuple[str, ...]) -> dict[str, Any] | None:
    node = _object(schema)
    for name in path:
        node = _object((node or {}).get("properties", {}).get(name))
    return node


VIEWS = [view for view in _views()
         if view.output.members and isinstance(view.response_schema, dict)]


def test_the_views_are_found():
    assert len(VIEWS) > 60


@pytest.mark.parametrize("view", VIEWS, ids=lambda view: view.__name__)
def test_the_schema_has_exactly_the_members_fields_selects_among(view):
    target = _at(view.response_schema, view.output.at)
    assert target is not None and "properties" in target, view.output.at
    assert set(target["properties"]) == set(view.output.members) | set(view.output.always)


RECORDS = [Coin, GlobalMarket, TrendingCoin, CoinMatch, GradingAction, PriceTargetConsensus,
           PriceTargetSummary, ReportedQuarter, PressRelease, ForexQuote, CurrencyInfo,
           FuturesQuote, WorldNewsItem, HeadlineSentiment, FeedItem, MarketNewsItem,
           MarketSentiment, FearAndGreed, ScoredNewsItem, CallText, TranscriptDocument,
           TranscriptContent, SpeakerEntry, SpeakerData, TranscriptBody, DocumentMetadata,
           ListedCall, MarketSummaryItem, SummarySpark, TrendingSymbol, ChartMeta,
           # every record of a sector or industry answer, and of a chart or corporate
           # actions answer (the modules' dataclasses)
           *(record for module in (sectors, charts) for record in vars(module).values()
             if isinstance(record, type) and is_dataclass(record)
             and record.__module__ == module.__name__)]


@pytest.mark.parametrize("record", RECORDS, ids=lambda record: record.__name__)
def test_a_records_schema_output_and_json_agree(record):
    schema = record_schema(record, "what")
    names = list(member_names(record))
    assert list(schema["properties"]) == names == schema["required"]
    assert record_output(record, paged=("",)).members == tuple(names)
    listed = connection_schema(schema)
    assert _object(listed) is schema
    assert "required" not in record_schema(record, required=False)


def test_a_schema_may_leave_required_out_and_nest_records():
    from marketdata.records.macro import MacroSeries, Observation

    observations = connection_schema(record_schema(Observation, "One observation"))
    schema = record_schema(MacroSeries, "A series", required=False,
                           nested={"observations": observations})
    assert "required" not in schema
    assert schema["properties"]["observations"] is observations
    assert schema["properties"]["id"]["type"] == "string"
    with pytest.raises(TypeError, match="no members"):
        record_schema(MacroSeries, nested={"nope": observations})


@pytest.mark.parametrize(("record", "member", "nested"), [
    (WorldNewsItem, "sentiment", HeadlineSentiment), (FeedItem, "sentiment", MarketSentiment),
    (MarketNewsItem, "sentiment", MarketSentiment),
    (ScoredNewsItem, "sentiment", MarketSentiment)])
def test_a_member_that_is_a_record_is_its_schema(record, member, nested):
    inner = record_schema(record)["properties"][member]
    assert inner["required"] == list(member_names(nested))
    assert inner["description"].startswith("Sentiment of the headline")
