"""Symbol -> synthetic instrument (kind, names, venue, currency, price level, fundamentals).

Why: the sandbox must answer for *any* plausible symbol, the same way every time, and look
like Yahoo for the famous ones. Everything not in the small tables below is derived from a
stable hash of the symbol (sha256, never Python's salted ``hash()``).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import TypeVar

from marketdata.sandbox.corporate_actions import SYNTHETIC, Dividends, actions_for
from marketdata.sandbox.sessions import VENUES, Venue, local_epoch

T = TypeVar("T")

SYMBOL_RE = re.compile(r"\^?[A-Z0-9][A-Z0-9.\-=&]{0,15}")
_UNKNOWN_MARKERS = ("INVALID", "NOTFOUND", "UNKNOWN")

EQUITY = "EQUITY"
ETF = "ETF"
INDEX = "INDEX"
CURRENCY = "CURRENCY"
CRYPTO = "CRYPTOCURRENCY"
FUTURE = "FUTURE"
MUTUALFUND = "MUTUALFUND"

TYPE_DISP = {EQUITY: "Equity", ETF: "ETF", INDEX: "Index", CURRENCY: "Currency",
             CRYPTO: "Cryptocurrency", FUTURE: "Futures", MUTUALFUND: "Fund"}


def stable_hash(*parts: object) -> int:
    """64-bit integer from sha256 of the parts: identical in every process and run."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def unit(*parts: object) -> float:
    """Deterministic float in [0, 1) from the parts."""
    return stable_hash(*parts) / 2.0**64


def pick(seq: Sequence[T], *parts: object) -> T:
    """Deterministic choice from a sequence."""
    return seq[stable_hash(*parts) % len(seq)]


def normalize_symbol(raw: str) -> str:
    return raw.strip().upper()


def is_known_symbol(symbol: str) -> bool:
    """The sandbox's unknown-symbol rule (documented in README.md)."""
    sym = normalize_symbol(symbol)
    if not SYMBOL_RE.fullmatch(sym):
        return False
    if any(marker in sym for marker in _UNKNOWN_MARKERS):
        return False
    return not sym.lstrip("^").startswith("ZZZZ")


@dataclass(frozen=True)
class Exchange:
    code: str
    full_name: str
    market: str
    venue_key: str
    currency: str
    quote_source: str = "Delayed Quote"
    delay: int = 15


US_EXCHANGES = {
    "NMS": Exchange("NMS", "NasdaqGS", "us_market", "US", "USD", "Nasdaq Real Time Price", 0),
    "NYQ": Exchange("NYQ", "NYSE", "us_market", "US", "USD", "Nasdaq Real Time Price", 0),
    "NGM": Exchange("NGM", "NasdaqGM", "us_market", "US", "USD", "Nasdaq Real Time Price", 0),
    "NCM": Exchange("NCM", "NasdaqCM", "us_market", "US", "USD", "Nasdaq Real Time Price", 0),
    "PCX": Exchange("PCX", "NYSEArca", "us_market", "US", "USD", "Nasdaq Real Time Price", 0),
    "NAS": Exchange("NAS", "Nasdaq", "us_market", "US", "USD", "Delayed Quote", 0),
    "SNP": Exchange("SNP", "SNP", "us_market", "US", "USD", "Free Realtime Quote", 0),
    "DJI": Exchange("DJI", "DJI", "us_market", "US", "USD", "Delayed Quote", 0),
    "NIM": Exchange("NIM", "Nasdaq GIDS", "us_market", "US", "USD", "Free Realtime Quote", 0),
    "CXI": Exchange("CXI", "Cboe Indices", "us_market", "US", "USD", "Delayed Quote", 15),
    "WCB": Exchange("WCB", "Chicago Options", "us_market", "US", "USD", "Delayed Quote", 15),
}

