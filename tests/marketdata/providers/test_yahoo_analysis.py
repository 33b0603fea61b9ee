"""Analysis parsers on every recording of their quoteSummary modules (values, not only keys),
both number shapes ({raw, fmt} and bare), the hand-written esgScores payload (no recording
exists), and the fetch path (URL, one module per call, the cache)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.errors import NotFound
from marketdata.providers.yahoo import analysis as ya
from marketdata.providers.yahoo.quote_summary import parse_quote_summary
from tests.conftest import calls_to

from .helpers import recordings, wrap_numbers

QS = "yahoo/v10-quoteSummary"


def module_body(payload: dict[str, Any], module: str) -> Any:
    """The module out of an enveloped recording, or the recording itself when finance-query
    stored the module body alone (INDEX.md: "re-serialized by finance-query")."""
    if "quoteSummary" not in payload:
        return payload
    return parse_quote_summary(payload).get(module)


def bare(value: Any) -> Any:
    """Yahoo's {raw, fmt[, longFmt]} objects -> bare numbers ({} -> None), recursively."""
    if isinstance(value, dict):
        if "raw" in value:
            return value["raw"]
        if not value:
            return None
        return {k: bare(v) for k, v in value.items()}
    if isinstance(value, list):
        return [bare(v) for v in value]
    return value


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


# -- recommendationTrend ----------------------------------------------------------------------
RECOMMENDATION_FILES = recordings(f"{QS}/recommendationTrend")
# file -> (first period's strongBuy, buy, hold, sell, strongSell)
FIRST_TREND = {
    "AAPL.json": (7, 21, 14, 2, 2),
    "OCDO.L.json": (0, 4, 4, 2, 3),
    "SPOT.json": (6, 17, 12, 1, 2),
    "module-only-finance-query-2026.json": (7, 23, 15, 1, 2),
}


@pytest.mark.parametrize("path", RECOMMENDATION_FILES)
def test_recommendation_trend_recordings(recording, path):
    rows = ya.parse_recommendation_trend(module_body(recording(path), "recommendationTrend"))
    assert [r.period for r in rows] == ["0m", "-1m", "-2m", "-3m"]
    first = rows[0]
    assert (first.strong_buy, first.buy, first.hold, first.sell,
            first.strong_sell) == FIRST_TREND[path.rsplit("/", 1)[1]]
    assert all(isinstance(getattr(r, f), int) for r in rows
               for f in ("strong_buy", "buy", "hold", "sell", "strong_sell"))


def test_recommendation_trend_aapl_all_rows(recording):
    rows = ya.parse_recommendation_trend(
        module_body(recording(f"{QS}/recommendationTrend/AAPL.json"), "recommendationTrend"))
    assert rows[1] == ya.Recommendation("-1m", 8, 21, 13, 2, 2)
    assert rows[3] == ya.Recommendation("-3m", 8, 24, 12, 1, 2)


@pytest.mark.parametrize("path", RECOMMENDATION_FILES)
def test_recommendation_trend_raw_fmt_shape(recording, path):
    body = module_body(recording(path), "recommendationTrend")
    assert ya.parse_recommendation_trend(wrap_numbers(body)) == \
        ya.parse_recommendation_trend(body)


# -- upgradeDowngradeHistory -------------------------------------------------------------------
@pytest.mark.parametrize(("name", "count", "first"), [
    ("AAPL.json", 968, ya.GradeChange("Citigroup", "Buy", "Buy", None,
                                      utc(2025, 1, 31, 19, 45, 59))),
    ("OCDO.L.json", 1, ya.GradeChange("Bernstein", "Outperform", "", None,
                                      utc(2021, 7, 8, 8, 58, 52))),
    ("SPOT.json", 352, ya.GradeChange("Citigroup", "Neutral", "Neutral", None,
                                      utc(2025, 2, 14, 16, 27, 13))),
])
def test_upgrade_downgrade_recordings(recording, name, count, first):
    rows = ya.parse_upgrade_downgrade_history(
        module_body(recording(f"{QS}/upgradeDowngradeHistory/{name}"),
                    "upgradeDowngradeHistory"))
    assert len(rows) == count
    assert rows[0] == first
    assert {r.action for r in rows} <= {"upgrade", "downgrade", None}
    dates = [r.date for r in rows]
    assert all(d is not None for d in dates) and dates == sorted(dates, reverse=True)


