"""alternative.me's route table and its simulated provider (host ``api.alternative.me``).

``GET /fng/?limit=N&format=json``: alternative.me's answer ``{"name", "data": [{"value",
"value_classification", "timestamp", "time_until_update"}], "metadata": {"error"}}``,
numbers as strings, newest reading first, one a day at 00:00 UTC. Why these values: the
index is drawn per day (seeded by the date) from 5 to 95 and classified with
alternative.me's bands (0-24 Extreme Fear, 25-46 Fear, 47-54 Neutral, 55-75 Greed, 76-100
Extreme Greed), so a day's reading is the same in every run. ``limit`` defaults to 1
(0 means all: 30 days here). Other paths: alternative.me's JSON 404.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from marketdata.sandbox.common import Request, json_response
from marketdata.sandbox.instruments import stable_hash
from marketdata.sandbox.providers import Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse

HOSTS = ("api.alternative.me",)
_BANDS = ((24, "Extreme Fear"), (46, "Fear"), (54, "Neutral"), (75, "Greed"),
          (100, "Extreme Greed"))


def classification(value: int) -> str:
    return next(label for top, label in _BANDS if value <= top)


def reading(day: datetime) -> dict[str, str]:
    value = 5 + stable_hash("fng", day.date()) % 91
    return {"value": str(value), "value_classification": classification(value),
            "timestamp": str(int(day.timestamp()))}


def handle_fng(req: Request) -> SandboxResponse:
    now = req.clock().astimezone(UTC)
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    limit = req.int_arg("limit", 1)
    count = 30 if not limit or limit < 0 else min(limit, 30)
    data = [reading(today - timedelta(days=n)) for n in range(count)]
    data[0]["time_until_update"] = str(int((today + timedelta(days=1) - now).total_seconds()))
    return json_response({"name": "Fear and Greed Index", "data": data,
                          "metadata": {"error": None}})


ROUTES = (
    Route(("GET",), re.compile(r"/fng/?"), handle_fng),
)


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    return json_response({"data": [], "metadata": {"error": description}}, status)


def _not_found() -> SandboxResponse:
    return json_response({"data": [], "metadata": {"error": "Not found"}}, 404)


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """alternative.me: stateless and keyless."""
    return SimulatedProvider(name="alternative", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=_not_found)
