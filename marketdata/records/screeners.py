"""Stock and fund screeners: the predefined ones, the vocabulary of a custom screen, and
what a screener answers.

One table for everything a custom screen may say (quote types, sort directions, operators,
the fields of each quote type): the request validation, the OpenAPI enums, the provider's
upstream body and the sandbox all read it, so they cannot disagree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from marketdata.records.market import FORMATTED_NUMBER
from marketdata.records.members import member

# -- quote types, sort directions, sizes -----------------------------------------------------
EQUITY = "EQUITY"
MUTUALFUND = "MUTUALFUND"
QUOTE_TYPES = (EQUITY, MUTUALFUND)
# Accepted spellings (matched case-insensitively) -> the quote type.
QUOTE_TYPE_ALIASES: dict[str, str] = {
    "equity": EQUITY, "stock": EQUITY, "stocks": EQUITY,
    "mutualfund": MUTUALFUND, "mutual-fund": MUTUALFUND, "mutual_fund": MUTUALFUND,
    "fund": MUTUALFUND, "funds": MUTUALFUND,
}
SORT_TYPES = ("ASC", "DESC")
SORT_TYPE_ALIASES: dict[str, str] = {"asc": "ASC", "ascending": "ASC",
                                     "desc": "DESC", "descending": "DESC"}
DEFAULT_SIZE = 25
MAX_SIZE = 250  # Yahoo's largest page
MAX_OFFSET = 100_000
MAX_FILTERS = 50

# -- operators -------------------------------------------------------------------------------
EQ, GT, GTE, LT, LTE, BTWN = "eq", "gt", "gte", "lt", "lte", "btwn"
OPERATORS = (EQ, GT, GTE, LT, LTE, BTWN)
# Accepted spellings (matched case-insensitively) -> the operator.
OPERATOR_ALIASES: dict[str, str] = {
    **{op: op for op in OPERATORS},
    "=": EQ, "==": EQ, ">": GT, ">=": GTE, "<": LT, "<=": LTE, "between": BTWN,
}
NUMERIC_OPERATORS = frozenset({GT, GTE, LT, LTE, BTWN})

# -- fields a screen filters and sorts on (Yahoo's names, exact) ----------------------------
_EQUITY_PLAIN = (
    "ticker", "companyshortname", "eodprice", "intradayprice", "intradaypricechange",
    "percentchange", "fiftytwowkpercentchange", "intradaymarketcap", "region", "sector",
    "peer_group", "industry", "exchange", "beta", "avgdailyvol3m", "pctheldinsider",
    "pctheldinst", "dayvolume", "eodvolume", "pricebookratio.quarterly", "pegratio_5y",
    "consecutive_years_of_dividend_growth_count", "forward_dividend_per_share",
    "forward_dividend_yield", "quarterlyrevenuegrowth.quarterly", "totalsharesoutstanding",
    "esg_score", "environmental_score", "governance_score", "social_score",
    "highest_controversy",
)
_EQUITY_VALUE = (  # Yahoo spells these with a ".value" suffix
    "short_percentage_of_shares_outstanding", "short_interest", "short_percentage_of_float",
    "days_to_cover_short", "short_interest_percentage_change",
)
_EQUITY_LTM = (  # ... and these with ".lasttwelvemonths"
    "lastclose52weekhigh", "lastclose52weeklow", "lastclosemarketcap", "bookvalueshare",
    "lastclosemarketcaptotalrevenue", "lastclosetevtotalrevenue", "peratio",
    "lastclosepricetangiblebookvalue", "lastclosepriceearnings", "returnonassets",
    "returnonequity", "returnontotalcapital", "lastclosetevebit", "netdebtebitda",
    "totaldebtequity", "ltdebtequity", "ebitinterestexpense", "ebitdainterestexpense",
    "lastclosetevebitda", "totaldebtebitda", "quickratio",
    "altmanzscoreusingtheaveragestockinformationforaperiod", "currentratio",
    "operatingcashflowtocurrentliabilities", "totalrevenues", "netincomemargin",
    "grossprofit", "ebitda1yrgrowth", "dilutedepscontinuingoperations", "epsgrowth",
    "netincomeis", "ebitda", "dilutedeps1yrgrowth", "totalrevenues1yrgrowth",
    "operatingincome", "netincome1yrgrowth", "grossprofitmargin", "ebitdamargin", "ebit",
    "basicepscontinuingoperations", "netepsbasic", "netepsdiluted", "totalassets",
    "totalcommonsharesoutstanding", "totaldebt", "totalequity", "totalcurrentassets",
    "totalcashandshortterminvestments", "totalcommonequity", "totalcurrentliabilities",
    "leveredfreecashflow", "capitalexpenditure", "cashfromoperations",
    "leveredfreecashflow1yrgrowth", "unleveredfreecashflow", "cashfromoperations1yrgrowth",
)
EQUITY_FIELDS: tuple[str, ...] = (_EQUITY_PLAIN + tuple(f"{f}.value" for f in _EQUITY_VALUE)
                                  + tuple(f"{f}.lasttwelvemonths" for f in _EQUITY_LTM))
FUND_FIELDS: tuple[str, ...] = (
    "ticker", "companyshortname", "eodprice", "intradaypricechange", "intradayprice",
    "categoryname", "performanceratingoverall", "initialinvestment",
    "annualreturnnavy1categoryrank", "riskratingoverall", "exchange",
)
SCREEN_FIELDS: dict[str, tuple[str, ...]] = {EQUITY: EQUITY_FIELDS, MUTUALFUND: FUND_FIELDS}
# Fields whose values are text (compared with `eq` to a string); every other one is a number.
TEXT_FIELDS = frozenset({"ticker", "companyshortname", "region", "sector", "peer_group",
                         "industry", "exchange", "categoryname"})
DEFAULT_SORT_FIELD: dict[str, str] = {EQUITY: "intradaymarketcap", MUTUALFUND: "intradayprice"}
# What the upstream is asked to return for each row.
INCLUDE_FIELDS: dict[str, tuple[str, ...]] = {
    EQUITY: ("ticker", "companyshortname", "intradayprice", "intradaypricechange",
             "percentchange", "intradaymarketcap", "dayvolume", "avgdailyvol3m",
             "peratio.lasttwelvemonths", "fiftytwowkpercentchange", "exchange"),
    MUTUALFUND: ("ticker", "companyshortname", "intradayprice", "intradaypricechange",
                 "categoryname", "performanceratingoverall", "riskratingoverall", "exchange"),
}

# A custom screen's row speaks in screen fields; those that are ScreenerQuote members.
FIELD_MEMBERS: dict[str, str] = {
    "ticker": "symbol", "companyshortname": "shortName", "exchange": "exchange",
    "intradayprice": "regularMarketPrice", "intradaypricechange": "regularMarketChange",
    "percentchange": "regularMarketChangePercent", "intradaymarketcap": "marketCap",
    "dayvolume": "regularMarketVolume", "avgdailyvol3m": "averageDailyVolume3Month",
    "peratio.lasttwelvemonths": "trailingPE",
    "fiftytwowkpercentchange": "fiftyTwoWeekChangePercent",
}
CUSTOM_TYPE = "custom"
CUSTOM_DESCRIPTION = "Instruments matching a custom screen"


# -- predefined screeners ----------------------------------------------------------------------
@dataclass(frozen=True)
class PredefinedScreener:
    """One of Yahoo's saved screeners: its path name, Yahoo's id and its quote type."""

    slug: str
    quote_type: str
    aliases: tuple[str, ...] = ()

    @property
    def scr_id(self) -> str:
        return self.slug.replace("-", "_")


PREDEFINED: tuple[PredefinedScreener, ...] = (
    PredefinedScreener("aggressive-small-caps", EQUITY),
    PredefinedScreener("day-gainers", EQUITY, ("gainers",)),
    PredefinedScreener("day-losers", EQUITY, ("losers",)),
    PredefinedScreener("growth-technology-stocks", EQUITY, ("growth-tech",)),
    PredefinedScreener("most-actives", EQUITY, ("actives",)),
    PredefinedScreener("most-shorted-stocks", EQUITY, ("most-shorted",)),
    PredefinedScreener("small-cap-gainers", EQUITY),
    PredefinedScreener("undervalued-growth-stocks", EQUITY, ("undervalued-growth",)),
    PredefinedScreener("undervalued-large-caps", EQUITY, ("undervalued-large",)),
    PredefinedScreener("conservative-foreign-funds", MUTUALFUND),
    PredefinedScreener("high-yield-bond", MUTUALFUND),
    PredefinedScreener("portfolio-anchors", MUTUALFUND),
    PredefinedScreener("solid-large-growth-funds", MUTUALFUND),
    PredefinedScreener("solid-midcap-growth-funds", MUTUALFUND),
    PredefinedScreener("top-mutual-funds", MUTUALFUND),
)
# Path value (a slug or an alias) -> the screener.
SCREENERS: dict[str, PredefinedScreener] = {
    name: s for s in PREDEFINED for name in (s.slug, *s.aliases)}
SCREENER_NAMES: tuple[str, ...] = tuple(SCREENERS)


# -- a custom screen ---------------------------------------------------------------------------
FilterValue = str | float | tuple[float, float]


@dataclass(frozen=True)
class ScreenFilter:
    """One condition: ``field`` (a screen field of the quote type), ``operator``
    (:data:`OPERATORS`) and its value: a number for gt/gte/lt/lte, ``(low, high)`` for
    btwn, a string (text field) or a number for eq."""

    field: str
    operator: str
    value: FilterValue

    def operands(self) -> list[Any]:
        """Yahoo's ``operands``: the field, then the value(s)."""
        if isinstance(self.value, tuple):
            return [self.field, *self.value]
        return [self.field, self.value]