def test_upgrade_downgrade_aapl_actions(recording):
    rows = ya.parse_upgrade_downgrade_history(
        module_body(recording(f"{QS}/upgradeDowngradeHistory/AAPL.json"),
                    "upgradeDowngradeHistory"))
    assert rows[1].action is None and rows[1].firm == "Needham"  # Yahoo's "reit"
    oppenheimer = rows[9]
    assert (oppenheimer.firm, oppenheimer.from_grade, oppenheimer.to_grade,
            oppenheimer.action) == ("Oppenheimer", "Outperform", "Perform", "downgrade")
    counts = {a: sum(r.action == a for r in rows) for a in ("upgrade", "downgrade", None)}
    # main 732 + reit 115 + init 35 are null: the spec's action is upgrade or downgrade
    assert counts == {"downgrade": 49, "upgrade": 37, None: 732 + 115 + 35}


@pytest.mark.parametrize(("code", "word"), [
    ("up", "upgrade"), ("down", "downgrade"), ("main", None), ("init", None),
    ("reit", None), ("UP", "upgrade"), (" down ", "downgrade"), ("new", None), ("", None),
    (None, None), (1, None),
])
def test_grade_action(code, word):
    assert ya.grade_action(code) == word


def test_upgrade_downgrade_missing_fields():
    rows = ya.parse_upgrade_downgrade_history({"history": [{"firm": "X"}, "junk", None]})
    assert rows == [ya.GradeChange("X", None, None, None, None)]


# -- financialData (price targets) -------------------------------------------------------------
@pytest.mark.parametrize(("name", "targets"), [
    ("AAPL.json", ya.PriceTargets(245.55, 252.22575, 257.5, 197.0, 325.0)),
    ("OCDO.L.json", ya.PriceTargets(309.0, 441.38498, 380.0, 230.0, 920.0)),
])
def test_price_targets_recordings(recording, name, targets):
    body = module_body(recording(f"{QS}/financialData/{name}"), "financialData")
    parsed = ya.parse_price_targets(body)
    assert parsed == targets and parsed.has_targets
    assert all(isinstance(v, float) for v in vars(parsed).values())
    assert ya.parse_price_targets(wrap_numbers(body, frozenset({"financialCurrency"}))) == parsed


def test_price_targets_404_recording(recording):
    with pytest.raises(NotFound) as info:
        parse_quote_summary(recording(f"{QS}/financialData/BTC-USD.json"))
    assert info.value.detail == ("No fundamentals data found for any of the "
                                 "summaryTypes=financialData")


def test_price_targets_without_targets():
    parsed = ya.parse_price_targets({"currentPrice": 12.5, "targetMeanPrice": {}})
    assert parsed == ya.PriceTargets(12.5, None, None, None, None)
    assert not parsed.has_targets
    assert not ya.parse_price_targets(None).has_targets


# -- earningsTrend -----------------------------------------------------------------------------
EARNINGS_TREND = {
    # file -> [(period, end date, EPS avg, EPS analysts, revenue avg)]
    "AAPL.json": [("0q", "2025-03-31", 1.60796, 27, 94076168920.0),
                  ("+1q", "2025-06-30", 1.49709, 26, 89371168280.0),
                  ("0y", "2025-09-30", 7.3157, 38, 409079556900.0),
                  ("+1y", "2026-09-30", 8.19607, 39, 442217695300.0)],
    "SPOT.json": [("0q", "2025-03-31", 2.29967, 16, 4215773940.0),
                  ("+1q", "2025-06-30", 2.44182, 15, 4403269090.0),
                  ("0y", "2025-12-31", 10.63696, 24, 18164554800.0),
                  ("+1y", "2026-12-31", 13.28992, 24, 20817177060.0)],
    "OCDO.L.json": [("0q", None, 0.0, 0, 0.0), ("+1q", None, 0.0, 0, 0.0),
                    ("0y", "2024-11-30", -0.38265, 10, 3085199220.0),
                    ("+1y", "2025-11-30", -0.35922, 9, 3399176720.0)],
}


@pytest.mark.parametrize("name", sorted(EARNINGS_TREND))
def test_earnings_trend_recordings(recording, name):
    body = module_body(recording(f"{QS}/earningsTrend/{name}"), "earningsTrend")
    rows = ya.parse_earnings_trend(body)
    assert [(r.period, r.end_date, r.earnings.avg, r.earnings.number_of_analysts,
             r.revenue.avg) for r in rows] == EARNINGS_TREND[name]
    assert ya.parse_earnings_trend(bare(body)) == rows