SUFFIX_EXCHANGES = {
    "L": Exchange("LSE", "LSE", "gb_market", "LSE", "GBp", "Delayed Quote", 20),
    "HK": Exchange("HKG", "HKSE", "hk_market", "HKG", "HKD", "Delayed Quote", 15),
    "DE": Exchange("GER", "XETRA", "de_market", "GER", "EUR", "Delayed Quote", 15),
    "TO": Exchange("TOR", "Toronto", "ca_market", "TOR", "CAD", "Delayed Quote", 15),
    "JK": Exchange("JKT", "Jakarta", "id_market", "JKT", "IDR", "Delayed Quote", 10),
    "IS": Exchange("IST", "Istanbul", "tr_market", "IST", "TRY", "Delayed Quote", 15),
    "MI": Exchange("MIL", "Milan", "it_market", "MIL", "EUR", "Delayed Quote", 15),
    "PA": Exchange("PAR", "Paris", "fr_market", "PAR", "EUR", "Delayed Quote", 15),
    "AS": Exchange("AMS", "Amsterdam", "nl_market", "AMS", "EUR", "Delayed Quote", 15),
    "SW": Exchange("EBS", "Swiss", "ch_market", "EBS", "CHF", "Delayed Quote", 15),
    "T": Exchange("JPX", "Tokyo", "jp_market", "JPX", "JPY", "Delayed Quote", 20),
    "AX": Exchange("ASX", "ASX", "au_market", "ASX", "AUD", "Delayed Quote", 20),
}
# Local price level multipliers vs a USD-like level (pence, yen, rupiah...).
_LOCAL_LEVEL = {"GBp": 100.0, "HKD": 0.6, "JPY": 20.0, "IDR": 60.0, "TRY": 3.0}

CCY = Exchange("CCY", "CCY", "ccy_market", "FX", "USD", "Delayed Quote", 0)
CCC = Exchange("CCC", "CCC", "ccc_market", "CRYPTO", "USD", "CoinMarketCap", 0)

