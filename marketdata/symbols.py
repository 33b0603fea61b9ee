"""Ticker symbol validation: nothing reaches an upstream URL unless it passes here.

Yahoo symbols use letters, digits and ``. - = ^ &`` (``BRK-B``, ``^GSPC``, ``EURUSD=X``,
``0700.HK``, ``M&M.NS``). The pattern below admits those and nothing that could change the
shape of an upstream URL (``/``, ``%``, ``?``, ``#``, whitespace, ``..``); providers still
URL-encode the symbol when they build a path.
"""

from __future__ import annotations

import re

MAX_SYMBOL_LENGTH = 24
_SYMBOL = re.compile(r"^\^?[A-Z0-9][A-Z0-9.\-=&]*$")


def normalize_symbol(text: str) -> str | None:
    """The canonical (upper-case, trimmed) symbol, or None when it is not a valid symbol."""
    if not text.isascii():  # before upper(): 'ß'.upper() == 'SS' would slip through
        return None
    symbol = text.strip().upper()
    if not symbol or len(symbol) > MAX_SYMBOL_LENGTH or ".." in symbol:
        return None
    if not _SYMBOL.match(symbol):
        return None
    return symbol


def upper_if_ascii(text: str) -> str:
    """``text`` trimmed and upper-cased when it is ASCII, else as typed: a case change must
    never turn non-ASCII into a valid name (the long s upper-cases to ``S``). For names
    that are not symbols (indicator functions); symbols go through :func:`normalize_symbol`."""
    return text.strip().upper() if text.isascii() else text


def split_symbols(text: str) -> list[str]:
    """Comma list -> non-empty items in request order, duplicates removed.

    Every item goes through :func:`normalize_symbol`, the one symbol check (ASCII before any
    case change, so "spy" spelt with a long s never becomes ``SPY``): a valid item becomes
    its canonical symbol, which de-duplicates ``aapl,AAPL``; an invalid one is kept as typed
    (stripped, case untouched) so the caller can report or drop it; it can never resolve.
    """
    seen: dict[str, None] = {}
    for raw in text.split(","):
        item = normalize_symbol(raw) or raw.strip()
        if item and item not in seen:
            seen[item] = None
    return list(seen)


def display_symbol(text: str, limit: int = 40) -> str:
    """A user-supplied symbol made safe to echo in an error message."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in text)
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"
