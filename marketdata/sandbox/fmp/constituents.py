"""``/stable/sp500-constituent``, ``/stable/nasdaq-constituent``, ``/stable/dowjones-constituent``.

Why: the index-constituents endpoint asks FMP first when a key is set; the sandbox answers
the three lists with realistic sizes (S&P 500: 503 rows, since a few companies list two
share classes; Nasdaq-100: 101; Dow: 30) in FMP's row shape ``{symbol, name, sector,
subSector, headQuarter, dateFirstAdded, cik, founded}``, all strings, rows in symbol order.

- Symbols: the Dow list is the real 30 (as of late 2024), the Nasdaq-100 list is real
  tickers, the S&P 500 list holds real tickers for the best-known members (both other
  lists' US members and about 150 more) and generated tickers for the rest.
- Names, sectors and industries are the sandbox instrument's (``instruments.py``): real
  names for the symbols the sandbox knows as famous (AAPL, MSFT, JPM, ...), generated ones
  for the rest, so every row agrees with the sandbox's quotes and profiles.
- ``headQuarter`` is the city the Yahoo sandbox's assetProfile gives; ``cik``,
  ``founded`` and ``dateFirstAdded`` are synthetic (seeded by index and symbol; never
  real SEC ids).

The lists do not depend on the clock.
"""

from __future__ import annotations

from datetime import date
from functools import cache
from typing import Any

from marketdata.sandbox.common import Request, json_response
from marketdata.sandbox.fmp.common import headquarters
from marketdata.sandbox.instruments import (
    EQUITY,
    FAMOUS,
    KNOWN_ETFS,
    get_instrument,
    is_known_symbol,
    stable_hash,
    unit,
)
from marketdata.sandbox.response import SandboxResponse

DOW = ("AAPL AMGN AMZN AXP BA CAT CRM CSCO CVX DIS GS HD HON IBM JNJ JPM KO MCD MMM MRK MSFT "
       "NKE NVDA PG SHW TRV UNH V VZ WMT").split()
NASDAQ_100 = (
    "AAPL ABNB ADBE ADI ADP ADSK AEP AMAT AMD AMGN AMZN ANSS APP ARM ASML AVGO AXON AZN BIIB "
    "BKNG BKR CCEP CDNS CDW CEG CHTR CMCSA COST CPRT CRWD CSCO CSGP CSX CTAS CTSH DASH DDOG "
    "DXCM EA EXC FANG FAST FTNT GEHC GFS GILD GOOG GOOGL HON IDXX INTC INTU ISRG KDP KHC KLAC "
    "LIN LRCX LULU MAR MCHP MDB MDLZ MELI META MNST MRVL MSFT MSTR MU NFLX NVDA NXPI ODFL ON "
    "ORLY PANW PAYX PCAR PDD PEP PLTR PYPL QCOM REGN ROP ROST SBUX SNPS TEAM TMUS TSLA TTD "
    "TTWO TXN VRSK VRTX WBD WDAY XEL ZS").split()
# Nasdaq-100 members that are not S&P 500 members (foreign filers and a few others).
_NOT_IN_SP500 = frozenset("ARM ASML AZN CCEP GFS MDB MELI MSTR PDD TEAM ZS".split())
_MORE_SP500 = (
    "ABBV ABT ACN ADM AFL AIG ALL AMT ANET AON APD APH BAC BDX BK BLK BMY BRK-B BSX C CARR "
    "CB CCI CCL CHD CI CL CLX CMG CME COF COP CVS D DAL DE DELL DG DHR DOW DPZ DUK EBAY ECL "
    "EL ELV EMR EOG EQIX ETN F FCX FDX FIS FOX FOXA GD GE GIS GLW GM GPN HCA HLT HPE HPQ HSY "
    "HUM ICE IPG ITW K KEYS KMB KMI KR LLY LMT LOW LUV LYB MA MCK MCO MDT MET MGM MMC MO MPC "
    "MS NEE NEM NOC NOW NSC NUE NWS NWSA OMC ORCL OXY PFE PGR PH PLD PM PNC PRU PSX RCL RSG "
    "RTX SCHW SLB SO SPG SPGI STZ SYK SYY T TAP TDG TEL TFC TGT TMO UAL UBER UNP UPS USB VLO "
    "WELL WFC WM WMB XOM YUM ZTS").split()
SIZES = {"sp500": 503, "nasdaq100": 101, "dowjones": 30}
# The path's list name (``/stable/{name}-constituent``) -> our index name.
ENDPOINTS = {"sp500": "sp500", "nasdaq": "nasdaq100", "dowjones": "dowjones"}
_FIRST_DAY = {"sp500": 715000, "nasdaq100": 724000, "dowjones": 700000}  # proleptic ordinals
_LAST_DAY = 739243  # 2024-12-23
_STATES = {"TX": "Texas", "CA": "California", "MA": "Massachusetts", "IL": "Illinois",
           "NY": "New York", "WA": "Washington", "CO": "Colorado", "GA": "Georgia"}
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _generated(index: str, taken: set[str], count: int) -> list[str]:
    """``count`` new 3-4 letter tickers the sandbox treats as equities (seeded by index)."""
    out: list[str] = []
    k = 0
    while len(out) < count:
        h = stable_hash("fmp-ticker", index, k)
        k += 1
        length = 3 + h % 2
        ticker = "".join(_LETTERS[(h >> (5 * i + 1)) % 26] for i in range(length))
        if ticker in taken or ticker in KNOWN_ETFS or ticker in FAMOUS \
                or not is_known_symbol(ticker):
            continue
        taken.add(ticker)
        out.append(ticker)
    return out


@cache
def members(index: str) -> tuple[str, ...]:
    """The index's tickers, in symbol order."""
    if index == "dowjones":
        chosen = set(DOW)
    elif index == "nasdaq100":
        chosen = set(NASDAQ_100)
    else:
        chosen = set(DOW) | (set(NASDAQ_100) - _NOT_IN_SP500) | set(_MORE_SP500)
        chosen |= set(_generated(index, set(chosen), SIZES[index] - len(chosen)))
    return tuple(sorted(chosen))


def _row(index: str, symbol: str) -> dict[str, Any]:
    inst = get_instrument(symbol)
    assert inst is not None and inst.kind == EQUITY, symbol
    city, state = headquarters(inst)
    added = _FIRST_DAY[index] + int(unit("fmp-added", index, symbol)
                                    * (_LAST_DAY - _FIRST_DAY[index]))
    added_day = date.fromordinal(added)
    founded = max(1802, added_day.year - 5 - int(unit("fmp-founded", symbol) * 90))
    return {"symbol": symbol, "name": inst.long_name or inst.short_name,
            "sector": inst.sector, "subSector": inst.industry,
            "headQuarter": f"{city}, {_STATES.get(state or '', state or '')}".rstrip(", "),
            "dateFirstAdded": added_day.isoformat(),
            "cik": f"{1_000_000 + stable_hash('fmp-cik', symbol) % 1_900_000:010d}",
            "founded": str(founded)}


@cache
def constituents(index: str) -> tuple[dict[str, Any], ...]:
    return tuple(_row(index, symbol) for symbol in members(index))


def handle_constituents(req: Request) -> SandboxResponse:
    index = ENDPOINTS[req.params["list"]]
    return json_response(list(constituents(index)))
