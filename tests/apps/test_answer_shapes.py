"""One shape per answer: every v2 view's declared output (the members `fields` selects
among and those always present) is exactly the member set of its response schema's object,
and a view whose answer is a record's (apps.core.shapes) has the record's members in both,
so a member cannot be in the schema and not the answer, or the reverse. v1 answers are
records too, their components named as the v1 document names them (v1_component)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, is_dataclass
from typing import Any, get_args, get_type_hints

import pytest
from django.urls import get_resolver

from apps.analysis.services import (
    AnalysisData,
    EarningsEstimate,
    EarningsEstimateValue,
    EarningsHistoryItem,
    PriceTarget,
    RecommendationData,
    RevenueEstimate,
    RevenueEstimateValue,
    Scores,
    SustainabilityScores,
    UpgradeDowngrade,
)
from apps.analysts.services import EarningsSurprises, ReportedQuarter
from apps.backtest.services import BacktestAnswer, EquityPoint, RoundTrip
from apps.charts import services as charts
from apps.core.shapes import record_output, record_schema, union_schema, v1_component, v1_schema
from apps.core.v2 import V2ApiView, connection_schema
from apps.financials.services import FinancialStatement, StatementsBatch
from apps.health.checks import (
    CacheStatus,
    CircuitStatus,
    HealthCheck,
    HealthServices,
    HealthStatus,
    StreamStatus,
)
from apps.health.readiness import ProbeStatus, Readiness, ReadinessChecks
from apps.health.views import IndexLinks, PingStatus, Pong, ServiceHealth, ServiceIndex
from apps.historical.services import HistoricalData
from apps.holders import services as holders
from apps.hours.views import MarketHours
from apps.indicators.services import IndicatorsBatch, SymbolIndicators, TechnicalIndicator
from apps.indices.services import MarketIndex
from apps.movers.services import MarketMover
from apps.news.services import News
from apps.options.services import ChainBatch, SymbolChain
from apps.quotes.services import Quote, QuotesBatch, SimpleQuote
from apps.risk.services import RiskAnswer, RiskWindow
from apps.sectors.services import MarketSector, MarketSectorDetails
from apps.similar.services import SimilarSymbols, SimilarSymbolsBatch
from apps.transcripts.services import (
    CallText,
    DocumentMetadata,
    EarningsTranscript,
    ListedCall,
    SpeakerData,
    SpeakerEntry,
    TranscriptBody,
    TranscriptContent,
    TranscriptDocument,
    TranscriptItem,
    TranscriptMetadata,
    TranscriptSpeaker,
)
from marketdata.backtest.engine import Signal
from marketdata.backtest.metrics import BacktestMetrics
from marketdata.indicators import indicator_set
from marketdata.indicators.risk import RiskMetrics
from marketdata.records import filings, search, sectors
from marketdata.records.analysts import (
    EarningsEstimateModule,
    EarningsEstimateValues,
    EarningsHistoryModule,
    EpsRevisionsValues,
    EpsTrendValues,
    EstimateRow,
    GradeChangeRow,
    GradingAction,
    PriceTargetConsensus,
    PriceTargetSummary,
    RecommendationRow,
    RecommendationsModule,
    ReportedEarningsRow,
    RevenueEstimateValues,
    UpgradesDowngradesModule,
)
from marketdata.records.bars import ChartMeta
from marketdata.records.batches import Batch
from marketdata.records.calendar import (
    CalendarEvent,
    DividendAmount,
    EarningsEstimates,
    ExpiringContracts,
    ReleaseName,
)
from marketdata.records.companies import PressRelease
from marketdata.records.crypto import Coin, CoinMatch, GlobalMarket, TrendingCoin
from marketdata.records.exchanges import Exchange
from marketdata.records.feeds import FeedItem, MarketNewsItem
from marketdata.records.fundamentals import (
    InsiderPurchasesModule,
    InsiderRosterModule,
    InsiderRosterRow,
    InsiderTransactionRow,
    InsiderTransactionsModule,
    MajorHoldersModule,
    OwnershipModule,
    OwnershipRow,
    PeriodValue,
    StatementRow,
    SymbolStatement,
)
from marketdata.records.gauges import FearAndGreed
from marketdata.records.market import (
    CurrencyInfo,
    MarketSummaryItem,
    Peer,
    SummarySpark,
    TrendingSymbol,
)
from marketdata.records.members import DOUBLE, as_json, member, member_names, members_of
from marketdata.records.news import (
    HeadlineSentiment,
    MarketSentiment,
    ScoredNewsItem,
    WorldNewsItem,
)
from marketdata.records.options import OptionChain, OptionContract
from marketdata.records.quotes import ForexQuote, FuturesQuote, GqlQuote, QuoteTypeRecord
from marketdata.records.screeners import ScreenerResult, ScreenerRow


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
           ListedCall, MarketSummaryItem, SummarySpark, TrendingSymbol,
           # options and risk
           OptionContract, OptionChain, SymbolChain, ChainBatch, RiskWindow, RiskMetrics,
           RiskAnswer,
           # search, lookup, similar symbols, screeners
           search.SearchAnswer,
           search.SearchQuote, search.SearchArticle, search.Thumbnail, search.ThumbnailSize,
           search.ResearchReport, search.LookupAnswer, search.LookupQuote, SimilarSymbols, Peer,
           SimilarSymbolsBatch, ScreenerResult, ScreenerRow,
           # filings and calendar
           filings.FilerId,
           filings.Filing, filings.CompanyFilings, filings.DataPoint, filings.ConceptValues,
           filings.SearchHit, filings.FilingSearch, CalendarEvent, EarningsEstimates,
           DividendAmount, ExpiringContracts, ReleaseName,
           # the holders and analysis modules (open: they pass Yahoo's other members through)
           MajorHoldersModule, OwnershipModule, OwnershipRow, InsiderTransactionsModule,
           InsiderTransactionRow, InsiderPurchasesModule, InsiderRosterModule, InsiderRosterRow,
           RecommendationsModule, RecommendationRow, UpgradesDowngradesModule, GradeChangeRow,
           EarningsEstimateModule, EstimateRow, EarningsEstimateValues, RevenueEstimateValues,
           EpsTrendValues, EpsRevisionsValues, EarningsHistoryModule, ReportedEarningsRow,
           # financial statements and backtest
           PeriodValue, StatementRow, SymbolStatement, StatementsBatch, Signal, BacktestMetrics,
           EquityPoint, RoundTrip, BacktestAnswer,
           # charts; every batch's envelope; the exchanges
           ChartMeta, Batch, Exchange, EarningsSurprises, MarketHours,
           # health and ping
           ServiceHealth, Pong,
           # v1 answers
           HistoricalData, MarketMover, MarketSector, MarketSectorDetails, search.Security,
           News, FinancialStatement, EarningsTranscript, TranscriptItem, TranscriptMetadata,
           TranscriptSpeaker, Quote, SimpleQuote, MarketIndex, TechnicalIndicator,
           # indicators: the set and its objects' lines (the module's dataclasses), the
           # batch's item and envelope
           *(record for record in vars(indicator_set).values()
             if isinstance(record, type) and is_dataclass(record)
             and record.__module__ == indicator_set.__name__),
           SymbolIndicators, IndicatorsBatch,
           # quotes (and indices: quotes too)
           GqlQuote, QuotesBatch, QuoteTypeRecord,
           # v1 health, analysis and holders
           PingStatus, ProbeStatus, ReadinessChecks, Readiness, CacheStatus,
           HealthCheck, HealthServices, CircuitStatus, StreamStatus, HealthStatus, IndexLinks,
           ServiceIndex, AnalysisData, RecommendationData, UpgradeDowngrade, PriceTarget,
           EarningsEstimate, EarningsEstimateValue, RevenueEstimate, RevenueEstimateValue,
           EarningsHistoryItem, SustainabilityScores, Scores, holders.HoldersData,
           holders.MajorHoldersBreakdown, holders.Holder, holders.InsiderTransaction,
           holders.InsiderPurchase, holders.InsiderRosterMember, holders.MajorHoldersResponse,
           holders.HolderListResponse, holders.InsiderTransactionsResponse,
           holders.InsiderPurchasesResponse, holders.InsiderRosterResponse,
           # every record of a sector or industry answer, and of a chart or corporate
           # actions answer (the modules' dataclasses)
           *(record for module in (sectors, charts) for record in vars(module).values()
             if isinstance(record, type) and is_dataclass(record)
             and record.__module__ == module.__name__)]


@pytest.mark.parametrize("record", RECORDS, ids=lambda record: record.__name__)
def test_a_records_schema_output_and_json_agree(record):
    schema = record_schema(record, "what")
    names = list(member_names(record))
    assert list(schema["properties"]) == names
    assert schema["required"] == [m.name for m in members_of(record) if m.required]
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


def test_a_record_may_join_its_bases_members():
    """The risk answer is its window's members, then the metrics' (dataclass bases are
    taken last first), as one flat object."""
    names = member_names(RiskAnswer)
    assert names == member_names(RiskWindow) + member_names(RiskMetrics)
    assert names[:2] == ("symbol", "benchmark") and names[-1] == "informationRatio"


@dataclass(frozen=True)
class Open:
    max_age: int | None = member()
    count: int | None = member("How many")
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class Typed:
    max_age: int | None = member()
    extras: Mapping[str, Any] = member(extras=True, schema={"type": "number"},
                                       default_factory=dict)


@dataclass(frozen=True)
class First:
    max_age: int | None = member()
    rows: list[Any] = member()
    count: int | None = member("How many")
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class Second:
    rows: list[Any] = member()
    max_age: int | None = member()
    count: str | None = member("Counted")


@dataclass(frozen=True)
class Third:
    max_age: int | None = member("Seconds")
    count: int | None = member("How many")


def test_a_record_that_passes_members_through_is_an_open_object():
    schema = record_schema(Open, "open")
    assert list(schema["properties"]) == ["maxAge", "count"] == schema["required"]
    assert schema["additionalProperties"] is True
    assert record_schema(Typed)["additionalProperties"] == {"type": "number"}
    assert "additionalProperties" not in record_schema(PressRelease)
    # fields selects the declared members and those the answer passes through
    output = record_output(Open, passed=("newOne",), paged=("rows",))
    assert output.members == ("maxAge", "count", "newOne") and output.paged == ("rows",)
    body = {"maxAge": 1, "count": 2, "newOne": 3}
    assert output.apply(body, {"fields": "newOne"}) == {"newOne": 3}
    assert output.apply(body, {"fields": "count,unknown"}) == {"count": 2}


def test_a_union_schema_has_every_records_members_and_says_whose():
    rows = {"type": "array", "description": "the rows"}
    with pytest.raises(TypeError, match="count differs"):
        union_schema({"a": First, "b": Second}, "either", nested={"rows": rows})
    schema = union_schema({"a": First, "b": Second, "c": First}, "either",
                          nested={"rows": rows, "count": {"type": "integer"}})
    assert list(schema["properties"]) == ["maxAge", "rows", "count"]
    assert schema["properties"]["maxAge"] == {"type": ["integer", "null"]}
    assert schema["properties"]["rows"] == rows
    assert "required" not in schema and schema["additionalProperties"] is True
    assert schema["description"] == "either"
    only = union_schema({"a": First, "c": Second}, "x", nested={"rows": rows,
                                                               "count": rows})
    assert only["properties"]["maxAge"] == {"type": ["integer", "null"]}
    mixed = union_schema({"a": First, "b": Third}, "x", nested={"rows": rows})["properties"]
    assert mixed["maxAge"]["description"] == "a; b: Seconds"
    assert mixed["count"]["description"] == "How many"
    assert mixed["rows"] == {"type": "array", "description": "a. the rows"}


@dataclass(frozen=True)
class Bar:
    close: float = member(schema=DOUBLE)
    adj_close: float | None = member("When adjusted", optional=True)
    volume: int | None = member()


@dataclass(frozen=True)
class Speaker:
    name: str = member()


@dataclass(frozen=True)
class Call:
    quarter: str = member("Fiscal quarter", schema={"type": "string", "enum": ["Q1", "Q2"]})
    speakers: list[Speaker] = member("Who spoke")
    first: Speaker = member()
    by_date: dict[str, float] = member()


def test_an_optional_member_is_left_out_when_none_and_never_null():
    """v1's optional members: absent rather than null, not required, typed without null."""
    assert as_json(Bar(1.5, None, None)) == {"close": 1.5, "volume": None}
    assert list(as_json(Bar(1.5, 1.25, 7))) == ["close", "adjClose", "volume"]
    schema = record_schema(Bar)
    assert schema["required"] == ["close", "volume"]
    assert schema["properties"]["adjClose"] == {"type": "number", "description": "When adjusted"}
    assert schema["properties"]["close"] == {"type": "number", "format": "double"}
    assert schema["properties"]["volume"] == {"type": ["integer", "null"]}
    with pytest.raises(TypeError, match="pass-through"):
        member(extras=True, optional=True)