# --- famous instruments ----------------------------------------------------------------
# symbol: (kind, shortName, longName, anchor price, exchange code, displayName)
FAMOUS: dict[str, tuple[str, str, str, float, str, str | None]] = {
    "AAPL": (EQUITY, "Apple Inc.", "Apple Inc.", 243.0, "NMS", "Apple"),
    "MSFT": (EQUITY, "Microsoft Corporation", "Microsoft Corporation", 418.0, "NMS",
             "Microsoft"),
    "NVDA": (EQUITY, "NVIDIA Corporation", "NVIDIA Corporation", 138.0, "NMS", "NVIDIA"),
    "GOOGL": (EQUITY, "Alphabet Inc.", "Alphabet Inc.", 190.0, "NMS", "Alphabet"),
    "GOOG": (EQUITY, "Alphabet Inc.", "Alphabet Inc.", 191.0, "NMS", "Alphabet"),
    "AMZN": (EQUITY, "Amazon.com, Inc.", "Amazon.com, Inc.", 220.0, "NMS", "Amazon.com"),
    "META": (EQUITY, "Meta Platforms, Inc.", "Meta Platforms, Inc.", 599.0, "NMS", "Meta"),
    "TSLA": (EQUITY, "Tesla, Inc.", "Tesla, Inc.", 380.0, "NMS", "Tesla"),
    "NFLX": (EQUITY, "Netflix, Inc.", "Netflix, Inc.", 890.0, "NMS", "Netflix"),
    "AMD": (EQUITY, "Advanced Micro Devices, Inc.", "Advanced Micro Devices, Inc.", 121.0,
            "NMS", "AMD"),
    "INTC": (EQUITY, "Intel Corporation", "Intel Corporation", 20.0, "NMS", "Intel"),
    "BABA": (EQUITY, "Alibaba Group Holding Limited", "Alibaba Group Holding Limited", 85.0,
             "NYQ", "Alibaba Group Holding"),
    "JPM": (EQUITY, "JP Morgan Chase & Co.", "JPMorgan Chase & Co.", 240.0, "NYQ",
            "JPMorgan Chase"),
    "V": (EQUITY, "Visa Inc.", "Visa Inc.", 315.0, "NYQ", "Visa"),
    "BRK-B": (EQUITY, "Berkshire Hathaway Inc. New", "Berkshire Hathaway Inc.", 453.0, "NYQ",
              "Berkshire Hathaway"),
    "KO": (EQUITY, "Coca-Cola Company (The)", "The Coca-Cola Company", 62.0, "NYQ",
           "Coca-Cola"),
    "DIS": (EQUITY, "Walt Disney Company (The)", "The Walt Disney Company", 111.0, "NYQ",
            "Walt Disney"),
    "SPY": (ETF, "SPDR S&P 500", "SPDR S&P 500 ETF Trust", 590.0, "PCX", None),
    "QQQ": (ETF, "Invesco QQQ Trust, Series 1", "Invesco QQQ Trust", 515.0, "NGM", None),
    "IWM": (ETF, "iShares Russell 2000 ETF", "iShares Russell 2000 ETF", 222.0, "PCX", None),
    "DIA": (ETF, "SPDR Dow Jones Industrial Avera", "SPDR Dow Jones Industrial Average ETF",
            425.0, "PCX", None),
    "VTI": (ETF, "Vanguard Total Stock Market ETF", "Vanguard Total Stock Market Index Fund",
            290.0, "PCX", None),
    "VOO": (ETF, "Vanguard S&P 500 ETF", "Vanguard S&P 500 ETF", 540.0, "PCX", None),
    "ARKK": (ETF, "ARK Innovation ETF", "ARK Innovation ETF", 57.0, "PCX", None),
    "XLK": (ETF, "Technology Select Sector SPDR F", "Technology Select Sector SPDR Fund",
            233.0, "PCX", None),
    "GLD": (ETF, "SPDR Gold Trust", "SPDR Gold Trust", 240.0, "PCX", None),
    "TLT": (ETF, "iShares 20+ Year Treasury Bond", "iShares 20+ Year Treasury Bond ETF",
            87.0, "NGM", None),
    "^GSPC": (INDEX, "S&P 500", "S&P 500", 5880.0, "SNP", None),
    "^DJI": (INDEX, "Dow Jones Industrial Average", "Dow Jones Industrial Average", 42500.0,
             "DJI", None),
    "^IXIC": (INDEX, "NASDAQ Composite", "NASDAQ Composite", 19300.0, "NIM", None),
    "^NDX": (INDEX, "NASDAQ 100", "NASDAQ 100", 21200.0, "NIM", None),
    "^RUT": (INDEX, "Russell 2000", "Russell 2000", 2230.0, "WCB", None),
    "^VIX": (INDEX, "CBOE Volatility Index", "CBOE Volatility Index", 17.0, "CXI", None),
    "VFIAX": (MUTUALFUND, "Vanguard 500 Index Fund Admiral", "Vanguard 500 Index Fund Admiral "
              "Shares", 540.0, "NAS", None),
    "FXAIX": (MUTUALFUND, "Fidelity 500 Index Fund", "Fidelity 500 Index Fund", 200.0, "NAS",
              None),
    "VTSAX": (MUTUALFUND, "Vanguard Total Stock Market Ind", "Vanguard Total Stock Market "
              "Index Fund Admiral Shares", 140.0, "NAS", None),
}

KNOWN_ETFS = frozenset({
    "SPY", "QQQ", "IWM", "DIA", "VTI", "VOO", "ARKK", "XLK", "GLD", "TLT", "IVV", "EEM",
    "XLF", "XLE", "XLV", "XLY", "XLI", "XLP", "XLU", "XLB", "XLRE", "XLC", "VEA", "VWO",
    "AGG", "BND", "LQD", "HYG", "SLV", "USO", "SMH", "SOXX", "VNQ", "SCHD", "VUG", "VGT",
    "IEFA", "EFA", "TQQQ", "SQQQ", "UVXY", "IEMG", "IJH", "IJR", "VIG", "VYM", "RSP",
})

