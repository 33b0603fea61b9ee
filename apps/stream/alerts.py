"""Price alerts of the WebSocket stream: rules a client sets, checked against every tick.

A rule is ``{symbol, condition, value, repeat}`` with one of seven conditions:

- ``crossesAbove``: the previous price was at or below ``value`` and this one is above it;
- ``crossesBelow``: the previous price was at or above ``value`` and this one is below it
  (both need a previous price, so never on a symbol's first tick);
- ``priceAbove`` / ``priceBelow``: the price is above / below ``value``;
- ``percentChangeAbove`` / ``percentChangeBelow``: the day's change in percent is at or
  above / at or below ``value``;
- ``volumeAbove``: the day's volume is at or above ``value`` (whole shares).

A rule fires once; with ``repeat`` it fires again after its condition has been false on a
later tick. A tick without a price (or a zero price, as Yahoo sends for a missing trade) does
not move the previous price.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

CONDITIONS = ("crossesAbove", "crossesBelow", "priceAbove", "priceBelow",
              "percentChangeAbove", "percentChangeBelow", "volumeAbove")


@dataclass
class Rule:
    symbol: str
    condition: str
    value: float
    repeat: bool = False
    armed: bool = field(default=True, compare=False)

    def holds(self, tick: dict[str, Any], previous: float | None) -> bool:
        price, value = tick.get("price"), self.value
        if self.condition in ("percentChangeAbove", "percentChangeBelow"):
            change = tick.get("changePercent")
            if not isinstance(change, int | float):
                return False
            return change >= value if self.condition == "percentChangeAbove" else change <= value
        if self.condition == "volumeAbove":
            volume = tick.get("dayVolume")
            return isinstance(volume, int | float) and volume >= math.trunc(value)
        if not isinstance(price, int | float) or price == 0:
            return False
        if self.condition == "priceAbove":
            return price > value
        if self.condition == "priceBelow":
            return price < value
        if previous is None:
            return False
        if self.condition == "crossesAbove":
            return previous <= value < price
        return previous >= value > price  # crossesBelow


class AlertBook:
    """One connection's rules and the previous price of each of their symbols."""

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        self.previous: dict[str, float] = {}

    @property
    def symbols(self) -> list[str]:
        return list(dict.fromkeys(rule.symbol for rule in self.rules))

    def check(self, tick: dict[str, Any]) -> list[dict[str, Any]]:
        """The alert frames ``tick`` fires, in rule order; then remember its price."""
        symbol = tick.get("id")
        previous = self.previous.get(symbol) if isinstance(symbol, str) else None
        fired = []
        for rule in self.rules:
            if rule.symbol != symbol:
                continue
            if not rule.holds(tick, previous):
                if rule.repeat:
                    rule.armed = True
                continue
            if rule.armed:
                rule.armed = False
                fired.append(alert_frame(rule, tick, previous))
        price = tick.get("price")
        if isinstance(symbol, str) and isinstance(price, int | float) and price != 0:
            self.previous[symbol] = float(price)
        return fired


def alert_frame(rule: Rule, tick: dict[str, Any], previous: float | None) -> dict[str, Any]:
    return {"symbol": rule.symbol, "condition": {rule.condition: rule.value},
            "price": tick.get("price"), "previousPrice": previous,
            "changePercent": tick.get("changePercent"), "time": tick.get("time"),
            "update": tick}


def alert_schema(tick: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of an alert frame (:func:`alert_frame`); ``tick``: the tick frame's
    (:func:`apps.stream.frames.tick_schema`). ``condition`` is an object with the one
    condition that fired, keyed by its name, holding the rule's value."""
    number = {"type": ["number", "null"]}
    return {"type": "object", "description": "A price alert rule fired",
            "properties": {
                "symbol": {"type": "string", "description": "The rule's symbol"},
                "condition": {"type": "object", "description": (
                    "The condition that fired, named by its member: the rule's value"),
                    "properties": {name: {"type": "number"} for name in CONDITIONS}},
                "price": {**number, "description": "The tick's price"},
                "previousPrice": {**number, "description": (
                    "The previous tick's price; null on a symbol's first tick")},
                "changePercent": {**number, "description": "The day's change in percent"},
                "time": {"type": ["integer", "null"],
                         "description": "The tick's time, epoch milliseconds"},
                "update": {**tick, "description": "The tick that fired the rule"}}}