def test_earnings_trend_aapl_details(recording):
    rows = ya.parse_earnings_trend(
        module_body(recording(f"{QS}/earningsTrend/AAPL.json"), "earningsTrend"))
    assert rows[0].earnings == ya.Estimate(1.60796, 1.5, 1.67, 27, 1.53, 0.051, "USD")
    assert rows[0].revenue == ya.Estimate(94076168920.0, 89370000000.0, 95903397000.0, 27,
                                          90753000000.0, 0.0366, "USD")
    assert all(r.earnings.has_data and r.revenue.has_data for r in rows)


def test_earnings_trend_placeholders(recording):
    """OCDO.L's quarters: no end date, zeros with 0 analysts, empty growth objects."""
    rows = ya.parse_earnings_trend(
        module_body(recording(f"{QS}/earningsTrend/OCDO.L.json"), "earningsTrend"))
    quarter = rows[0]
    assert quarter.end_date is None
    assert quarter.earnings.year_ago is None and quarter.earnings.growth is None
    assert quarter.earnings.currency is None
    assert not quarter.earnings.has_data and not quarter.revenue.has_data
    assert rows[2].earnings.has_data and rows[2].earnings.currency == "GBP"


def test_earnings_trend_thyao_shared_end_date(recording):
    """THYAO.IS (all modules): the current quarter and fiscal year both end 2024-12-31;
    the quarter's EPS is a placeholder but its revenue is a real estimate."""
    body = module_body(recording(f"{QS}/_all-modules/THYAO.IS.json"), "earningsTrend")
    rows = ya.parse_earnings_trend(body)
    assert [(r.period, r.end_date) for r in rows] == [
        ("0q", "2024-12-31"), ("+1q", None), ("0y", "2024-12-31"), ("+1y", "2025-12-31")]
    assert not rows[0].earnings.has_data
    assert rows[0].revenue.has_data and rows[0].revenue.number_of_analysts == 2
    assert rows[2].earnings.avg == 75.2165 and rows[2].earnings.currency == "TRY"


def test_estimate_has_data_rules():
    assert not ya.Estimate(None, None, None, None, None, None, None).has_data
    assert ya.Estimate(1.0, None, None, None, None, None, None).has_data
    assert not ya.Estimate(0.0, 0.0, 0.0, 0, None, None, None).has_data


# -- earningsHistory ---------------------------------------------------------------------------
def test_earnings_history_aapl(recording):
    body = module_body(recording(f"{QS}/earningsHistory/AAPL.json"), "earningsHistory")
    rows = ya.parse_earnings_history(body)
    assert rows[0] == ya.EarningsSurprise(utc(2024, 3, 31), 1.53, 1.49923, 0.03, 0.020499999)
    assert [r.date for r in rows] == [utc(2024, 3, 31), utc(2024, 6, 30), utc(2024, 9, 30),
                                      utc(2024, 12, 31)]
    assert ya.parse_earnings_history(bare(body)) == rows


def test_earnings_history_spot_negative_surprise(recording):
    rows = ya.parse_earnings_history(
        module_body(recording(f"{QS}/earningsHistory/SPOT.json"), "earningsHistory"))
    assert rows[2] == ya.EarningsSurprise(utc(2024, 9, 30), 1.45, 1.66385, -0.21, -0.1285)
    assert len(rows) == 4


def test_earnings_history_empty(recording):
    body = module_body(recording(f"{QS}/earningsHistory/OCDO.L.json"), "earningsHistory")
    assert ya.parse_earnings_history(body) == []


def test_earnings_history_iso_date_string():
    rows = ya.parse_earnings_history({"history": [{"quarter": "2024-06-30", "epsActual": 1}]})
    assert rows == [ya.EarningsSurprise(utc(2024, 6, 30), 1.0, None, None, None)]


# -- all-modules recordings ---------------------------------------------------------------------
def test_all_modules_aapl_matches_single_module_files(recording):
    modules = parse_quote_summary(recording(f"{QS}/_all-modules/AAPL.json"))
    single = {m: module_body(recording(f"{QS}/{m}/AAPL.json"), m)
              for m in ("recommendationTrend", "financialData", "earningsHistory")}
    assert ya.parse_recommendation_trend(modules["recommendationTrend"]) == \
        ya.parse_recommendation_trend(single["recommendationTrend"])
    assert ya.parse_price_targets(modules["financialData"]) == \
        ya.parse_price_targets(single["financialData"])
    assert ya.parse_earnings_history(modules["earningsHistory"]) == \
        ya.parse_earnings_history(single["earningsHistory"])