def test_a_v1_component_is_written_as_drf_spectacular_wrote_its_serializer():
    """Named (the record's name unless given), nested records by reference, an enum's
    values listed in its description, required members in name order."""
    assert v1_component(Call).__name__ == "Call" and v1_component(Call) is v1_component(Call)
    assert v1_component(search.Security, "SearchResult").__name__ == "SearchResult"
    schema = v1_schema(Call, ref=lambda record: {"$ref": record.__name__})
    properties = schema["properties"]
    assert list(properties["quarter"]) == ["enum", "type", "description"]
    assert properties["quarter"]["description"] == "Fiscal quarter\n\n* `Q1` - Q1\n* `Q2` - Q2"
    assert properties["speakers"] == {"type": "array", "items": {"$ref": "Speaker"},
                                      "description": "Who spoke"}
    assert properties["first"] == {"$ref": "Speaker"}
    assert properties["byDate"] == {"type": "object", "additionalProperties": {"type": "number"}}
    assert as_json(Call("Q1", [Speaker("A")], Speaker("B"), {"d": 1.0})) == {
        "quarter": "Q1", "speakers": [{"name": "A"}], "first": {"name": "B"},
        "byDate": {"d": 1.0}}


def test_the_v1_document_names_the_records_components():
    from tests.openapi_validation import served_document

    document = served_document()
    components = document["components"]["schemas"]
    for name in ("MarketMover", "MarketSector", "MarketSectorDetails", "SearchResult", "News",
                 "FinancialStatement", "EarningsTranscript", "TranscriptItem",
                 "TranscriptMetadata", "TranscriptSpeaker", "PingStatus", "ProbeStatus",
                 "ReadinessChecks", "Readiness", "CacheStatus", "HealthCheck", "HealthServices",
                 "CircuitStatus", "StreamStatus", "HealthStatus", "IndexLinks", "ServiceIndex",
                 "AnalysisData", "RecommendationData", "UpgradeDowngrade", "PriceTarget",
                 "EarningsEstimate", "EarningsEstimateValue", "RevenueEstimate",
                 "RevenueEstimateValue", "EarningsHistoryItem", "SustainabilityScores",
                 "_Scores", "HoldersData", "MajorHoldersBreakdown", "Holder",
                 "InsiderTransaction", "InsiderPurchase", "InsiderRosterMember",
                 "MajorHoldersResponse", "HolderListResponse", "InsiderTransactionsResponse",
                 "InsiderPurchasesResponse", "InsiderRosterResponse", "Quote",
                 "SimpleQuote", "MarketIndex"):
        assert components[name]["required"] == sorted(components[name]["required"]), name
    item = components["TranscriptItem"]["properties"]
    assert item["metadata"] == {"$ref": "#/components/schemas/TranscriptMetadata"}
    assert item["quarter"]["allOf"] == [{"$ref": "#/components/schemas/QuarterEnum"}]
    assert "adjClose" not in document["paths"]["/v1/historical"]["get"]["responses"]["200"][
        "content"]["application/json"]["schema"]["additionalProperties"]["required"]


