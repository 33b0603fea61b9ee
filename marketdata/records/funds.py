"""A fund's portfolio, as every source fills it: the SEC's N-PORT-P filings (every holding,
with its identifiers, value and weight) or Yahoo Finance's top holdings (the largest ten,
where no N-PORT exists).

N-PORT's codes are kept as filed (``EC``, ``DBT``, ``NS``...) beside their meaning from the
form's instructions (Items C.2-C.5 of Form N-PORT), so a client can group by the code and
show the words. Weights are the filing's own ``pctVal``: percent of the fund's net assets as
of the report date, negative for a short position; they are not recomputed from values,
since the fund's net assets (not the sum of its holdings) are their denominator.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from marketdata.records.members import member

Source = Literal["sec", "yahoo"]
DEFAULT_TOP = 10
MAX_TOP = 100

# Form N-PORT, Item C.4: the asset category of a holding.
ASSET_CATEGORIES: dict[str, str] = {
    "STIV": "Short-term investment vehicle (money market fund, liquidity pool or other cash "
            "management vehicle)",
    "RA": "Repurchase agreement",
    "EC": "Equity-common",
    "EP": "Equity-preferred",
    "DBT": "Debt",
    "DCO": "Derivative-commodity",
    "DCR": "Derivative-credit",
    "DE": "Derivative-equity",
    "DFE": "Derivative-foreign exchange",
    "DIR": "Derivative-interest rate",
    "DO": "Derivative-other",
    "SN": "Structured note",
    "LON": "Loan",
    "ABS-MBS": "ABS-mortgage backed security",
    "ABS-APCP": "ABS-asset backed commercial paper",
    "ABS-CBDO": "ABS-collateralized bond/debt obligation",
    "ABS-O": "ABS-other",
    "COMM": "Commodity",
    "RE": "Real estate",
    "OTHER": "Other",
}
# Form N-PORT, Item C.5: the issuer's category.
ISSUER_CATEGORIES: dict[str, str] = {
    "CORP": "Corporate",
    "UST": "U.S. Treasury",
    "USGA": "U.S. government agency",
    "USGSE": "U.S. government sponsored entity",
    "MUN": "Municipal",
    "NUSS": "Non-U.S. sovereign, sub-sovereign or supranational",
    "PF": "Private fund",
    "RF": "Registered fund",
    "OTHER": "Other",
}
# Form N-PORT, Item C.2.b: what a balance counts.
UNITS: dict[str, str] = {"NS": "number of shares", "PA": "principal amount",
                         "NC": "number of contracts", "OU": "other units"}
# Form N-PORT, Item C.11: a derivative's kind (``derivCat``), as a word.
DERIVATIVE_TYPES: dict[str, str] = {"FWD": "forward", "FUT": "future", "SWP": "swap",
                                    "OPT": "option", "SWO": "swaption", "WAR": "warrant",
                                    "OTH": "other"}
# Yahoo's position split (topHoldings' ``*Position`` fractions), in its order.
YAHOO_POSITIONS: dict[str, str] = {"stock": "Stocks", "bond": "Bonds", "cash": "Cash",
                                   "preferred": "Preferred stocks",
                                   "convertible": "Convertibles", "other": "Other"}


def _listed(codes: Iterable[str]) -> str:
    return ", ".join(f"`{code}`" for code in codes)


@dataclass(frozen=True)
class FundIdentity:
    """Which fund the portfolio is of: EDGAR's series (one portfolio) of a registrant (the
    trust), and the share class the ticker names."""

    name: str | None = member("The fund (N-PORT `seriesName`; Yahoo: its long name)")
    registrant: str | None = member("The registrant, a trust of one or more series "
                                    "(N-PORT `regName`); null from Yahoo")
    cik: int | None = member("The registrant's SEC Central Index Key; null from Yahoo")
    series_id: str | None = member("EDGAR's series id, `S` and 9 digits: the portfolio the "
                                   "filing reports; null from Yahoo")
    class_id: str | None = member("EDGAR's class id of the ticker's share class, `C` and 9 "
                                  "digits (a series' classes share its portfolio); null from "
                                  "Yahoo")


@dataclass(frozen=True)
class FundHolding:
    """One position of the portfolio (an N-PORT ``invstOrSec``). Yahoo's top holdings
    fill `name`, `ticker` and `weightPercent` only."""

    name: str | None = member("Issuer's name as filed")
    title: str | None = member("Title of the issue: which of the issuer's securities (a "
                               "share class, a bond's coupon and maturity, a contract)")
    cusip: str | None = member("CUSIP, 9 characters; null where the filing has none "
                               "(`N/A`, `000000000`)")
    isin: str | None = member("ISIN, 12 characters; null where the filing gives none")
    ticker: str | None = member(
        "Ticker: the filing's own ticker identifier, else, for common equity, EDGAR's ticker "
        "of the one listed company whose name matches the issuer's (case, punctuation and "
        "legal suffixes aside); null where neither resolves one (a company with several "
        "share-class tickers, a foreign or unlisted issuer, a bond)")
    lei: str | None = member("The issuer's Legal Entity Identifier, 20 characters; null "
                             "where the filing has `N/A`")
    balance: float | None = member("Quantity held, counted in `units` (a principal amount is "
                                   "in `currency`)")
    units: str | None = member("What `balance` counts: " + "; ".join(
        f"`{code}` {text}" for code, text in UNITS.items()))
    currency: str | None = member("ISO 4217 currency the holding is denominated in")
    value: float | None = member("Value, US dollars, as of the report date (`valUSD`)")
    weight_percent: float | None = member(
        "Percent of the fund's net assets as filed (`pctVal`; 1.5 is 1.5 %); negative for a "
        "short position or a derivative worth less than nothing. Yahoo: its holding "
        "percent times 100")
    payoff_profile: Literal["long", "short"] | None = member(
        "`long` or `short`; null where the filing says N/A (most derivatives)")
    asset_category: str | None = member(
        "Form N-PORT's asset category code: " + _listed(ASSET_CATEGORIES))
    asset_category_name: str | None = member(
        "The asset category's meaning (for `OTHER`, the filer's description after a colon)")
    issuer_category: str | None = member(
        "Form N-PORT's issuer category code: " + _listed(ISSUER_CATEGORIES))
    issuer_category_name: str | None = member("The issuer category's meaning")
    country: str | None = member("ISO 3166-1 alpha-2 country of the investment (the "
                                 "issuer's, as the filer classifies it)")
    fair_value_level: int | None = member("Fair-value hierarchy level, 1 (quoted prices) to "
                                          "3 (unobservable inputs); null where N/A")
    restricted: bool | None = member("Whether it is a restricted security (not freely "
                                     "tradable, e.g. a private placement)")
    derivative_type: str | None = member(
        "For a derivative, its kind: " + _listed(DERIVATIVE_TYPES.values())
        + "; null otherwise")
    maturity_date: str | None = member("For a debt security, its maturity, `YYYY-MM-DD`")
    coupon_rate: float | None = member("For a debt security, its annualized interest rate, "
                                       "percent")


@dataclass(frozen=True)
class CategoryWeight:
    """The portfolio's weight in one asset category."""

    code: str | None = member("N-PORT's asset category code (source `sec`), or Yahoo's "
                              "position class (source `yahoo`): " + _listed(YAHOO_POSITIONS))
    name: str | None = member("The category's meaning")
    weight_percent: float = member("Sum of the holdings' `weightPercent` in the category, "
                                   "percent of net assets (Yahoo: its position fraction "
                                   "times 100)")
    value: float | None = member("Sum of the holdings' values, US dollars; null from Yahoo")
    holdings: int | None = member("Holdings in the category; null from Yahoo")


