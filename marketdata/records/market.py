"""The market overview: the records of the indices, movers, sectors and similar-symbols
endpoints, and their vocabularies (index identifiers and regions, mover lists, sectors).

The 73 indices of ``/v1/indices`` are part of the v1 contract: their identifiers, their
order (the order of every response) and their symbols; a few display names are fixed
because the sources' own are cryptic ("DAX P").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from marketdata.records.members import member

# -- indices ------------------------------------------------------------------------------------
REGIONS = ("US", "NA", "SA", "EU", "AS", "AF", "ME", "OCE", "global")
# A region also selects the regions it contains: North America includes the US.
_REGION_INCLUDES = {"NA": ("NA", "US")}


@dataclass(frozen=True)
class MarketIndexInfo:
    id: str
    symbol: str
    region: str
    name: str | None = None  # display name that wins over the source's


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
    """One index's level and moves; ``change_fraction`` is 0.0069 for +0.69%."""

    symbol: str
    long_name: str | None
    short_name: str | None
    price: float | None
    change: float | None
    change_fraction: float | None
    price_hint: int
    returns: dict[str, float] = field(default_factory=dict)  # RETURN_NAMES name -> fraction


# -- movers -------------------------------------------------------------------------------------
# The day's lists of movers (the endpoints' names).
MOVER_LISTS = ("actives", "gainers", "losers")


@dataclass(frozen=True)
class ScreenerQuote:
    """One mover: raw numbers; ``change_percent`` is in percent units (2.5 = 2.5%)."""

    symbol: str
    name: str
    price: float
    change: float
    change_percent: float
    volume: int | None
    price_hint: int


# -- sectors ------------------------------------------------------------------------------------
# Display name -> key, largest sector first.
SECTOR_KEYS: dict[str, str] = {
    "Technology": "technology",
    "Healthcare": "healthcare",
    "Financial Services": "financial-services",
    "Consumer Cyclical": "consumer-cyclical",
    "Industrials": "industrials",
    "Consumer Defensive": "consumer-defensive",
    "Energy": "energy",
    "Real Estate": "real-estate",
    "Utilities": "utilities",
    "Basic Materials": "basic-materials",
    "Communication Services": "communication-services",
}
SECTOR_NAMES: dict[str, str] = {key: name for name, key in SECTOR_KEYS.items()}


@dataclass
class Industry:
    name: str
    weight: float | None  # fraction of the sector's market cap


@dataclass
class SectorData:
    """One sector as the v1 resources need it: raw numbers, fractions for percents."""

    key: str
    name: str
    day_change: float | None
    ytd_change: float | None
    one_year_change: float | None
    three_year_change: float | None
    five_year_change: float | None
    market_cap: float | None
    market_weight: float | None
    industries_count: int
    companies_count: int
    industries: list[Industry] = field(default_factory=list)  # weight desc, no aggregate
    top_companies: list[str] = field(default_factory=list)  # weight desc


# -- similar symbols ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Peer:
    """A symbol similar to another ("people also watch"), with the source's similarity
    score (higher is closer)."""

    symbol: str = member()
    score: float | None = member("Yahoo's similarity score, higher is closer")


@dataclass(frozen=True)
class CurrencyInfo:
    """A currency as a quote source lists it: its code and names (None where not sent)."""

    symbol: str = member("ISO 4217 code (or Yahoo's, e.g. `GBp` for pence)")
    short_name: str | None = member()
    long_name: str | None = member()
    local_long_name: str | None = member("The name in the answer's language")


# -- market-wide data (v2: trending, market summary, indices, spark) ---------------------------
# Yahoo's regions (the v2 Region enum) and the language Yahoo's own site uses for each: the
# ``lang``/``region`` pair its market-wide endpoints take. ``UK`` is accepted for GB.
REGION_LANGUAGES: dict[str, str] = {
    "AR": "es-AR", "AU": "en-AU", "BR": "pt-BR", "CA": "en-CA", "CN": "zh-Hans-CN",
    "DK": "da-DK", "FI": "fi-FI", "FR": "fr-FR", "DE": "de-DE", "GR": "el-GR",
    "HK": "zh-Hant-HK", "IN": "en-IN", "IL": "he-IL", "IT": "it-IT", "JP": "ja-JP",
    "KR": "ko-KR", "MY": "ms-MY", "MX": "es-MX", "NZ": "en-NZ", "NO": "nb-NO", "PT": "pt-PT",
    "QA": "ar-QA", "RU": "ru-RU", "SG": "en-SG", "ES": "es-ES", "SE": "sv-SE",
    "TW": "zh-Hant-TW", "TH": "th-TH", "TR": "tr-TR", "GB": "en-GB", "US": "en-US",
    "VN": "vi-VN",
}
REGION_ALIASES: dict[str, str] = {"UK": "GB"}