# Non-US indices: venue and currency.
INDEX_VENUES = {
    "^FTSE": ("LSE", "GBP", "FTSE 100", 8500.0), "^GDAXI": ("GER", "EUR", "DAX P", 21000.0),
    "^N225": ("JPX", "JPY", "Nikkei 225", 38500.0),
    "^HSI": ("HKG", "HKD", "HANG SENG INDEX", 20000.0),
    "^STOXX50E": ("GER", "EUR", "EURO STOXX 50 I", 5000.0),
    "^FCHI": ("PAR", "EUR", "CAC 40", 7600.0), "^GSPTSE": ("TOR", "CAD", "S&P/TSX Composite "
                                                                           "index", 25000.0),
}

USD_PER = {
    "USD": 1.0, "EUR": 1.08, "GBP": 1.27, "JPY": 0.0067, "CHF": 1.12, "CAD": 0.73,
    "AUD": 0.65, "NZD": 0.59, "CNY": 0.138, "HKD": 0.128, "SEK": 0.093, "NOK": 0.091,
    "DKK": 0.145, "INR": 0.0117, "MXN": 0.049, "BRL": 0.17, "TRY": 0.028, "ZAR": 0.054,
    "SGD": 0.74, "KRW": 0.00069, "IDR": 0.000062, "PLN": 0.25, "CNH": 0.137, "ILS": 0.27,
}

CRYPTO_LEVELS = {
    "BTC": (95000.0, "Bitcoin", date(2014, 9, 17), 19_800_000),
    "ETH": (3300.0, "Ethereum", date(2017, 11, 9), 120_500_000),
    "SOL": (185.0, "Solana", date(2020, 4, 10), 485_000_000),
    "XRP": (2.3, "XRP", date(2017, 11, 9), 57_000_000_000),
    "DOGE": (0.32, "Dogecoin", date(2017, 11, 9), 147_000_000_000),
    "ADA": (0.9, "Cardano", date(2017, 11, 9), 35_000_000_000),
    "BNB": (650.0, "BNB", date(2017, 11, 9), 145_000_000),
    "LTC": (105.0, "Litecoin", date(2014, 9, 17), 75_000_000),
    "USDT": (1.0, "Tether USDt", date(2017, 11, 9), 140_000_000_000),
    "USDC": (1.0, "USD Coin", date(2018, 10, 8), 45_000_000_000),
}

FUTURE_ROOTS = {
    "GC": ("Gold", 2650.0, "CMX", "COMEX"), "SI": ("Silver", 30.5, "CMX", "COMEX"),
    "HG": ("Copper", 4.2, "CMX", "COMEX"), "CL": ("Crude Oil", 72.0, "NYM", "NY Mercantile"),
    "NG": ("Natural Gas", 3.4, "NYM", "NY Mercantile"),
    "ES": ("E-Mini S&P 500", 5900.0, "CME", "CME"), "NQ": ("Nasdaq 100", 21300.0, "CME", "CME"),
    "YM": ("Mini Dow Jones Indus.-$5", 42700.0, "CBT", "CBOT"),
    "ZC": ("Corn", 450.0, "CBT", "CBOT"), "ZW": ("Wheat", 540.0, "CBT", "CBOT"),
    "ZS": ("Soybean", 1000.0, "CBT", "CBOT"),
}

_NAME_SUFFIXES = ("Holdings Inc.", "Corporation", "Technologies, Inc.", "Group, Inc.",
                  "Industries, Inc.", "Systems Inc.", "Therapeutics, Inc.", "Bancorp, Inc.",
                  "Energy Corp.", "Brands, Inc.")
