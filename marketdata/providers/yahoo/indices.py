"""The 73 market indices of ``/v1/indices``: identifier -> Yahoo symbol, region, name.

The identifiers, their order (the order of every response) and the symbols are part of the
v1 contract; a few display names are fixed because Yahoo's own are cryptic ("DAX P").
Each index is one quoteSummary call (``price`` for the level and the day's move,
``quoteUnadjustedPerformanceOverview`` for the period returns).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from marketdata.formatting import mapping, number
from marketdata.providers.yahoo.full_quote import RETURN_NAMES, parse_returns
from marketdata.providers.yahoo.quote_summary import fetch_quote_summary

INDEX_MODULES = ("price", "quoteUnadjustedPerformanceOverview")

REGIONS = ("US", "NA", "SA", "EU", "AS", "AF", "ME", "OCE", "global")
# A region also selects the regions it contains: North America includes the US.
_REGION_INCLUDES = {"NA": ("NA", "US")}


@dataclass(frozen=True)
class MarketIndexInfo:
    id: str
    symbol: str
    region: str
    name: str | None = None  # display name that wins over Yahoo's


def _table(region: str, *rows: tuple[str, str] | tuple[str, str, str]) -> list[MarketIndexInfo]:
    return [MarketIndexInfo(row[0], row[1], region, row[2] if len(row) > 2 else None)
            for row in rows]


INDICES: tuple[MarketIndexInfo, ...] = tuple(
    _table("US", ("snp", "^GSPC"), ("djia", "^DJI"), ("nasdaq", "^IXIC"),
           ("nyse-composite", "^NYA"), ("nyse-amex", "^XAX"), ("rut", "^RUT"), ("vix", "^VIX"))
    + _table("NA", ("tsx-composite", "^GSPTSE"))
    + _table("SA", ("ibovespa", "^BVSP"), ("ipc-mexico", "^MXX"), ("ipsa", "^IPSA"),
             ("merval", "^MERV"), ("ivbx", "^IVBX"), ("ibrx-50", "^IBX50"))
    + _table("EU", ("ftse-100", "^FTSE"), ("dax", "^GDAXI", "DAX Performance Index"),
             ("cac-40", "^FCHI"), ("euro-stoxx-50", "^STOXX50E", "EURO STOXX 50"),
             ("euronext-100", "^N100"), ("bel-20", "^BFX"), ("moex", "MOEX.ME"),
             ("aex", "^AEX"), ("ibex-35", "^IBEX"), ("ftse-mib", "FTSEMIB.MI"),
             ("smi", "^SSMI"), ("psi", "PSI20.LS"), ("atx", "^ATX"), ("omxs30", "^OMXS30"),
             ("omxc25", "^OMXC25"), ("wig20", "WIG20.WA"), ("budapest-se", "^BUX.BD"),
             ("moex-russia", "IMOEX.ME"), ("rtsi", "RTSI.ME"))
    + _table("AS", ("hang-seng", "^HSI"), ("sti", "^STI"), ("sensex", "^BSESN"),
             ("idx-composite", "^JKSE"), ("ftse-bursa", "^KLSE"), ("kospi", "^KS11"),
             ("twse", "^TWII"), ("nikkei-225", "^N225"), ("shanghai", "000001.SS"),
             ("szse-component", "399001.SZ"), ("set", "^SET.BK", "Thailand SET Index"),
             ("nifty-50", "^NSEI"), ("nifty-200", "^CNX200"), ("psei-composite", "PSEI.PS"),
             ("china-a50", "XIN9.FGI"), ("dj-shanghai", "^DJSH"), ("india-vix", "^INDIAVIX"))
    + _table("AF", ("egx-30", "^CASE30"),
             ("jse-40", "^JN0U.JO", "FTSE JSE Top 40- USD Net TRI"), ("ftse-jse", "^J580.JO"),
             ("afr-40", "^JA0R.JO"), ("raf-40", "^J260.JO"),
             ("sa-40", "^J200.JO", "South Africa Top 40"), ("alt-15", "^J233.JO"))
    + _table("ME", ("ta-125", "^TA125.TA"), ("ta-35", "TA35.TA"),
             ("tadawul-all-share", "^TASI.SR"), ("tamayuz", "^TAMAYUZ.CA"),
             ("bist-100", "XU100.IS"))
    + _table("OCE", ("asx-200", "^AXJO"), ("all-ordinaries", "^AORD"),
             ("nzx-50", "^NZ50", "S&P/NZX 50 Index"))
    + _table("global", ("usd", "DX-Y.NYB"), ("msci-europe", "^125904-USD-STRD"),
             ("gbp", "^XDB"), ("euro", "^XDE"), ("yen", "^XDN"), ("australian", "^XDA"),
             ("msci-world", "^990100-USD-STRD"), ("cboe-uk-100", "^BUK100P"))
)
INDEX_IDS: tuple[str, ...] = tuple(i.id for i in INDICES)
BY_ID: dict[str, MarketIndexInfo] = {i.id: i for i in INDICES}



def select_indices(ids: Iterable[str] = (), region: str | None = None
                   ) -> list[MarketIndexInfo]:
    """The union of the named indices and the region's, in contract order; all of them
    when neither is given. Inputs are assumed validated (unknown ids are ignored)."""
    wanted = set(ids)
    regions = set(_REGION_INCLUDES.get(region, (region,))) if region else set()
    if not wanted and not regions:
        return list(INDICES)
    return [i for i in INDICES if i.id in wanted or i.region in regions]


@dataclass(frozen=True)
class IndexSnapshot:
    """The parsed modules of one index; ``change_fraction`` is 0.0069 for +0.69%."""

    symbol: str
    long_name: str | None
    short_name: str | None
    price: float | None
    change: float | None
    change_fraction: float | None
    price_hint: int
    returns: dict[str, float] = field(default_factory=dict)  # our name -> fraction




def parse_index(symbol: str, modules: dict[str, Any]) -> IndexSnapshot:
    """quoteSummary ``price`` + performance modules -> snapshot (numbers bare or {raw, fmt})."""
    price = mapping(modules.get("price"))
    period = parse_returns(mapping(modules.get("quoteUnadjustedPerformanceOverview")))
    hint = number(price.get("priceHint"))
    returns = {name: value for name, member in RETURN_NAMES
               if (value := getattr(period, member)) is not None}
    return IndexSnapshot(
        symbol=price.get("symbol") or symbol,
        long_name=price.get("longName") or None,
        short_name=price.get("shortName") or None,
        price=number(price.get("regularMarketPrice")),
        change=number(price.get("regularMarketChange")),
        change_fraction=number(price.get("regularMarketChangePercent")),
        price_hint=int(hint) if hint is not None else 2,
        returns=returns,
    )


def fetch_index(info: MarketIndexInfo) -> IndexSnapshot:
    """One index through the cache (policy ``indices``)."""
    modules = fetch_quote_summary(info.symbol, INDEX_MODULES, policy="indices", group="indices")
    return parse_index(info.symbol, modules)