@dataclass(frozen=True)
class Price:
    value: str | None = member(optional=True, required=True)
    low: str | None = member(optional=True)
    symbol: str = member(default="X")


def test_an_optional_member_may_still_be_required_and_listed_first():
    """A v1 member the v1 document requires, yet left out when None (a quote's price); a
    component listing members otherwise than the answer writes them (``first``)."""
    assert as_json(Price(None, "1")) == {"low": "1", "symbol": "X"}
    assert record_schema(Price)["required"] == ["value", "symbol"]
    assert record_schema(Price)["properties"]["value"] == {"type": "string"}
    schema = v1_schema(Price, first=("symbol", "low"))
    assert list(schema["properties"]) == ["symbol", "low", "value"]
    with pytest.raises(TypeError, match="no members"):
        v1_schema(Price, first=("nope",))
    assert v1_component(Price, first=("symbol",)).first == ("symbol",)
    with pytest.raises(TypeError, match="pass-through"):
        member(extras=True, required=False)


def test_the_v1_quotes_json_is_their_records():
    """The v1 quotes are written at once (no record per row), as as_json writes their
    records: every member that may be None is optional (left out)."""
    from apps.quotes.services import full_quote_json, simple_quote_json
    from marketdata.records.quotes import FullQuote, PeriodReturns, QuoteSnapshot

    for record in (Quote, SimpleQuote):
        hints = get_type_hints(record)
        assert all(m.optional for m in members_of(record)
                   if type(None) in get_args(hints[m.attribute])), record
    snapshot = QuoteSnapshot("AAPL", None, "EQUITY", "USD", 2, "POST", 1.5, None, 0.5, 1.0,
                             None, None, None, 10, 100, 1.25, 50, 1.75, 150)
    assert simple_quote_json(snapshot) == as_json(SimpleQuote.of(snapshot)) == {
        "symbol": "AAPL", "name": "AAPL", "price": "1.50", "percentChange": "+0.50%",
        "afterHoursPrice": "1.75"}
    full = FullQuote("VFIAX", long_name="Fund", regular_market_price=None, volume=0,
                     yield_value=0.0123, morningstar_rating=4, morningstar_risk_rating=2,
                     returns=PeriodReturns(one_year=0.1, max_period=-0.05))
    assert full_quote_json(full) == as_json(Quote.of(full))
    assert list(full_quote_json(full)) == ["symbol", "name", "volume", "yield", "fundRating",
                                           "fundRiskRating", "yearReturn", "maxReturn"]
