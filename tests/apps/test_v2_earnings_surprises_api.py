"""GET /v2/earnings-surprises/{symbol}: Yahoo's earningsHistory recordings through the
endpoint (values exact, newest first, percent units), the statuses, and the sandbox; the
keyed sources (FMP's /stable/earnings, Alpha Vantage's EARNINGS) first with their keys."""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import UTC, datetime
from decimal import Decimal

import pytest
import responses

from marketdata.capabilities import table as sources
from marketdata.providers import alphavantage, fmp
from tests.apps.payloads import FAILURES, QUERY2, fail_url
from tests.conftest import calls_to

QS = "yahoo/v10-quoteSummary"


@pytest.mark.parametrize("symbol", ["AAPL", "SPOT"])
def test_surprises_exactly_as_recorded(api, yahoo, recording, symbol):
    payload = recording(f"{QS}/earningsHistory/{symbol}.json")
    yahoo.summary(symbol, payload)
    response = api.get(f"/v2/earnings-surprises/{symbol.lower()}")
    assert response.status_code == 200, response.content
    history = payload["quoteSummary"]["result"][0]["earningsHistory"]["history"]
    expected = [{
        "symbol": symbol,
        "date": datetime.fromtimestamp(row["quarter"]["raw"], UTC).date().isoformat(),
        "actualEps": row["epsActual"]["raw"], "estimatedEps": row["epsEstimate"]["raw"],
        "surprise": row["epsDifference"]["raw"],
        "surprisePercent": float(Decimal(repr(row["surprisePercent"]["raw"])) * 100)}
        for row in sorted(history, key=lambda r: r["quarter"]["raw"], reverse=True)]
    assert response.json() == {"surprises": expected}
    assert response.json()["surprises"][-1]["date"] == "2024-03-31"
    (call,) = calls_to(yahoo.mock, f"/quoteSummary/{symbol}")
    assert "modules=earningsHistory" in call.request.url


