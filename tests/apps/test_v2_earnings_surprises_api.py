"""GET /v2/earnings-surprises/{symbol}: Yahoo's earningsHistory recordings through the
endpoint (values exact, newest first, percent units), the statuses, and the sandbox."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

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