@dataclass(frozen=True)
class CustomScreen:
    """A validated custom screen: every condition must hold (AND)."""

    quote_type: str = EQUITY
    size: int = DEFAULT_SIZE
    offset: int = 0
    sort_type: str = "DESC"
    sort_field: str = DEFAULT_SORT_FIELD[EQUITY]
    filters: tuple[ScreenFilter, ...] = ()

    def canonical(self) -> str:
        """The screen as one stable text (its cache key)."""
        return json.dumps([self.quote_type, self.size, self.offset, self.sort_type,
                           self.sort_field, [[f.field, f.operator, f.operands()[1:]]
                                             for f in self.filters]],
                          separators=(",", ":"), sort_keys=True)


# -- answers -----------------------------------------------------------------------------------
# A row's number member (every member but the eight text ones) is Yahoo's number object
# ``{raw, fmt?, longFmt?}`` (``fmt`` only where the source formatted the number) or None,
# shown in the client's ``format`` after the cache
# (:func:`marketdata.records.quotes.present_value`).
_VALUE = FORMATTED_NUMBER + "; null when Yahoo sends no value"
_VALUE_SCHEMA: dict[str, Any] = {"anyOf": [
    {"type": ["number", "string", "null"]},
    {"type": "object", "properties": {"raw": {"type": "number"}, "fmt": {"type": "string"},
                                      "longFmt": {"type": "string"}},
     "description": "format=both: Yahoo's number object", "required": ["raw"]}]}