_SECTORS = (
    ("Technology", "Software - Infrastructure"), ("Technology", "Semiconductors"),
    ("Healthcare", "Biotechnology"), ("Healthcare", "Medical Devices"),
    ("Financial Services", "Banks - Regional"), ("Financial Services", "Asset Management"),
    ("Consumer Cyclical", "Specialty Retail"), ("Consumer Defensive", "Packaged Foods"),
    ("Industrials", "Specialty Industrial Machinery"), ("Energy", "Oil & Gas E&P"),
    ("Communication Services", "Internet Content & Information"),
    ("Utilities", "Utilities - Regulated Electric"), ("Real Estate", "REIT - Specialty"),
    ("Basic Materials", "Specialty Chemicals"),
)
_FAMOUS_SECTORS = {
    "AAPL": ("Technology", "Consumer Electronics"), "MSFT": ("Technology",
                                                             "Software - Infrastructure"),
    "NVDA": ("Technology", "Semiconductors"), "AMD": ("Technology", "Semiconductors"),
    "INTC": ("Technology", "Semiconductors"),
    "GOOGL": ("Communication Services", "Internet Content & Information"),
    "GOOG": ("Communication Services", "Internet Content & Information"),
    "META": ("Communication Services", "Internet Content & Information"),
    "AMZN": ("Consumer Cyclical", "Internet Retail"), "TSLA": ("Consumer Cyclical",
                                                               "Auto Manufacturers"),
    "NFLX": ("Communication Services", "Entertainment"),
    "DIS": ("Communication Services", "Entertainment"),
    "BABA": ("Consumer Cyclical", "Internet Retail"), "JPM": ("Financial Services",
                                                              "Banks - Diversified"),
    "V": ("Financial Services", "Credit Services"), "BRK-B": ("Financial Services",
                                                              "Insurance - Diversified"),
    "KO": ("Consumer Defensive", "Beverages - Non-Alcoholic"),
}
_CITIES = (("Austin", "TX", "78701"), ("San Jose", "CA", "95113"), ("Boston", "MA", "02110"),
           ("Chicago", "IL", "60601"), ("New York", "NY", "10017"), ("Seattle", "WA", "98101"),
           ("Denver", "CO", "80202"), ("Atlanta", "GA", "30303"))
_FUND_FAMILIES = ("Vanguard", "iShares", "SPDR State Street Global Advisors", "Invesco",
                  "Fidelity Investments", "Schwab ETFs")
_FUND_CATEGORIES = ("Large Blend", "Large Growth", "Large Value", "Mid-Cap Blend",
                    "Small Blend", "Technology", "Long Government", "Commodities Focused")

ANCHOR_DAY = date(2025, 1, 2)


@dataclass(frozen=True)
class Instrument:
    """Everything the sandbox needs to know about one symbol. Pure function of the symbol."""

    symbol: str
    kind: str
    short_name: str
    long_name: str | None
    display_name: str | None
    exchange: Exchange
    currency: str
    venue: Venue
    anchor_price: float  # price level on ANCHOR_DAY
    price_hint: int
    first_trade: int  # epoch seconds (session open of the first trading day)
    growth: float  # annual log drift of the trend
    daily_vol: float
    base_volume: float
    dividend_yield: float
    seed: int
    sector: str | None = None
    industry: str | None = None
    shares_outstanding: int = 0
    pe: float = 0.0
    extra: dict = field(default_factory=dict, hash=False, compare=False)

    @property
    def has_pre_post(self) -> bool:
        return self.kind in (EQUITY, ETF) and self.venue.has_extended_hours

    @property
    def tz(self) -> str:
        return self.venue.tz


def _title(base: str) -> str:
    letters = re.sub(r"[^A-Z]", "", base) or "Sandbox"
    return letters[:1] + letters[1:].lower()


def _generated_first_trade(symbol: str, lo_year: int, hi_year: int) -> date:
    span = (date(hi_year, 1, 1) - date(lo_year, 1, 1)).days
    return date.fromordinal(date(lo_year, 1, 1).toordinal() + int(unit("ftd", symbol) * span))


def _log_uniform(lo: float, hi: float, *parts: object) -> float:
    return math.exp(math.log(lo) + unit(*parts) * (math.log(hi) - math.log(lo)))


