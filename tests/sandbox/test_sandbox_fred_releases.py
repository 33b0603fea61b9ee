"""The simulated FRED release calendar (/fred/releases/dates): the key, the window, FRED's
"no data" rule, order and paging, in FRED's JSON shape."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from marketdata.sandbox import UpstreamSandbox

HOST = "api.stlouisfed.org"
CLOCK = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def get(**query: str) -> tuple[int, Any]:
    params = {"file_type": "json", "api_key": "sandbox-key"} | query
    answer = UpstreamSandbox(clock=lambda: CLOCK).handle(
        "GET", HOST, "/fred/releases/dates", {k: [v] for k, v in params.items() if v}, {})
    return answer.status, json.loads(answer.body)


def test_future_dates_need_include_release_dates_with_no_data():
    status, body = get(realtime_start="2026-11-25", realtime_end="2026-12-31")
    assert status == 200
    assert list(body) == ["realtime_start", "realtime_end", "order_by", "sort_order", "count",
                          "offset", "limit", "release_dates"]
    assert max(r["date"] for r in body["release_dates"]) == "2026-12-01"  # today at most
    _, future = get(realtime_start="2026-12-01", realtime_end="2026-12-31",
                    include_release_dates_with_no_data="true")
    rows = future["release_dates"]
    assert {"release_id": 10, "release_name": "Consumer Price Index",
            "date": "2026-12-16"} in rows
    assert [r["date"] for r in rows] == sorted(r["date"] for r in rows)
    assert len([r for r in rows if r["release_id"] == 86]) == 31  # the daily "no data" fill


@pytest.mark.slow("builds every release's dates for every page and order")
def test_key_paging_and_order():
    assert get(api_key="")[0] == 400
    status, body = get(api_key="INVALID-key")
    assert status == 400 and "not registered" in body["error_message"]
    window = {"realtime_start": "2026-12-01", "realtime_end": "2026-12-31",
              "include_release_dates_with_no_data": "true"}
    _, whole = get(**window)
    _, page = get(**window, limit="5", offset="5")
    assert page["release_dates"] == whole["release_dates"][5:10]
    assert page["count"] == whole["count"] and page["limit"] == 5
    _, desc = get(**window, sort_order="desc")
    assert desc["release_dates"] == whole["release_dates"][::-1]
    assert get(**window, limit="1001")[0] == 400
