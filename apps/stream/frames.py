"""The WebSocket streams' client frames: parsed and checked before anything is subscribed.

``/v2/stream`` takes one JSON object per text frame with any of three members, applied in
this order: ``subscribe`` (a list of symbols), ``alerts`` (the complete rule list, replacing
the previous one; ``[]`` turns alerts off) and ``unsubscribe`` (a list of symbols).
``/v2/feeds/stream`` takes ``subscribe``/``unsubscribe`` lists of feed slugs and an optional
``formType``. Anything else (a binary frame, text that is not a JSON object, an unknown
member, a member of the wrong type, a malformed symbol) is answered with an error frame
``{"error": ..., "status": 400}`` and changes nothing; the connection stays open.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import orjson

from apps.stream.alerts import CONDITIONS, Rule
from marketdata.records.quotes import TICK_KINDS, TICK_MEMBERS
from marketdata.symbols import normalize_symbol

QUOTE_MEMBERS = ("subscribe", "unsubscribe", "alerts")
FEED_MEMBERS = ("subscribe", "unsubscribe", "formType")


class FrameError(ValueError):
    """A client frame that cannot be applied; its message goes into the error frame."""


# What an error frame quotes of the client's frame: a few names, each cut short. Echoing all
# of it would let a client have the server build and queue frames as large as its own.
QUOTED_NAMES = 5
QUOTED_CHARS = 40


def error_frame(message: str, status: int = 400, **extra: Any) -> dict[str, Any]:
    return {"error": message, "status": status, **extra}


def limit_frame(message: str, setting: str, maximum: int) -> dict[str, Any]:
    """An error frame for a frame that would pass one of the connection's limits: the
    setting that holds it, and its value."""
    return error_frame(message, 400, limit=setting, maximum=maximum)


def quoted(values: list[Any]) -> str:
    """Some of ``values`` for an error message: the first few, each cut short."""
    shown = []
    for value in values[:QUOTED_NAMES]:
        text = repr(value)
        shown.append(text if len(text) <= QUOTED_CHARS else f"{text[:QUOTED_CHARS - 3]}...")
    more = len(values) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def decode(text: str | None, members: tuple[str, ...]) -> dict[str, Any]:
    """A text frame's JSON object, with only ``members``, at least one of them."""
    if text is None:
        raise FrameError("Send text frames holding a JSON object")
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise FrameError("A frame must be a JSON object") from None
    if not isinstance(data, dict):
        raise FrameError("A frame must be a JSON object")
    unknown = [name for name in data if name not in members]
    if unknown:
        raise FrameError(f"Unknown member{'s' if len(unknown) > 1 else ''}: "
                         f"{quoted(unknown)}; a frame takes {', '.join(members)}")
    if not data:
        raise FrameError(f"An empty frame; a frame takes {', '.join(members)}")
    return data


class LimitError(FrameError):
    """A frame past one of the connection's limits: the error frame names the setting."""

    def __init__(self, message: str, setting: str, maximum: int) -> None:
        super().__init__(message)
        self.setting, self.maximum = setting, maximum

    def frame(self) -> dict[str, Any]:
        return limit_frame(str(self), self.setting, self.maximum)


def string_list(data: dict[str, Any], name: str, limit: int, setting: str) -> list[str]:
    """Member ``name`` as a list of strings (absent: []) of at most ``limit`` items."""
    value = data.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FrameError(f"'{name}' must be a list of strings")
    if len(value) > limit:
        raise LimitError(f"'{name}' lists {len(value)} items; at most {limit} ({setting})",
                         setting, limit)
    return value


def symbols(values: list[str], name: str) -> list[str]:
    """Symbols in their canonical form (upper case, trimmed), order kept, without repeats;
    a malformed one is the frame's error."""
    out: list[str] = []
    bad = []
    for value in values:
        symbol = normalize_symbol(value)
        if symbol is None:
            bad.append(value)
        elif symbol not in out:
            out.append(symbol)
    if bad:
        raise FrameError(f"'{name}' has malformed symbols: {quoted(bad)}")
    return out


@dataclass
class QuoteFrame:
    """A checked ``/v2/stream`` frame."""

    subscribe: list[str] = field(default_factory=list)
    unsubscribe: list[str] = field(default_factory=list)
    alerts: list[Rule] | None = None  # None: the frame does not touch the rules


def parse_rule(index: int, raw: Any, name: str = "alerts") -> Rule:
    """One alert rule ``{symbol, condition, value, repeat}`` of a list member ``name``."""
    where = f"{name}[{index}]"
    if not isinstance(raw, dict):
        raise FrameError(f"{where} must be an object {{symbol, condition, value, repeat}}")
    unknown = [k for k in raw if k not in ("symbol", "condition", "value", "repeat")]
    if unknown:
        raise FrameError(f"{where} has unknown members: {quoted(unknown)}")
    symbol = normalize_symbol(raw["symbol"]) if isinstance(raw.get("symbol"), str) else None
    if symbol is None:
        raise FrameError(f"{where}.symbol must be a symbol")
    condition = raw.get("condition")
    if condition not in CONDITIONS:
        raise FrameError(f"{where}.condition must be one of {', '.join(CONDITIONS)}")
    value = raw.get("value")
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not math.isfinite(value):
        raise FrameError(f"{where}.value must be a finite number")
    repeat = raw.get("repeat", False)
    if not isinstance(repeat, bool):
        raise FrameError(f"{where}.repeat must be true or false")
    return Rule(symbol, condition, value, repeat)


def quote_frame(text: str | None, max_symbols: int, max_rules: int) -> QuoteFrame:
    """Parse a ``/v2/stream`` client frame (FrameError when it cannot be applied)."""
    data = decode(text, QUOTE_MEMBERS)
    frame = QuoteFrame(
        subscribe=symbols(string_list(data, "subscribe", max_symbols, "WS_MAX_SYMBOLS"),
                          "subscribe"),
        unsubscribe=symbols(string_list(data, "unsubscribe", max_symbols, "WS_MAX_SYMBOLS"),
                            "unsubscribe"))
    if "alerts" in data:
        raw = data["alerts"]
        if not isinstance(raw, list):
            raise FrameError("'alerts' must be a list of rules")
        if len(raw) > max_rules:
            raise LimitError(f"'alerts' lists {len(raw)} rules; a connection holds at most "
                             f"{max_rules} (WS_MAX_ALERT_RULES)", "WS_MAX_ALERT_RULES",
                             max_rules)
        frame.alerts = [parse_rule(i, r) for i, r in enumerate(raw)]
    return frame


# -- server frames ------------------------------------------------------------------------------
# A tick member's JSON type by its kind on the streamer's wire (TICK_KINDS).
_TICK_JSON_TYPES = {"string": "string", "enum": "string", "float": "number",
                    "double": "number", "sint": "integer"}


def tick_schema() -> dict[str, Any]:
    """The JSON Schema of a tick frame (``/v2/stream``): every member of
    :data:`~marketdata.records.quotes.TICK_MEMBERS`, always present, null where unknown,
    typed by its kind on the streamer's wire."""
    return {"type": "object", "description": "A quote as it ticks: every member present, "
            "null where the quote has no value (`/docs/websockets`)",
            "properties": {name: {"type": [_TICK_JSON_TYPES[kind], "null"]}
                           for name, kind in zip(TICK_MEMBERS, TICK_KINDS, strict=True)},
            "required": list(TICK_MEMBERS)}