def _first_trade_epoch(day: date, venue: Venue) -> int:
    return local_epoch(day, venue.tz, venue.open_hm)


# Index symbols without the '^' prefix (Yahoo lists some national indices under their
# exchange's suffix): INDEX instruments with their real names, not generated companies.
SUFFIXED_INDICES = {
    "MOEX.ME": "MOEX Russia Index", "IMOEX.ME": "MOEX Russia Index", "RTSI.ME": "RTS Index",
    "FTSEMIB.MI": "FTSE MIB Index", "PSI20.LS": "PSI 20", "WIG20.WA": "WIG20",
    "000001.SS": "SSE Composite Index", "399001.SZ": "Shenzhen Index",
    "PSEI.PS": "PSEi Index", "XIN9.FGI": "FTSE China A50 Index", "TA35.TA": "TA-35",
    "XU100.IS": "BIST 100", "DX-Y.NYB": "US Dollar Index",
}


# ~0.9 KiB an instrument (measured): 8,192 are ~7 MiB (20,000 were ~18 MiB).
@lru_cache(maxsize=8192)
def get_instrument(raw_symbol: str) -> Instrument | None:
    """The synthetic instrument for a symbol, or None when the symbol is 'unknown'."""
    sym = normalize_symbol(raw_symbol)
    if not is_known_symbol(sym):
        return None
    seed = stable_hash("yahoo-sandbox-v1", sym)
    if sym.startswith("^") or sym in SUFFIXED_INDICES:
        return _index(sym, seed)
    if sym.endswith("=X"):
        return _currency(sym, seed)
    if sym.endswith("-USD") and len(sym) > 4:
        return _crypto(sym, seed)
    if sym.endswith("=F"):
        return _future(sym, seed)
    return _security(sym, seed)


def known_instrument(raw_symbol: str) -> Instrument:
    """:func:`get_instrument` for a symbol the sandbox itself listed (index members and
    the like), where 'unknown' would be a bug in the sandbox, not a client's mistake."""
    inst = get_instrument(raw_symbol)
    if inst is None:
        raise LookupError(f"sandbox symbol {raw_symbol!r} is not a known instrument")
    return inst


def _index(sym: str, seed: int) -> Instrument:
    famous = FAMOUS.get(sym)
    if sym in INDEX_VENUES:
        venue_key, ccy, name, level = INDEX_VENUES[sym]
        base = SUFFIX_EXCHANGES.get({"LSE": "L", "GER": "DE", "JPX": "T", "HKG": "HK",
                                     "PAR": "PA", "TOR": "TO"}[venue_key])
        assert base is not None
        exchange = Exchange(base.code, base.full_name, base.market, venue_key, ccy)
        short = long = name
    elif famous:
        _, short, long, level, code, _ = famous
        exchange = US_EXCHANGES[code]
    else:
        exchange = US_EXCHANGES["WCB"]
        short = long = SUFFIXED_INDICES.get(sym) or f"CBOE {_title(sym[1:])} INDEX".upper()
        level = _log_uniform(10, 10000, "idx", sym)
    venue = VENUES[exchange.venue_key]
    vol = 0.045 if sym in ("^VIX",) or "VX" in sym else 0.011
    volume = 0.0 if ("VX" in sym or sym == "^VIX") else _log_uniform(1e9, 5e9, "iv", sym)
    return Instrument(
        sym, INDEX, short, long, None, exchange, exchange.currency, venue, level,
        2, _first_trade_epoch(date(1985, 1, 2) if famous else date(1993, 1, 29), venue),
        0.0 if vol > 0.02 else 0.075, vol, volume, 0.0, seed)


