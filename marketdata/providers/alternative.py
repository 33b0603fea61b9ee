"""alternative.me (keyless): the crypto market's Fear & Greed Index behind
``/v2/fear-and-greed``.

Call: ``GET https://api.alternative.me/fng/?limit=1&format=json`` ->
``{"name": "Fear and Greed Index", "data": [{"value": "54", "value_classification":
"Neutral", "timestamp": "1766016000", "time_until_update": "..."}], "metadata": {"error":
null}}``. Numbers come as strings. The index measures Bitcoin and the large coins (price
volatility, momentum, social media, dominance, search trends), not the stock market.

What becomes a 502 naming the provider: a body that is not JSON or has no reading; an
``error`` in ``metadata``; a value that is not a whole number from 0 to 100; a
classification other than the five bands; a timestamp that is not Unix seconds. Statuses:
the client's map (429, 5xx, timeouts), other 4xx a 502.
"""

from __future__ import annotations

from typing import Any

from marketdata.http import ProviderConfig
from marketdata.providers.base import Provider
from marketdata.providers.registry import get_provider
from marketdata.records.gauges import FEAR_AND_GREED_LABELS, FearAndGreed

PROVIDER = ProviderConfig(name="alternative", display_name="alternative.me",
                          connect_timeout=3.0, read_timeout=6.0, max_attempts=2,
                          hosts=("api.alternative.me",))
FNG_URL = "https://api.alternative.me/fng/"
# The index is recomputed once a day; 15 minutes keeps a new day's reading close.
POLICY = "general_news"


def _whole(raw: Any) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str) and raw.strip().isdigit():
        return int(raw.strip())
    return None


def parse_fear_and_greed(payload: Any) -> FearAndGreed:
    """The latest reading of ``/fng/`` (see the module doc for what is refused)."""
    if not isinstance(payload, dict):
        raise PROVIDER.bad_answer("returned a body that is not an object for the Fear & "
                                  "Greed Index")
    metadata = payload.get("metadata")
    if isinstance(metadata, dict) and metadata.get("error"):
        raise PROVIDER.bad_answer("answered the Fear & Greed Index with an error")
    data = payload.get("data")
    row = data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else None
    if row is None:
        raise PROVIDER.bad_answer("returned no Fear & Greed Index reading")
    value = _whole(row.get("value"))
    if value is None or not 0 <= value <= 100:
        raise PROVIDER.bad_answer("returned a Fear & Greed Index value outside 0-100")
    label = row.get("value_classification")
    if label not in FEAR_AND_GREED_LABELS:
        raise PROVIDER.bad_answer("returned an unknown Fear & Greed Index classification")
    timestamp = _whole(row.get("timestamp"))
    if timestamp is None:
        raise PROVIDER.bad_answer("returned a Fear & Greed Index reading without a time")
    return FearAndGreed(value=value, classification=label, timestamp=timestamp)


class AlternativeProvider(Provider):
    """Keyless, plain GETs."""

    config = PROVIDER


def alternative_provider() -> AlternativeProvider:
    return get_provider(PROVIDER.name)


# -- fetchers (the capability table's) ------------------------------------------------------
def fear_and_greed() -> FearAndGreed:
    """The ``fear_and_greed`` fetcher: the latest reading, cached 15 minutes."""
    provider = alternative_provider()
    params = {"limit": 1, "format": "json"}
    return provider.cached(
        "fng", params,
        lambda: parse_fear_and_greed(provider.get_json("fng", FNG_URL, params)),
        POLICY, group="gauges")
