"""Which contract markets the simulated CFTC datasets hold, their names and report weeks.

Why: the service looks codes up in the disaggregated report, then in the legacy one, and
answers 404 when neither has rows; the sandbox must therefore know every code of the
service's curated table (with the report the table says) and also answer for other codes,
some of them absent, by a documented rule (README.md):

- curated codes (``marketdata.providers.cftc.CONTRACTS``): real CFTC names; commodities
  are in both datasets (as every disaggregated contract is in the legacy report too),
  financial futures only in the legacy one;
- any other code matching the service's code pattern: **unknown** (no rows anywhere) when
  it starts with ``9``; otherwise a commodity (both datasets) when sha256 of the code is
  even, a financial future (legacy only) when it is odd, with history from a week between
  1986 and 2023 chosen by the code's hash.

Curated contracts report from the start of each dataset, except the few that entered the
report recently (:data:`FIRST_REPORT`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from marketdata.providers.cftc import CODE_PATTERN, CONTRACTS, DISAGGREGATED, LEGACY
from marketdata.sandbox.instruments import stable_hash

DISAGGREGATED_ID = DISAGGREGATED.dataset
LEGACY_ID = LEGACY.dataset
DATASETS = (DISAGGREGATED_ID, LEGACY_ID)
# The first report each dataset serves (the legacy series starts in 1986; the
# disaggregated one was reconstructed back to mid-2006).
DATASET_START = {LEGACY_ID: date(1986, 1, 14), DISAGGREGATED_ID: date(2006, 6, 13)}
NEW_YORK = ZoneInfo("America/New_York")
RELEASE_TIME = time(15, 30)  # Friday, for the Tuesday before

# Exchange name -> (cftc_market_code, cftc_region_code), as the CFTC spells them.
EXCHANGES = {
    "CHICAGO MERCANTILE EXCHANGE": ("CME", "CHI"),
    "CHICAGO BOARD OF TRADE": ("CBT", "CHI"),
    "NEW YORK MERCANTILE EXCHANGE": ("NYME", "NYC"),
    "COMMODITY EXCHANGE INC.": ("CMX", "NYC"),
    "ICE FUTURES U.S.": ("ICUS", "NYC"),
    "SANDBOX FUTURES EXCHANGE": ("SBX", "CHI"),
}

# code -> (contract market name, exchange, commodity group, subgroup, units)
_CME, _CBT = "CHICAGO MERCANTILE EXCHANGE", "CHICAGO BOARD OF TRADE"
_NYM, _CMX, _ICE = "NEW YORK MERCANTILE EXCHANGE", "COMMODITY EXCHANGE INC.", "ICE FUTURES U.S."
_NAT, _AG, _FIN = "NATURAL RESOURCES", "AGRICULTURE", "FINANCIAL INSTRUMENTS"
_MEAT, _FACE = "LIVESTOCK/MEAT PRODUCTS", "(CONTRACTS OF $100,000 FACE VALUE)"
NAMES: dict[str, tuple[str, str, str, str, str]] = {
    "088691": ("GOLD", _CMX, _NAT, "PRECIOUS METALS", "(CONTRACTS OF 100 TROY OUNCES)"),
    "088695": ("MICRO GOLD", _CMX, _NAT, "PRECIOUS METALS", "(10 TROY OUNCES)"),
    "084691": ("SILVER", _CMX, _NAT, "PRECIOUS METALS", "(CONTRACTS OF 5,000 TROY OUNCES)"),
    "085692": ("COPPER- #1", _CMX, _NAT, "BASE METALS", "(CONTRACTS OF 25,000 POUNDS)"),
    "076651": ("PLATINUM", _NYM, _NAT, "PRECIOUS METALS", "(CONTRACTS OF 50 TROY OUNCES)"),
    "075651": ("PALLADIUM", _NYM, _NAT, "PRECIOUS METALS", "(CONTRACTS OF 100 TROY OUNCES)"),
    "067651": ("WTI-PHYSICAL", _NYM, _NAT, "PETROLEUM AND PRODUCTS", "(1,000 BARRELS)"),
    "06765T": ("BRENT LAST DAY", _NYM, _NAT, "PETROLEUM AND PRODUCTS", "(1,000 BARRELS)"),
    "023651": ("NAT GAS NYME", _NYM, _NAT, "NATURAL GAS AND PRODUCTS", "(10,000 MMBTU'S)"),
    "022651": ("NY HARBOR ULSD", _NYM, _NAT, "PETROLEUM AND PRODUCTS", "(42,000 U.S. GALLONS)"),
    "111659": ("GASOLINE RBOB", _NYM, _NAT, "PETROLEUM AND PRODUCTS", "(42,000 U.S. GALLONS)"),
    "002602": ("CORN", _CBT, _AG, "GRAINS", "(CONTRACTS OF 5,000 BUSHELS)"),
    "001602": ("WHEAT-SRW", _CBT, _AG, "GRAINS", "(CONTRACTS OF 5,000 BUSHELS)"),
    "001612": ("WHEAT-HRW", _CBT, _AG, "GRAINS", "(CONTRACTS OF 5,000 BUSHELS)"),
    "005602": ("SOYBEANS", _CBT, _AG, "OILSEED AND PRODUCTS", "(CONTRACTS OF 5,000 BUSHELS)"),
    "026603": ("SOYBEAN MEAL", _CBT, _AG, "OILSEED AND PRODUCTS", "(CONTRACTS OF 100 SHORT TONS)"),
    "007601": ("SOYBEAN OIL", _CBT, _AG, "OILSEED AND PRODUCTS", "(CONTRACTS OF 60,000 POUNDS)"),
    "004603": ("OATS", _CBT, _AG, "GRAINS", "(CONTRACTS OF 5,000 BUSHELS)"),
    "039601": ("ROUGH RICE", _CBT, _AG, "GRAINS", "(CONTRACTS OF 2,000 HUNDREDWEIGHT)"),
    "057642": ("LIVE CATTLE", _CME, _AG, _MEAT, "(CONTRACTS OF 40,000 POUNDS)"),
    "061641": ("FEEDER CATTLE", _CME, _AG, _MEAT, "(CONTRACTS OF 50,000 POUNDS)"),
    "054642": ("LEAN HOGS", _CME, _AG, _MEAT, "(CONTRACTS OF 40,000 POUNDS)"),
    "083731": ("COFFEE C", _ICE, _AG, "SOFTS", "(CONTRACTS OF 37,500 POUNDS)"),
    "080732": ("SUGAR NO. 11", _ICE, _AG, "SOFTS", "(CONTRACTS OF 112,000 POUNDS)"),
    "073732": ("COCOA", _ICE, _AG, "SOFTS", "(CONTRACTS OF 10 METRIC TONS)"),
    "033661": ("COTTON NO. 2", _ICE, _AG, "SOFTS", "(CONTRACTS OF 50,000 POUNDS)"),
    "13874A": ("E-MINI S&P 500", _CME, _FIN, "STOCK INDICES", "($50 X S&P 500 INDEX)"),
    "13874U": ("MICRO E-MINI S&P 500 INDEX", _CME, _FIN, "STOCK INDICES", "($5 X S&P 500 INDEX)"),
    "209742": ("NASDAQ MINI", _CME, _FIN, "STOCK INDICES", "($20 X NASDAQ 100 INDEX)"),
    "209747": ("MICRO E-MINI NASDAQ-100 INDEX", _CME, _FIN, "STOCK INDICES",
               "($2 X NASDAQ 100 INDEX)"),
    "239742": ("RUSSELL E-MINI", _CME, _FIN, "STOCK INDICES", "($50 X RUSSELL 2000 INDEX)"),
    "239747": ("MICRO E-MINI RUSSELL 2000 INDX", _CME, _FIN, "STOCK INDICES",
               "(RUSSEL 2000 INDEX X $0.5)"),
    "124603": ("DJIA x $5", _CBT, _FIN, "STOCK INDICES", "(DOW JONES INDUSTRIAL AVG x $5)"),
    "124608": ("MICRO E-MINI DJIA (x$0.5)", _CBT, _FIN, "STOCK INDICES", "(DJIA x $0.5)"),
    "240741": ("NIKKEI STOCK AVERAGE", _CME, _FIN, "STOCK INDICES", "(NIKKEI INDEX X $5)"),
    "042601": ("UST 2Y NOTE", _CBT, _FIN, "INTEREST RATES", "(CONTRACTS OF $200,000 FACE VALUE)"),
    "044601": ("UST 5Y NOTE", _CBT, _FIN, "INTEREST RATES", _FACE),
    "043602": ("UST 10Y NOTE", _CBT, _FIN, "INTEREST RATES", _FACE),
    "043607": ("ULTRA UST 10Y", _CBT, _FIN, "INTEREST RATES", _FACE),
    "020601": ("UST BOND", _CBT, _FIN, "INTEREST RATES", _FACE),
    "020604": ("ULTRA UST BOND", _CBT, _FIN, "INTEREST RATES", _FACE),
    "134741": ("SOFR-3M", _CME, _FIN, "INTEREST RATES", "(25 X SOFR INDEX POINTS)"),
    "099741": ("EURO FX", _CME, _FIN, "CURRENCY", "(CONTRACTS OF EUR 125,000)"),
    "097741": ("JAPANESE YEN", _CME, _FIN, "CURRENCY", "(CONTRACTS OF JPY 12,500,000)"),
    "096742": ("BRITISH POUND", _CME, _FIN, "CURRENCY", "(CONTRACTS OF GBP 62,500)"),
    "090741": ("CANADIAN DOLLAR", _CME, _FIN, "CURRENCY", "(CONTRACTS OF CAD 100,000)"),
    "232741": ("AUSTRALIAN DOLLAR", _CME, _FIN, "CURRENCY", "(CONTRACTS OF AUD 100,000)"),
    "092741": ("SWISS FRANC", _CME, _FIN, "CURRENCY", "(CONTRACTS OF CHF 125,000)"),
    "112741": ("NZ DOLLAR", _CME, _FIN, "CURRENCY", "(CONTRACTS OF NZD 100,000)"),
    "095741": ("MEXICAN PESO", _CME, _FIN, "CURRENCY", "(CONTRACTS OF MXN 500,000)"),
    "098662": ("USD INDEX", _ICE, _FIN, "CURRENCY", "(U.S. DOLLAR INDEX X $1000)"),
    "133741": ("BITCOIN", _CME, _FIN, "CURRENCY", "(5 Bitcoins)"),
    "146021": ("ETHER CASH SETTLED", _CME, _FIN, "CURRENCY", "(50 Index Points)"),
}
# Contracts that entered the report recently (so they have fewer than five years of rows).
FIRST_REPORT = {
    "13874U": date(2020, 7, 28), "209747": date(2020, 8, 4), "239747": date(2021, 11, 30),
    "124608": date(2022, 7, 26), "133741": date(2018, 1, 2), "146021": date(2021, 3, 2),
    "134741": date(2022, 1, 4),
}


@dataclass(frozen=True)
class Market:
    """One simulated contract market."""

    code: str
    contract_market_name: str
    exchange: str
    group: str
    subgroup: str
    units: str
    commodity: bool  # physical commodity: in the disaggregated report too
    first_report: date

    @property
    def market_and_exchange_names(self) -> str:
        return f"{self.contract_market_name} - {self.exchange}"

    def in_dataset(self, dataset: str) -> bool:
        return dataset == LEGACY_ID or (dataset == DISAGGREGATED_ID and self.commodity)


def _tuesday_on_or_after(day: date) -> date:
    return day + timedelta(days=(1 - day.weekday()) % 7)


@lru_cache(maxsize=4096)
def market(code: str) -> Market | None:
    """The simulated market of a code, or None when the CFTC has no such market."""
    curated = next((c for c in CONTRACTS.values() if c.code == code), None)
    if curated is not None:
        name, exchange, group, subgroup, units = NAMES[code]
        commodity = curated.report is DISAGGREGATED
    elif CODE_PATTERN.fullmatch(code) and not code.startswith("9"):
        commodity = stable_hash("cftc-report", code) % 2 == 0
        name = f"SANDBOX {'COMMODITY' if commodity else 'FINANCIAL'} {code}"
        exchange = "SANDBOX FUTURES EXCHANGE"
        group, subgroup = (_NAT, "SANDBOX COMMODITIES") if commodity else (_FIN, "SANDBOX")
        units = "(CONTRACTS OF 1,000 UNITS)"
    else:
        return None
    first = FIRST_REPORT.get(code)
    if first is None and curated is None:
        # History starts between 1986 and 2023 (by the code's hash), so some are young.
        first = DATASET_START[LEGACY_ID] + timedelta(weeks=stable_hash("cftc-first", code)
                                                     % (37 * 52))
    first = first or DATASET_START[LEGACY_ID]
    return Market(code, name, exchange, group, subgroup, units, commodity,
                  _tuesday_on_or_after(first))


def newest_report(now: datetime) -> date:
    """The newest report published at ``now``: the Tuesday whose Friday 15:30 New York
    release has passed."""
    local = now.astimezone(NEW_YORK)
    day = local.date()
    tuesday = day - timedelta(days=(day.weekday() - 1) % 7)
    release = datetime.combine(tuesday + timedelta(days=3), RELEASE_TIME, NEW_YORK)
    return tuesday if local >= release else tuesday - timedelta(weeks=1)


def report_dates(found: Market, dataset: str, now: datetime) -> list[date]:
    """Every report date of a market in a dataset, oldest first (weekly Tuesdays)."""
    if not found.in_dataset(dataset):
        return []
    start = max(found.first_report, DATASET_START[dataset])
    end = newest_report(now)
    if end < start:
        return []
    return [start + timedelta(weeks=i) for i in range((end - start).days // 7 + 1)]


def curated_codes() -> list[str]:
    return sorted({c.code for c in CONTRACTS.values()})