def _currency(sym: str, seed: int) -> Instrument:
    body = sym[:-2]
    if len(body) == 6:
        base, quote = body[:3], body[3:]
    else:
        base, quote = "USD", body[:3]
    usd_base = USD_PER.get(base) or _log_uniform(0.001, 2.0, "ccy", base)
    usd_quote = USD_PER.get(quote) or _log_uniform(0.001, 2.0, "ccy", quote)
    level = usd_base / usd_quote
    name = f"{base}/{quote}"
    venue = VENUES["FX"]
    return Instrument(
        sym, CURRENCY, name, name, None, CCY, quote, venue, level, 4,
        _first_trade_epoch(date(2003, 12, 1), venue), 0.0, 0.005, 0.0, 0.0, seed,
        extra={"base": base, "quote": quote})


def _crypto(sym: str, seed: int) -> Instrument:
    coin = sym[:-4]
    if coin in CRYPTO_LEVELS:
        level, name, start, supply = CRYPTO_LEVELS[coin]
    else:
        level = _log_uniform(0.05, 50.0, "crypto", coin)
        name = _title(coin) + "coin"
        start = _generated_first_trade(sym, 2017, 2022)
        supply = int(_log_uniform(1e7, 5e10, "supply", coin))
    stable = coin in ("USDT", "USDC")
    venue = VENUES["CRYPTO"]
    hint = 2 if level >= 1.0 and not stable else 4 if level >= 0.01 else 6
    return Instrument(
        sym, CRYPTO, f"{name} USD", f"{name} USD", None, CCC, "USD", venue, level, hint,
        _first_trade_epoch(start, venue), 0.0 if stable else 0.35, 0.0005 if stable else 0.035,
        level * supply * 0.02, 0.0, seed,
        extra={"coin": coin, "supply": supply, "coin_name": name})


def _future(sym: str, seed: int) -> Instrument:
    root = sym[:-2]
    if root in FUTURE_ROOTS:
        name, level, code, full = FUTURE_ROOTS[root]
    else:
        name, level, code, full = (f"{_title(root)} Futures", _log_uniform(1, 5000, "fut", root),
                                   "NYM", "NY Mercantile")
    exchange = Exchange(code, full, "us24_market", "US_FUTURES", "USD", "Delayed Quote", 10)
    venue = VENUES["US_FUTURES"]
    return Instrument(
        sym, FUTURE, name, None, None, exchange, "USD", venue, level, 2,
        _first_trade_epoch(date(2000, 8, 30), venue), 0.03, 0.012,
        _log_uniform(2e3, 3e5, "fv", sym), 0.0, seed, extra={"root": root})