@dataclass(frozen=True)
class ScreenerRow:
    """One row of a screener, the spec's ScreenerQuote: Yahoo's quote members, text ones a
    string or None, number ones ``{raw, fmt?, longFmt?}`` or None (see above)."""

    symbol: str = member(schema={"type": ["string", "null"]})
    short_name: str | None = member()
    long_name: str | None = member()
    display_name: str | None = member()
    quote_type: str | None = member()
    exchange: str | None = member()
    currency: str | None = member()
    average_analyst_rating: str | None = member()
    regular_market_price: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    regular_market_change: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    regular_market_change_percent: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    regular_market_open: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    regular_market_day_high: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    regular_market_day_low: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    regular_market_previous_close: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    regular_market_time: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    regular_market_volume: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    average_daily_volume_3_month: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    average_daily_volume_10_day: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    market_cap: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    shares_outstanding: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    fifty_two_week_high: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    fifty_two_week_low: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    fifty_two_week_change: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    fifty_two_week_change_percent: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    fifty_day_average: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    fifty_day_average_change: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    fifty_day_average_change_percent: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    two_hundred_day_average: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    two_hundred_day_average_change: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    two_hundred_day_average_change_percent: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    trailing_pe: Any = member(_VALUE, name="trailingPE", schema=_VALUE_SCHEMA)
    forward_pe: Any = member(_VALUE, name="forwardPE", schema=_VALUE_SCHEMA)
    price_to_book: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    book_value: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    eps_trailing_twelve_months: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    eps_forward: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    eps_current_year: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    price_eps_current_year: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    dividend_yield: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    dividend_rate: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    dividend_date: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    trailing_annual_dividend_rate: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    trailing_annual_dividend_yield: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    bid: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    bid_size: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    ask: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    ask_size: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    post_market_price: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    post_market_change: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    post_market_change_percent: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    post_market_time: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    pre_market_price: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    pre_market_change: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    pre_market_change_percent: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    pre_market_time: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    earnings_timestamp: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    earnings_timestamp_start: Any = member(_VALUE, schema=_VALUE_SCHEMA)
    earnings_timestamp_end: Any = member(_VALUE, schema=_VALUE_SCHEMA)


@dataclass(frozen=True)
class ScreenerResult:
    """What a screener answers: its rows in its ranking; ``type`` the screener's canonical
    name (``DAY_GAINERS``; ``custom``), ``last_updated`` milliseconds since the epoch and
    ``total`` how many instruments match in all, when the source says."""

    quotes: list[ScreenerRow] = member()
    type: str = member("The screener's canonical name (DAY_GAINERS, TOP_MUTUAL_FUNDS...); "
                       "`custom` for a custom screen")
    description: str | None = member()
    last_updated: int | None = member("When Yahoo last updated the screener (milliseconds "
                                      "since the epoch); null for a custom screen")
    total: int | None = member("How many instruments match in all (null when Yahoo does not "
                               "say)")
