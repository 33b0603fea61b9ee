"""The companies EDGAR knows in the sandbox, and their CIKs.

The universe: the famous US-listed equities (Alibaba too: a foreign issuer, which files
6-K and 20-F, never 8-K) and every member of the sandbox's S&P 500 and Nasdaq-100
(:mod:`marketdata.sandbox.index_members`, which include the screener's universe). Any
other ticker is unknown to EDGAR (``company_tickers.json`` does not list it).

CIKs: the real ones for the famous companies (Alphabet's GOOGL and GOOG share 1652044, as
on EDGAR); the others from sha256 of the ticker in 1,100,000..1,899,999, moved up by one
while taken, in ticker order (so the same in every run).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from marketdata.sandbox.index_members import FOREIGN_ISSUERS, nasdaq100, sp500
from marketdata.sandbox.instruments import EQUITY, FAMOUS, Instrument, get_instrument, stable_hash

REAL_CIKS = {
    "AAPL": 320193, "MSFT": 789019, "NVDA": 1045810, "GOOGL": 1652044, "GOOG": 1652044,
    "AMZN": 1018724, "META": 1326801, "TSLA": 1318605, "NFLX": 1065280, "AMD": 2488,
    "INTC": 50863, "BABA": 1577552, "JPM": 19617, "V": 1403161, "BRK-B": 1067983,
    "KO": 21344, "DIS": 1744489,
}


@dataclass(frozen=True)
class Company:
    """One filer: its CIK, its tickers (the first names it) and its instrument."""

    cik: int
    tickers: tuple[str, ...]

    @property
    def ticker(self) -> str:
        return self.tickers[0]

    @property
    def instrument(self) -> Instrument:
        inst = get_instrument(self.ticker)
        assert inst is not None  # every ticker of the universe is a sandbox equity
        return inst

    @property
    def name(self) -> str:
        return self.instrument.long_name or self.instrument.short_name

    @property
    def foreign(self) -> bool:
        return self.ticker in FOREIGN_ISSUERS

    @property
    def exchange(self) -> str:
        return "NYSE" if self.instrument.exchange.code == "NYQ" else "Nasdaq"


@lru_cache(maxsize=1)
def tickers() -> tuple[str, ...]:
    famous = [s for s, row in FAMOUS.items() if row[0] == EQUITY]
    return tuple(sorted(set(famous) | set(sp500()) | set(nasdaq100())))


@lru_cache(maxsize=1)
def _ciks() -> dict[str, int]:
    out = {t: REAL_CIKS[t] for t in tickers() if t in REAL_CIKS}
    taken = set(out.values())
    for ticker in tickers():
        if ticker in out:
            continue
        cik = 1_100_000 + stable_hash("sandbox-cik", ticker) % 800_000
        while cik in taken:
            cik += 1
        taken.add(cik)
        out[ticker] = cik
    return out


def cik_for(ticker: str) -> int | None:
    """The CIK of a sandbox ticker (Yahoo/EDGAR spelling, ``BRK-B``), None when EDGAR
    does not know it."""
    return _ciks().get(ticker.upper())


@lru_cache(maxsize=1)
def _companies() -> dict[int, Company]:
    by_cik: dict[int, list[str]] = {}
    for ticker, cik in _ciks().items():
        by_cik.setdefault(cik, []).append(ticker)
    # The company's first ticker: its class A (GOOGL before GOOG), else the shortest.
    return {cik: Company(cik, tuple(sorted(names, key=lambda t: (t != "GOOGL", len(t), t))))
            for cik, names in by_cik.items()}


def company(cik: int) -> Company | None:
    return _companies().get(cik)


def all_companies() -> list[Company]:
    """Every company, largest first (by the instruments' 2025-01-02 market value), as
    ``company_tickers.json`` orders them."""
    def size(c: Company) -> float:
        inst = c.instrument
        return inst.anchor_price * max(inst.shares_outstanding, 1)

    return sorted(_companies().values(), key=lambda c: (-size(c), c.cik))