@pytest.mark.parametrize("name", ["BTC-USD.json", "QQQ.json"])
def test_all_modules_funds_and_crypto_have_no_analysis(recording, name):
    modules = parse_quote_summary(recording(f"{QS}/_all-modules/{name}"))
    for module in (ya.RECOMMENDATION_TREND, ya.UPGRADE_DOWNGRADE_HISTORY, ya.FINANCIAL_DATA,
                   ya.EARNINGS_TREND, ya.EARNINGS_HISTORY, ya.ESG_SCORES):
        assert module not in modules
    assert ya.parse_recommendation_trend(modules.get("recommendationTrend")) == []
    assert not ya.parse_price_targets(modules.get("financialData")).has_targets


def test_all_modules_thyao_recommendations(recording):
    modules = parse_quote_summary(recording(f"{QS}/_all-modules/THYAO.IS.json"))
    assert ya.parse_recommendation_trend(modules["recommendationTrend"])[0] == \
        ya.Recommendation("0m", 2, 10, 1, 0, 0)
    assert ya.parse_price_targets(modules["financialData"]).mean == 446.3846


# -- esgScores (no recording exists: a hand-written payload in Yahoo's shape) ------------------
ESG_MODULE = {
    "maxAge": 86400,
    "totalEsg": {"raw": 18.42, "fmt": "18.4"}, "environmentScore": {"raw": 1.35, "fmt": "1.4"},
    "socialScore": {"raw": 8.07, "fmt": "8.1"}, "governanceScore": {"raw": 9.0, "fmt": "9"},
    "ratingYear": 2024, "ratingMonth": 5, "highestControversy": 3, "peerCount": 61,
    "esgPerformance": "AVG_PERF", "peerGroup": "Technology Hardware",
    "relatedControversy": ["Business Ethics Incidents"],
    "peerEsgScorePerformance": {"min": 7.4, "avg": 16.2, "max": 31.9},
    "percentile": {"raw": 16.5, "fmt": "17"}, "environmentPercentile": None,
    "adult": False, "tobacco": False,
}


def test_esg_scores_hand_written():
    parsed = ya.parse_esg_scores(ESG_MODULE)
    assert parsed == ya.EsgScores(1.35, 8.07, 9.0, 18.42)
    assert parsed.has_scores
    assert ya.parse_esg_scores(bare(ESG_MODULE)) == parsed


def test_esg_scores_missing():
    assert not ya.parse_esg_scores({"maxAge": 86400, "totalEsg": {}}).has_scores
    assert ya.parse_esg_scores({"totalEsg": 20}).total_esg == 20.0


# -- fetch ---------------------------------------------------------------------------------------
class TestFetch:
    def test_one_module_per_call_formatted_false(self, yahoo, recording):
        yahoo.summary("AAPL", recording(f"{QS}/recommendationTrend/AAPL.json"))
        rows = ya.analysis_data("AAPL", ya.RECOMMENDATION_TREND).record
        assert rows[0].strong_buy == 7
        calls = calls_to(yahoo.mock, "/v10/finance/quoteSummary/")
        assert len(calls) == 1
        url = urlsplit(calls[0].request.url)
        assert url.netloc == "query2.finance.yahoo.com"
        assert url.path == "/v10/finance/quoteSummary/AAPL"
        query = parse_qs(url.query)
        assert query["modules"] == ["recommendationTrend"]
        assert query["formatted"] == ["false"]
        assert query["crumb"] == ["haT3oykhHqZ"]

    def test_earnings_and_revenue_estimates_share_one_call(self, yahoo, recording):
        yahoo.summary("SPOT", recording(f"{QS}/earningsTrend/SPOT.json"))
        first = ya.analysis_data("SPOT", ya.EARNINGS_TREND).record
        assert ya.analysis_data("SPOT", ya.EARNINGS_TREND).record == first
        assert len(calls_to(yahoo.mock, "/v10/finance/quoteSummary/SPOT")) == 1

    def test_module_404_is_not_found(self, yahoo, recording):
        yahoo.summary("BTC-USD", recording(f"{QS}/financialData/BTC-USD.json"), status=404)
        with pytest.raises(NotFound):
            ya.fetch_price_targets("BTC-USD")

    def test_module_left_out_is_empty(self, yahoo, recording):
        yahoo.summary("QQQ", recording(f"{QS}/_all-modules/QQQ.json"))
        assert ya.fetch_upgrade_downgrade_history("QQQ") == []
        assert not ya.analysis_data("QQQ", ya.ESG_SCORES).record.has_scores

    def test_symbol_is_url_encoded(self, yahoo, recording):
        yahoo.summary("M%26M.NS", recording(f"{QS}/financialData/OCDO.L.json"))
        assert ya.fetch_price_targets("M&M.NS").mean == 441.38498
        assert calls_to(yahoo.mock, "/quoteSummary/M%26M.NS")
