"""Who is in the sandbox's S&P 500, Nasdaq-100 and Dow Jones Industrial Average.

Why a module of its own: the Wikipedia pages list these members and the EDGAR simulator
gives each of them a CIK (the S&P table's CIK column is EDGAR's), so both read one list.

- S&P 500: 503 symbols (502 companies: Alphabet lists GOOGL and GOOG): the famous US
  equities (not Alibaba, a foreign issuer), the screener's universe, ``BF-B`` (a class
  share, which the page writes ``BF.B``), then generated 3-4 letter tickers (sha256 of a
  counter) that the sandbox treats as equities. Symbols are in Yahoo's spelling here.
- Nasdaq-100: 101 S&P members listed on Nasdaq (the sandbox instrument's exchange): the
  famous ones, then the others by hash rank.
- Dow: 30 S&P members: eleven famous blue chips, then the others by hash rank.
"""

from __future__ import annotations

import string
from functools import lru_cache

from marketdata.sandbox.instruments import (
    EQUITY,
    FAMOUS,
    KNOWN_ETFS,
    get_instrument,
    is_known_symbol,
    known_instrument,
    stable_hash,
)
from marketdata.sandbox.yahoo.screener import universe

SP500_SIZE = 503
NASDAQ100_SIZE = 101
DOW_SIZE = 30
FOREIGN_ISSUERS = frozenset({"BABA"})
# Class shares, written with a dot on Wikipedia (BRK-B is famous already).
_DOTTED = ("BF-B",)
_DOW_FAMOUS = ("AAPL", "MSFT", "NVDA", "AMZN", "JPM", "V", "KO", "DIS", "INTC", "BRK-B",
               "META")
_NASDAQ_CODES = frozenset({"NMS", "NGM", "NCM"})


def _ticker(i: int) -> str:
    h = stable_hash("sandbox-sp500-ticker", i)
    letters = string.ascii_uppercase
    return "".join(letters[(h >> (8 + 5 * k)) % 26] for k in range(3 + h % 2))


def is_equity(symbol: str) -> bool:
    inst = get_instrument(symbol)
    return inst is not None and inst.kind == EQUITY


@lru_cache(maxsize=1)
def sp500() -> tuple[str, ...]:
    """The S&P 500 members, in the order they were chosen (the page sorts them)."""
    famous = [s for s, row in FAMOUS.items() if row[0] == EQUITY and s not in FOREIGN_ISSUERS]
    chosen = list(dict.fromkeys([*famous, *universe(), *_DOTTED]))
    chosen = [s for s in chosen if s not in FOREIGN_ISSUERS and is_equity(s)]
    seen = set(chosen)
    i = 0
    while len(chosen) < SP500_SIZE:
        sym = _ticker(i)
        i += 1
        if sym in seen or sym in FAMOUS or sym in KNOWN_ETFS or not is_known_symbol(sym) \
                or not is_equity(sym):
            continue
        seen.add(sym)
        chosen.append(sym)
    return tuple(chosen)


def _ranked(symbols: list[str], salt: str) -> list[str]:
    return sorted(symbols, key=lambda s: stable_hash(salt, s))


@lru_cache(maxsize=1)
def nasdaq100() -> tuple[str, ...]:
    listed = [s for s in sp500() if known_instrument(s).exchange.code in _NASDAQ_CODES]
    famous = [s for s in listed if s in FAMOUS]
    rest = _ranked([s for s in listed if s not in FAMOUS], "sandbox-ndx")
    return tuple((famous + rest)[:NASDAQ100_SIZE])


@lru_cache(maxsize=1)
def dow30() -> tuple[str, ...]:
    rest = _ranked([s for s in sp500() if s not in _DOW_FAMOUS], "sandbox-dow")
    return tuple((list(_DOW_FAMOUS) + rest)[:DOW_SIZE])


def members(index: str) -> tuple[str, ...]:
    """``sp500``, ``nasdaq100`` or ``dowjones``."""
    return {"sp500": sp500, "nasdaq100": nasdaq100, "dowjones": dow30}[index]()