@dataclass(frozen=True)
class CountryWeight:
    """The portfolio's weight in one country."""

    country: str | None = member("ISO 3166-1 alpha-2 code; null for holdings the filing "
                                 "gives no country")
    weight_percent: float = member("Sum of the holdings' `weightPercent`, percent of net "
                                   "assets")
    value: float | None = member("Sum of the holdings' values, US dollars")
    holdings: int = member("Holdings in the country")


@dataclass(frozen=True)
class SectorWeight:
    """The portfolio's weight in one sector (Yahoo's split; N-PORT reports no sector)."""

    sector: str = member("Yahoo's sector key, e.g. `technology`, `financial_services`")
    weight_percent: float = member("Percent of the portfolio (Yahoo's fraction times 100)")


@dataclass(frozen=True)
class FundPortfolio:
    """A fund's portfolio: its latest N-PORT-P filing (source `sec`), or Yahoo's top
    holdings where EDGAR has none (source `yahoo`)."""

    symbol: str = member("The ticker asked for", always=True)
    source: Source = member(
        "`sec`: the latest N-PORT-P filing of the fund's series (every holding); `yahoo`: "
        "Yahoo Finance's top holdings only, where EDGAR has no N-PORT for the ticker",
        always=True)
    fund: FundIdentity = member("The fund")
    form: str | None = member("`NPORT-P`, or `NPORT-P/A` for an amendment (which restates "
                              "the whole report); null from Yahoo")
    as_of: str | None = member("The date the holdings are reported as of (N-PORT "
                               "`repPdDate`, a month's end), `YYYY-MM-DD`; null from Yahoo, "
                               "which dates none")
    fiscal_year_end: str | None = member("The fund's fiscal year end the report belongs to "
                                         "(N-PORT `repPdEnd`), `YYYY-MM-DD`")
    filed_at: str | None = member("When the filing was filed with the SEC, `YYYY-MM-DD`")
    accession_number: str | None = member("EDGAR's accession number of the filing")
    filing_url: str | None = member("The filing's index page on EDGAR")
    net_assets: float | None = member("The fund's net assets, US dollars, as of `asOf` "
                                      "(Yahoo: its net assets figure)")
    total_assets: float | None = member("The fund's total assets, US dollars (N-PORT "
                                        "`totAssets`)")
    holdings_count: int = member("Holdings in the portfolio (before paging)")
    top: list[FundHolding] = member("The largest holdings by `weightPercent`, `top` of them "
                                    "(default 10)")
    country_weights: list[CountryWeight] = member(
        "Weights by the holdings' `country`, largest first, computed from the filing's "
        "`pctVal`; empty from Yahoo")
    asset_category_weights: list[CategoryWeight] = member(
        "Weights by asset category, largest first, computed from the filing's `pctVal` "
        "(Yahoo: its position split)")
    sector_weights: list[SectorWeight] | None = member(
        "Yahoo's sector split (source `yahoo`); null from N-PORT, which reports no sector")
    notices: list[str] = member("What the answer lacks or where it comes from, in words")
    holdings: list[FundHolding] = member()


def holding_order(holdings: Iterable[FundHolding]) -> list[FundHolding]:
    """Holdings by weight, largest first; equal weights (and unknown ones, last) keep the
    source's order."""
    return sorted(holdings, key=lambda h: -h.weight_percent
                  if h.weight_percent is not None else float("inf"))
