"""Server-Sent Events wire format and channel-layer group names for the quote stream."""

from __future__ import annotations

import re
from typing import Any

import orjson

# Channel-layer group names allow ASCII letters, digits, '-', '_' and '.', under 100
# characters; symbols also use '^' and '=' (^GSPC, EURUSD=X), so other bytes are escaped.
_GROUP_UNSAFE = re.compile(r"[^A-Za-z0-9.\-]")
GROUP_PREFIX = "md.quote."


def quote_group(symbol: str) -> str:
    """The group a symbol's poller publishes to: ``md.quote.`` + the escaped symbol."""
    return GROUP_PREFIX + _GROUP_UNSAFE.sub(lambda m: f"_{ord(m.group()):02X}", symbol)


def sse_event(name: str, data: Any) -> bytes:
    """One event block: ``event: <name>``, ``data: <compact JSON>``, blank line.

    Compact JSON never contains a newline, so the data always fits one ``data:`` line.
    """
    return b"event: " + name.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


def sse_retry(milliseconds: int) -> bytes:
    """The reconnection delay an EventSource should use (a block that dispatches nothing)."""
    return b"retry: %d\n\n" % milliseconds


HEARTBEAT = b": keep-alive\n\n"  # a comment line: ignored by clients, keeps proxies awake