def _security(sym: str, seed: int) -> Instrument:
    base, _, suffix = sym.partition(".")
    suffix_exchange = SUFFIX_EXCHANGES.get(suffix) if suffix else None
    famous = FAMOUS.get(sym)
    if famous:
        kind = famous[0]
    elif sym.startswith("0P") or (
            len(sym) == 5 and sym.endswith("X") and sym.isalpha()):
        kind = MUTUALFUND
    elif sym in KNOWN_ETFS:
        kind = ETF
    else:
        kind = EQUITY

    display: str | None = None
    if famous:
        _, short, long, level, code, display = famous
        exchange = US_EXCHANGES[code]
    else:
        title = _title(base)
        if kind == MUTUALFUND:
            family = pick(_FUND_FAMILIES, "fam", sym).split()[0]
            long = f"{family} {title} Fund Investor Shares"
            short = long[:31]
            level = _log_uniform(10, 300, "mf", sym)
            exchange = US_EXCHANGES["NAS"]
        elif kind == ETF:
            family = pick(_FUND_FAMILIES, "fam", sym)
            long = f"{family.split()[0]} {title} ETF"
            short = long
            level = _log_uniform(20, 500, "etf", sym)
            exchange = US_EXCHANGES["PCX"]
        else:
            long = f"{title} {pick(_NAME_SUFFIXES, 'suffix', sym)}"
            short = long
            display = title
            level = _log_uniform(5, 500, "eq", sym)
            exchange = US_EXCHANGES["NMS" if unit("exch", sym) < 0.6 else "NYQ"]
    if suffix_exchange is not None:
        exchange = suffix_exchange
        level *= _LOCAL_LEVEL.get(exchange.currency, 1.0)
        display = None
        if kind == MUTUALFUND:
            exchange = Exchange(exchange.code, exchange.full_name, exchange.market,
                                exchange.venue_key, exchange.currency, "Delayed Quote", 15)
    venue = VENUES[exchange.venue_key]
    currency = exchange.currency
    sector: str | None
    industry: str | None
    if kind == EQUITY:
        first = _generated_first_trade(sym, 1985, 2015) if not famous else date(1985, 1, 2)
        growth, vol = 0.09, 0.014 + 0.012 * unit("vol", sym)
        volume = _log_uniform(3e5, 3e7, "vol_base", sym) if not famous else \
            _log_uniform(2e7, 9e7, "vol_base", sym)
        div_yield = 0.0 if unit("div", sym) < 0.4 else 0.005 + 0.035 * unit("dy", sym)
        if sym in ("TSLA", "AMZN", "BRK-B", "NFLX", "AMD"):
            div_yield = 0.0
        elif sym in ("AAPL",):
            div_yield = 0.0042
        div_yield = _known_dividend_yield(sym, level, div_yield)
        sector, industry = _FAMOUS_SECTORS.get(sym) or pick(_SECTORS, "sector", sym)
        shares = int(_log_uniform(5e7, 3e9, "shares", sym)) if not famous else \
            int(_log_uniform(2.4e9, 1.6e10, "shares", sym))
        if sym == "AAPL":
            shares = 15_022_100_480
        pe = 10.0 + 35.0 * unit("pe", sym)
    elif kind == ETF:
        first = _generated_first_trade(sym, 1993, 2015)
        growth, vol = 0.08, 0.011
        volume = _log_uniform(1e6, 6e7, "vol_base", sym)
        div_yield = 0.004 + 0.02 * unit("dy", sym)
        sector = industry = None
        shares = int(_log_uniform(5e7, 1e9, "shares", sym))
        pe = 18.0 + 15.0 * unit("pe", sym)
    else:  # MUTUALFUND
        first = _generated_first_trade(sym, 1990, 2018)
        growth, vol = 0.07, 0.009
        volume = 0.0
        div_yield = 0.0
        sector = industry = None
        shares = 0
        pe = 0.0
    hint = 2 if level >= 1.0 else 4
    return Instrument(
        sym, kind, short, long, display, exchange, currency, venue, level, hint,
        _first_trade_epoch(first, venue), growth, vol, volume, div_yield, seed,
        sector, industry, shares, pe)


def _known_dividend_yield(sym: str, level: float, generated: float) -> float:
    """The yield of a well-known company's real (approximate) dividend on ANCHOR_DAY: 0
    for one that pays none, the generated yield for the others."""
    actions = actions_for(sym)
    if actions is None or actions.dividends == SYNTHETIC:
        return generated
    if not isinstance(actions.dividends, Dividends) or actions.dividends.first > ANCHOR_DAY:
        return 0.0
    quarterly = actions.adjusted_amount(ANCHOR_DAY, actions.dividends.amount_on(ANCHOR_DAY))
    return round(4 * quarterly / level, 4)


def sample_symbols(count: int = 100) -> list[str]:
    """``count`` symbols from the sandbox's own tables (famous equities, ETFs, crypto,
    indices, futures), in a fixed order: load tests and stream tests subscribe to these."""
    pool = (sorted(s for s in FAMOUS if not s.startswith("^"))
            + sorted(KNOWN_ETFS - set(FAMOUS))
            + [f"{coin}-USD" for coin in CRYPTO_LEVELS]
            + sorted(s for s in FAMOUS if s.startswith("^"))
            + sorted(INDEX_VENUES)
            + [f"{root}=F" for root in sorted(FUTURE_ROOTS)])
    if count > len(pool):
        raise ValueError(f"the sandbox tables give {len(pool)} symbols, not {count}")
    return pool[:count]