# The v2 indices by group (``/v2/indices?region=``), in the order of the answer.
INDEX_GROUPS: dict[str, tuple[str, ...]] = {
    "americas": ("^GSPC", "^DJI", "^IXIC", "^NYA", "^XAX", "^RUT", "^VIX", "^GSPTSE", "^BVSP",
                 "^MXX", "^IPSA", "^MERV"),
    "europe": ("^FTSE", "^GDAXI", "^FCHI", "^STOXX50E", "^N100", "^BFX", "^BUK100P",
               "MOEX.ME", "^125904-USD-STRD"),
    "asia-pacific": ("^N225", "^HSI", "000001.SS", "^KS11", "^TWII", "^STI", "^AXJO",
                     "^AORD", "^NZ50", "^BSESN", "^JKSE", "^KLSE"),
    "middle-east-africa": ("^TA125.TA", "^CASE30", "^JN0U.JO"),
    "currencies": ("DX-Y.NYB", "^XDB", "^XDE", "^XDN", "^XDA"),
}
INDEX_GROUP_ALIASES: dict[str, str] = {
    "america": "americas", "am": "americas", "eu": "europe", "asia": "asia-pacific",
    "apac": "asia-pacific", "asia_pacific": "asia-pacific", "mea": "middle-east-africa",
    "emea": "middle-east-africa", "middle_east_africa": "middle-east-africa",
    "currency": "currencies", "fx": "currencies",
}


def index_group_symbols(group: str | None) -> list[str]:
    """The symbols of an index group (a name or an alias of :data:`INDEX_GROUPS`), every
    group's when None, in the groups' order."""
    if group is None:
        return [symbol for symbols in INDEX_GROUPS.values() for symbol in symbols]
    return list(INDEX_GROUPS[INDEX_GROUP_ALIASES.get(group, group)])


# A number member in the source's form (bare, or ``{raw, fmt, longFmt}``), shown in the
# client's ``format`` (:func:`marketdata.records.quotes.present_value`) after the cache.
FORMATTED_NUMBER = ("A number with `format=raw` (default); Yahoo's formatted string with "
                    "`format=pretty` (null when Yahoo sends none); a `{raw, fmt, longFmt}` "
                    "object with `format=both`")
_SUMMARY_NUMBER = {"type": ["number", "string", "object", "null"]}


def formatted_number(unit: str | None = None, *, before: str | None = None,
                     schema: dict[str, Any] = _SUMMARY_NUMBER) -> Any:
    """A number member in Yahoo's form (see :data:`FORMATTED_NUMBER`), its description that
    text with ``unit`` after it or ``before`` it (a market-summary item's by default)."""
    text = ". ".join(part for part in (before, FORMATTED_NUMBER, unit) if part)
    return member(text, schema=schema)


@dataclass(frozen=True)
class SummarySpark:
    """The intraday line Yahoo draws beside a market-summary item: closes aligned with their
    timestamps (a null close stays, as sent, so the two lists keep their positions)."""

    symbol: str | None = member()
    timestamps: list[int] = member("Unix seconds, oldest first", name="timestamp")
    closes: list[float | None] = member(
        "The close at each timestamp (null where Yahoo has none)", name="close")
    previous_close: float | None = member()
    chart_previous_close: float | None = member()


@dataclass(frozen=True)
class MarketSummaryItem:
    """One instrument of a region's market summary, its numbers in the source's form (bare,
    or ``{raw, fmt, longFmt}``) so the client's ``format`` can be applied after the cache
    (``regularMarketTime`` in Unix seconds)."""

    symbol: str = member(schema={"type": ["string", "null"]})
    short_name: str | None = member()
    exchange: str | None = member()
    full_exchange_name: str | None = member()
    quote_type: str | None = member()
    market_state: str | None = member()
    regular_market_price: Any = formatted_number()
    regular_market_change: Any = formatted_number()
    regular_market_change_percent: Any = formatted_number("Percent units (1.5 is 1.5 %)")
    regular_market_previous_close: Any = formatted_number()
    regular_market_time: Any = formatted_number(
        "Unix seconds (raw); Yahoo's clock text (pretty), e.g. `4:00PM EDT`")
    spark: SummarySpark | None = member("The day's line as Yahoo draws it (5-minute closes)")


@dataclass(frozen=True)
class TrendingSymbol:
    """A symbol trending on Yahoo, with its name, price and percent change from a quote
    batch (null where the batch has no quote for it)."""

    symbol: str = member()
    short_name: str | None = member()
    regular_market_price: float | None = member()
    regular_market_change_percent: float | None = member("Percent units (1.5 is 1.5 %)")


@dataclass(frozen=True)
class Spark:
    """A symbol's closes over a window (``/v2/spark``): the chart meta (the members of
    :data:`marketdata.records.bars.META_MEMBERS`) and closes with their timestamps, oldest
    first, only where the source has a close (the two lists always have one length)."""

    symbol: str
    meta: dict[str, Any]
    timestamps: list[int]
    closes: list[float]
