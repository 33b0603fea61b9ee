"""marketdata.capabilities.fundamentals and .analysts: every row names fetchers that import,
a module the capability does not serve is refused before any source, both analyst sources
answer with the same record, "not found" is one message whichever source said it, and the
summary rule for sources that send dated targets."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from marketdata.capabilities import analysts, fundamentals, table
from marketdata.errors import NotFound
from marketdata.records.analysts import (
    GradingAction,
    PriceTargetConsensus,
    PriceTargetSummary,
    TargetWindow,
    summarize_targets,
)
from marketdata.records.fundamentals import EARNINGS_TREND, INSIDER_HOLDERS

ROWS = ("grading_actions", "price_target_consensus", "price_target_summary", "analysis",
        "holders", "calendar_events", "financial_statements", "earnings_calls", "transcripts")
DAY = 86400
NOW = 1738368000  # 2025-02-01T00:00:00Z


@pytest.fixture(autouse=True)
def _no_key(settings):
    settings.FMP_API_KEY = ""
    table.reset_warnings()


@pytest.mark.parametrize("name", ROWS)
def test_every_source_names_a_fetcher_that_imports(name):
    for source in table.CAPABILITIES[name].sources:
        assert callable(source.fetch_function()), (name, source.name)


def test_a_module_the_capability_does_not_serve_is_refused_before_any_source(monkeypatch):
    asked = []
    monkeypatch.setattr(table, "call", lambda *args, **kwargs: asked.append(args))
    with pytest.raises(ValueError):
        fundamentals.analysis("AAPL", INSIDER_HOLDERS)
    with pytest.raises(ValueError):
        fundamentals.holders("AAPL", EARNINGS_TREND)
    assert asked == []


def _answers(monkeypatch, name: str, fmp, yahoo) -> None:
    sources = table.CAPABILITIES[name].sources
    for source, answer in zip(sources, (fmp, yahoo), strict=True):
        def fetch(symbol, answer=answer):
            if isinstance(answer, Exception):
                raise answer
            return answer
        monkeypatch.setitem(table._fetchers, source.fetcher, fetch)


def test_the_keyed_source_answers_first_with_its_key(settings, monkeypatch):
    fmp = [GradingAction("2025-02-03", "AAPL", "Jefferies", "Hold", "Underperform")]
    yahoo = [GradingAction("2025-01-31", "AAPL", "Citigroup", "Buy", None)]
    _answers(monkeypatch, "grading_actions", fmp, yahoo)
    assert analysts.grading_actions("AAPL") == yahoo
    settings.FMP_API_KEY = "k"
    assert analysts.grading_actions("AAPL") == fmp


@pytest.mark.parametrize(("name", "read", "what"), [
    ("grading_actions", analysts.grading_actions, "grading actions"),
    ("price_target_consensus", analysts.price_target_consensus, "price target"),
    ("price_target_summary", analysts.price_target_summary, "price target"),
])
def test_not_found_is_one_message_whichever_source_said_it(settings, monkeypatch, name, read,
                                                           what):
    settings.FMP_API_KEY = "k"
    _answers(monkeypatch, name, NotFound("FMP's words"), NotFound("Yahoo's words"))
    with pytest.raises(NotFound) as caught:
        read("AAPL")
    assert caught.value.detail == f"No {what} data found for AAPL"


def test_consensus_record_is_the_same_from_either_source(settings, monkeypatch):
    record = PriceTargetConsensus("AAPL", 250.5, 325, 197, 255)
    _answers(monkeypatch, "price_target_consensus", record, NotFound("unused"))
    settings.FMP_API_KEY = "k"
    assert analysts.price_target_consensus("AAPL") == record


def _at(days_ago: float) -> datetime:
    return datetime.fromtimestamp(NOW - days_ago * DAY, UTC)


def test_summarize_targets_counts_each_window_and_rounds_half_up():
    targets = [(_at(1), 200.0), (_at(30), 201.0), (_at(30.001), 210.0), (_at(400), 100.0),
               (_at(-2), 205.0)]
    summary = summarize_targets("AAPL", targets, NOW)
    assert summary == PriceTargetSummary.from_windows("AAPL", {
        "lastMonth": TargetWindow(3, 202.0),
        "lastQuarter": TargetWindow(4, 204.0),
        "lastYear": TargetWindow(4, 204.0),
        "allTime": TargetWindow(5, 183.2)})
    assert summary == PriceTargetSummary("AAPL", 3, 202.0, 4, 204.0, 4, 204.0, 5, 183.2)


def test_summarize_targets_window_without_targets_has_no_mean():
    summary = summarize_targets("AAPL", [(_at(100), 2.005)], NOW)
    assert (summary.last_month_count, summary.last_month_avg) == (0, None)
    assert (summary.last_year_count, summary.last_year_avg) == (1, 2.01)
