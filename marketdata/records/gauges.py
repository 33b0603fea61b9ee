"""Market gauges: single readings that sum up a market's mood (the crypto market's Fear &
Greed Index behind ``/v2/fear-and-greed``), whichever source served them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from marketdata.records.members import member

# The index's five bands, lowest to highest, in its publisher's words.
FEAR_AND_GREED_LABELS = ("Extreme Fear", "Fear", "Neutral", "Greed", "Extreme Greed")


@dataclass(frozen=True)
class FearAndGreed:
    """One reading: ``value`` 0 (extreme fear) to 100 (extreme greed), ``classification``
    one of :data:`FEAR_AND_GREED_LABELS`, ``timestamp`` the reading's time in Unix seconds,
    ``market`` the market it measures."""

    value: int = member("0 extreme fear .. 100 extreme greed",
                        schema={"minimum": 0, "maximum": 100})
    classification: str = member(schema={"enum": list(FEAR_AND_GREED_LABELS)})
    timestamp: int = member("The reading's time, Unix seconds")
    market: Literal["crypto"] = member(
        "The market the index measures: always `crypto` (alternative.me's index of Bitcoin "
        "and large coins, not CNN's stock-market index)", default="crypto")