def test_percent_units_without_float_noise(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/earningsHistory/AAPL.json"))
    oldest = api.get("/v2/earnings-surprises/AAPL").json()["surprises"][-1]
    assert oldest["surprisePercent"] == 2.0499999  # Yahoo's 0.020499999


def test_no_reported_quarters_is_404(api, yahoo, recording):
    yahoo.summary("OCDO.L", recording(f"{QS}/earningsHistory/OCDO.L.json"))
    response = api.get("/v2/earnings-surprises/OCDO.L")
    assert response.status_code == 404
    assert response.json() == {"error": "No earnings surprises data found for OCDO.L",
                               "status": 404}


def test_fields_and_bad_input(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/earningsHistory/AAPL.json"))
    assert list(api.get("/v2/earnings-surprises/AAPL?fields=surprises").json()) == [
        "surprises"]
    assert api.get("/v2/earnings-surprises/AA%20PL").status_code == 404
    assert len(calls_to(yahoo.mock, "/quoteSummary/")) == 1


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, f"{QUERY2}/v10/finance/quoteSummary/AAPL", kind)
    status, _ = FAILURES[kind]
    response = api.get("/v2/earnings-surprises/AAPL")
    assert response.status_code == status
    assert response.json()["provider"] == "yahoo"


@pytest.mark.parametrize("symbol", ["AAPL", "7203.T"])
def test_through_the_sandbox(api, sandbox_upstream, symbol):
    body = api.get(f"/v2/earnings-surprises/{symbol}").json()
    dates = [row["date"] for row in body["surprises"]]
    assert dates and dates == sorted(dates, reverse=True)
    assert all(row["symbol"] == symbol and row["actualEps"] is not None
               for row in body["surprises"])


# -- keyed sources: FMP's /stable/earnings, then Alpha Vantage's EARNINGS -----------------------
# Bodies hand-written in the documented shapes (no recording of either exists).

FMP_URL = "https://financialmodelingprep.com/stable/earnings"
AV_URL = "https://www.alphavantage.co/query"
FMP_EARNINGS = [
    {"symbol": "AAPL", "date": "2025-05-01", "epsActual": None, "epsEstimated": 1.62,
     "revenueActual": None, "revenueEstimated": 94000000000, "lastUpdated": "2025-02-01"},
    {"symbol": "AAPL", "date": "2025-01-30", "epsActual": 2.4, "epsEstimated": 2.35,
     "revenueActual": 124300000000, "revenueEstimated": 124100000000,
     "lastUpdated": "2025-01-31"},
    {"symbol": "AAPL", "date": "2024-10-31", "epsActual": 0.97, "epsEstimated": 0,
     "revenueActual": 94930000000, "revenueEstimated": 94500000000,
     "lastUpdated": "2024-11-01"},
    {"symbol": "AAPL", "date": "2024-08-01", "epsActual": 1.4, "epsEstimated": None,
     "revenueActual": 85780000000, "revenueEstimated": 84400000000,
     "lastUpdated": "2024-08-02"},
]
AV_EARNINGS = {"symbol": "AAPL", "annualEarnings": [], "quarterlyEarnings": [
    {"fiscalDateEnding": "2024-12-31", "reportedDate": "2025-01-30", "reportedEPS": "2.4",
     "estimatedEPS": "2.34", "surprise": "0.06", "surprisePercentage": "2.5641",
     "reportTime": "post-market"},
    {"fiscalDateEnding": "2024-09-30", "reportedDate": "2024-10-31", "reportedEPS": "0.97",
     "estimatedEPS": "0.95", "surprise": "None", "surprisePercentage": "None",
     "reportTime": "post-market"},
]}


@pytest.fixture
def keyless_fast(settings, monkeypatch):
    settings.FMP_API_KEY = settings.ALPHAVANTAGE_API_KEY = ""
    sources.reset_warnings()
    for module, cls in ((fmp, fmp.FmpProvider), (alphavantage,
                                                 alphavantage.AlphaVantageProvider)):
        monkeypatch.setattr(cls, "config", dataclasses.replace(
            module.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001))
    monkeypatch.setattr(alphavantage, "MIN_INTERVAL_SECONDS", 0.0)
    return settings


def serve_json(yahoo, url: str, body, status: int = 200) -> None:
    yahoo.mock.add(responses.GET, re.compile(re.escape(url) + r"(\?.*)?$"),
                   body=json.dumps(body), status=status, content_type="application/json")


def test_fmp_first_with_its_key(api, yahoo, keyless_fast):
    keyless_fast.FMP_API_KEY = "fmp-key"
    keyless_fast.ALPHAVANTAGE_API_KEY = "av-key"
    serve_json(yahoo, FMP_URL, FMP_EARNINGS)
    response = api.get("/v2/earnings-surprises/AAPL")
    assert response.status_code == 200, response.content
    assert response.json() == {"surprises": [
        {"symbol": "AAPL", "date": "2024-12-31", "actualEps": 2.4, "estimatedEps": 2.35,
         "surprise": 0.05, "surprisePercent": 2.1277},
        {"symbol": "AAPL", "date": "2024-09-30", "actualEps": 0.97, "estimatedEps": 0.0,
         "surprise": 0.97, "surprisePercent": None},
        {"symbol": "AAPL", "date": "2024-06-30", "actualEps": 1.4, "estimatedEps": None,
         "surprise": None, "surprisePercent": None},
    ]}  # the upcoming report (null actual) is left out; quarters end before the report day
    assert not calls_to(yahoo.mock, "alphavantage.co") and \
        not calls_to(yahoo.mock, "/quoteSummary/")


def test_alpha_vantage_with_its_key(api, yahoo, keyless_fast):
    keyless_fast.ALPHAVANTAGE_API_KEY = "av-key"
    serve_json(yahoo, AV_URL, AV_EARNINGS)
    response = api.get("/v2/earnings-surprises/AAPL")
    assert response.json() == {"surprises": [
        {"symbol": "AAPL", "date": "2024-12-31", "actualEps": 2.4, "estimatedEps": 2.34,
         "surprise": 0.06, "surprisePercent": 2.5641},
        {"symbol": "AAPL", "date": "2024-09-30", "actualEps": 0.97, "estimatedEps": 0.95,
         "surprise": 0.02, "surprisePercent": 2.1053},
    ]}
    (call,) = calls_to(yahoo.mock, "alphavantage.co")
    assert "function=EARNINGS" in call.request.url and "apikey=av-key" in call.request.url


def test_keyed_sources_pass_on_to_yahoo(api, yahoo, recording, keyless_fast):
    keyless_fast.FMP_API_KEY = "fmp-key"
    keyless_fast.ALPHAVANTAGE_API_KEY = "av-key"
    serve_json(yahoo, FMP_URL, [])  # FMP has no rows of the symbol
    serve_json(yahoo, AV_URL, {"Information": "Our standard API rate limit is 25 requests "
                                              "per day."})
    yahoo.summary("AAPL", recording(f"{QS}/earningsHistory/AAPL.json"))
    body = api.get("/v2/earnings-surprises/AAPL").json()
    assert [row["date"] for row in body["surprises"]] == [
        "2024-12-31", "2024-09-30", "2024-06-30", "2024-03-31"]
    assert body["surprises"][0]["surprise"] == 0.06  # Yahoo's epsDifference


def test_refused_fmp_key_falls_back_to_alpha_vantage(api, yahoo, keyless_fast):
    keyless_fast.FMP_API_KEY = "fmp-key"
    keyless_fast.ALPHAVANTAGE_API_KEY = "av-key"
    serve_json(yahoo, FMP_URL, {"Error Message": "Invalid API KEY."}, status=401)
    serve_json(yahoo, AV_URL, AV_EARNINGS)
    assert api.get("/v2/earnings-surprises/AAPL").json()["surprises"][0]["surprise"] == 0.06


def test_keyed_sources_without_data_leave_the_404_to_yahoo(api, yahoo, recording,
                                                           keyless_fast):
    keyless_fast.ALPHAVANTAGE_API_KEY = "av-key"
    serve_json(yahoo, AV_URL, {})
    yahoo.summary("OCDO.L", recording(f"{QS}/earningsHistory/OCDO.L.json"))
    response = api.get("/v2/earnings-surprises/OCDO.L")
    assert response.status_code == 404


@pytest.mark.parametrize("keys", [{"FMP_API_KEY": "fmp-key"},
                                  {"ALPHAVANTAGE_API_KEY": "av-key"}])
@pytest.mark.parametrize("symbol", ["AAPL", "SPY", "SAP.DE"])
def test_keyed_sources_through_the_sandbox(api, sandbox_upstream, keyless_fast, keys, symbol):
    for name, value in keys.items():
        setattr(keyless_fast, name, value)
    keyed = api.get(f"/v2/earnings-surprises/{symbol}")
    keyless_fast.FMP_API_KEY = keyless_fast.ALPHAVANTAGE_API_KEY = ""
    keyless = api.get(f"/v2/earnings-surprises/{symbol}")
    assert keyed.status_code == keyless.status_code
    if symbol == "SPY":
        assert keyed.status_code == 404  # a fund has no earnings, whoever is asked
        return
    # The sandbox's sources agree on the quarters and EPS (surprises: each source's own).
    strip = [{k: v for k, v in row.items() if k in ("date", "actualEps", "estimatedEps")}
             for row in keyed.json()["surprises"]]
    assert strip == [{k: v for k, v in row.items() if k in ("date", "actualEps",
                                                             "estimatedEps")}
                     for row in keyless.json()["surprises"]]
