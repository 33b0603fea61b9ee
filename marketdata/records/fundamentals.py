"""Company fundamentals, whichever source served them: the data modules behind the analysis
and holders endpoints, ownership records, calendar events, financial statements, earnings
calls and their transcripts, with the vocabularies the endpoints and sources share.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from marketdata.records.members import member

# -- data modules (the analysis and holders endpoints) ----------------------------------------
# The modules, by the names v2 documents and serves (Yahoo Finance's quoteSummary modules).
# Each is read into one record (:class:`ModuleData`), named after each constant.
RECOMMENDATION_TREND = "recommendationTrend"  # list[Recommendation]
UPGRADE_DOWNGRADE_HISTORY = "upgradeDowngradeHistory"  # list[GradeChange]
FINANCIAL_DATA = "financialData"  # PriceTargets
EARNINGS_TREND = "earningsTrend"  # list[TrendPeriod]
EARNINGS_HISTORY = "earningsHistory"  # list[EarningsSurprise]
ESG_SCORES = "esgScores"  # EsgScores
ANALYSIS_MODULES = (RECOMMENDATION_TREND, UPGRADE_DOWNGRADE_HISTORY, FINANCIAL_DATA,
                    EARNINGS_TREND, EARNINGS_HISTORY, ESG_SCORES)

MAJOR_HOLDERS_BREAKDOWN = "majorHoldersBreakdown"  # MajorHolders
INSTITUTION_OWNERSHIP = "institutionOwnership"  # list[Holder]
FUND_OWNERSHIP = "fundOwnership"  # list[Holder]
INSIDER_TRANSACTIONS = "insiderTransactions"  # list[InsiderTransaction]
NET_SHARE_PURCHASE_ACTIVITY = "netSharePurchaseActivity"  # InsiderPurchases
INSIDER_HOLDERS = "insiderHolders"  # list[InsiderRosterMember]
HOLDERS_MODULES = (MAJOR_HOLDERS_BREAKDOWN, INSTITUTION_OWNERSHIP, FUND_OWNERSHIP,
                   INSIDER_TRANSACTIONS, NET_SHARE_PURCHASE_ACTIVITY, INSIDER_HOLDERS)


@dataclass(frozen=True)
class ModuleData:
    """One data module of a symbol: ``record`` its typed reading (the record named at the
    module's constant), ``members`` the module as the source sent it with every formatted
    value reduced to its raw one (only when asked for: v2 serves it, v1 does not)."""

    record: Any
    members: dict[str, Any] | None = None


# -- ownership ----------------------------------------------------------------------------------
# The major-holders breakdown metrics the interface names (always present, None when
# missing); other numeric metrics a source adds are passed through.
BREAKDOWN_METRICS = ("institutionsPercentHeld", "insidersPercentHeld",
                     "institutionsFloatPercentHeld", "institutionsCount")
# Metric name -> number; percentages are fractions (0.62706 is 62.7%).
MajorHolders = dict[str, float | int | None]


@dataclass(frozen=True)
class Holder:
    """An institution or a fund holding the stock (same shape for both lists)."""

    holder: str | None
    shares: int | None
    date_reported: datetime | None
    percent_out: float | None  # a fraction of shares outstanding: 0.0929 is 9.29%
    value: int | None


@dataclass(frozen=True)
class InsiderTransaction:
    start_date: datetime | None
    insider: str | None
    position: str | None
    transaction: str | None
    shares: int | None
    value: int | None
    ownership: str | None  # D (direct) or I (indirect)


@dataclass(frozen=True)
class InsiderPurchases:
    """Net insider buying and selling over ``period`` (Yahoo: the last six months)."""

    period: str | None
    purchases_shares: int | None
    purchases_transactions: int | None
    sales_shares: int | None
    sales_transactions: int | None
    net_shares: int | None
    net_transactions: int | None
    total_insider_shares: int | None
    net_percent_insider_shares: float | None
    buy_percent_insider_shares: float | None
    sell_percent_insider_shares: float | None

    @property
    def has_data(self) -> bool:
        return any(v is not None for k, v in vars(self).items() if k != "period")


@dataclass(frozen=True)
class InsiderRosterMember:
    name: str | None
    position: str | None
    most_recent_transaction: str | None
    latest_transaction_date: datetime | None
    shares_owned_directly: int | None
    shares_owned_indirectly: int | None
    position_direct_date: datetime | None


# -- the holders modules as v2 serves them ------------------------------------------------------
# Each module's members as the source sends them (camelCase names; values raw: every
# ``{raw, fmt}`` reduced to its raw value, ``{}`` to null; strings as sent): the known members
# declared (null when the source sent none), the others passed through after them. Built by
# ``members.from_members`` from the module's members; the v2 holders endpoint serves them.
MAX_AGE = "Seconds the source caches the data for"


@dataclass(frozen=True)
class MajorHoldersModule:
    """majorHoldersBreakdown."""

    max_age: int | None = member(MAX_AGE)
    insiders_percent_held: float | None = member("Fraction of the shares held by insiders "
                                                 "(0.0929 = 9.29%)")
    institutions_percent_held: float | None = member("Fraction of the shares held by "
                                                     "institutions")
    institutions_float_percent_held: float | None = member("Fraction of the float held by "
                                                           "institutions")
    institutions_count: int | None = member("Number of institutions holding shares")
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class OwnershipRow:
    """One institution or fund of institutionOwnership or fundOwnership."""

    max_age: int | None = member()
    report_date: int | None = member()
    organization: str | None = member()
    pct_held: float | None = member()
    position: float | None = member()
    value: float | None = member()
    pct_change: float | None = member()
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class OwnershipModule:
    """institutionOwnership or fundOwnership."""

    max_age: int | None = member(MAX_AGE)
    ownership_list: list[OwnershipRow] | None = member("The top holders, largest first")
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class InsiderTransactionRow:
    """One transaction of insiderTransactions."""

    max_age: int | None = member()
    shares: float | None = member()
    value: float | None = member()
    filer_url: str | None = member()
    transaction_text: str | None = member()
    filer_name: str | None = member()
    filer_relation: str | None = member()
    money_text: str | None = member()
    start_date: int | None = member()
    ownership: str | None = member()
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class InsiderTransactionsModule:
    """insiderTransactions."""

    transactions: list[InsiderTransactionRow] | None = member(
        "Insider transactions, newest first (`order=desc`, the default) or oldest first "
        "(`order=asc`)")
    max_age: int | None = member(MAX_AGE)
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class InsiderPurchasesModule:
    """netSharePurchaseActivity: net insider buying and selling over ``period``."""

    max_age: int | None = member(MAX_AGE)
    period: str | None = member('The period, e.g. "6m"')
    buy_info_count: int | None = member()
    buy_info_shares: int | None = member()
    buy_percent_insider_shares: float | None = member("A fraction of the insiders' shares")
    sell_info_count: int | None = member()
    sell_info_shares: int | None = member()
    sell_percent_insider_shares: float | None = member("A fraction of the insiders' shares")
    net_info_count: int | None = member()
    net_info_shares: int | None = member()
    net_percent_insider_shares: float | None = member("A fraction of the insiders' shares")
    total_insider_shares: int | None = member()
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class InsiderRosterRow:
    """One insider of insiderHolders."""

    max_age: int | None = member()
    name: str | None = member()
    relation: str | None = member()
    url: str | None = member()
    transaction_description: str | None = member()
    latest_trans_date: int | None = member()
    position_direct: float | None = member()
    position_direct_date: int | None = member()
    position_indirect: float | None = member()
    position_indirect_date: int | None = member()
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class InsiderRosterModule:
    """insiderHolders."""

    holders: list[InsiderRosterRow] | None = member("The insiders")
    max_age: int | None = member(MAX_AGE)
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


# -- calendar events ----------------------------------------------------------------------------
@dataclass(frozen=True)
class EarningsDate:
    """The next earnings: its date (the first of the source's window when it gives two),
    whether it is an estimate, and the analysts' EPS and revenue estimates."""

    timestamp: int
    is_estimate: bool
    eps_average: float | None
    eps_low: float | None
    eps_high: float | None
    revenue_average: int | None


@dataclass(frozen=True)
class CalendarEvents:
    """A symbol's upcoming (or last known) calendar dates, Unix seconds (dividend dates at
    00:00 UTC of the day); None where the source has none."""

    earnings: EarningsDate | None
    ex_dividend_date: int | None
    dividend_date: int | None


# -- financial statements -----------------------------------------------------------------------
STATEMENTS = ("income", "balance", "cashflow")
FREQUENCIES = ("annual", "quarterly")
# v2 adds the trailing twelve months (flows only: a balance sheet is a point in time).
V2_FREQUENCIES = (*FREQUENCIES, "trailing")
TRAILING_STATEMENTS = ("income", "cashflow")

# Each statement's metrics, Yahoo's field names (the v2 metric names too), in the order a
# statement is read (top line first); the answers keep this order.
INCOME_FIELDS = (
    "TotalRevenue", "OperatingRevenue", "CostOfRevenue", "GrossProfit", "OperatingExpense",
    "SellingGeneralAndAdministration", "ResearchAndDevelopment", "OperatingIncome",
    "NetInterestIncome", "InterestExpense", "InterestIncome",
    "NetNonOperatingInterestIncomeExpense", "OtherIncomeExpense", "PretaxIncome",
    "TaxProvision", "NetIncomeCommonStockholders", "NetIncome", "DilutedEPS", "BasicEPS",
    "DilutedAverageShares", "BasicAverageShares", "EBIT", "EBITDA", "ReconciledCostOfRevenue",
    "ReconciledDepreciation", "NetIncomeFromContinuingOperationNetMinorityInterest",
    "NormalizedEBITDA", "TotalExpenses", "TotalOperatingIncomeAsReported",
)
BALANCE_FIELDS = (
    "TotalAssets", "CurrentAssets", "CashCashEquivalentsAndShortTermInvestments",
    "CashAndCashEquivalents", "CashFinancial", "Receivables", "AccountsReceivable",
    "Inventory", "PrepaidAssets", "OtherCurrentAssets", "TotalNonCurrentAssets", "NetPPE",
    "GrossPPE", "AccumulatedDepreciation", "Goodwill", "GoodwillAndOtherIntangibleAssets",
    "OtherIntangibleAssets", "InvestmentsAndAdvances", "LongTermEquityInvestment",
    "OtherNonCurrentAssets", "TotalLiabilitiesNetMinorityInterest", "CurrentLiabilities",
    "PayablesAndAccruedExpenses", "AccountsPayable", "CurrentDebt", "CurrentDeferredRevenue",
    "OtherCurrentLiabilities", "TotalNonCurrentLiabilitiesNetMinorityInterest", "LongTermDebt",
    "LongTermDebtAndCapitalLeaseObligation", "NonCurrentDeferredRevenue",
    "NonCurrentDeferredTaxesLiabilities", "OtherNonCurrentLiabilities", "StockholdersEquity",
    "CommonStockEquity", "CommonStock", "RetainedEarnings", "AdditionalPaidInCapital",
    "TreasuryStock", "TotalEquityGrossMinorityInterest", "WorkingCapital", "InvestedCapital",
    "TangibleBookValue", "TotalDebt", "NetDebt", "ShareIssued", "OrdinarySharesNumber",
)
CASH_FLOW_FIELDS = (
    "OperatingCashFlow", "CashFlowFromContinuingOperatingActivities",
    "NetIncomeFromContinuingOperations", "DepreciationAndAmortization", "DeferredIncomeTax",
    "ChangeInWorkingCapital", "ChangeInReceivables", "ChangesInAccountReceivables",
    "ChangeInInventory", "ChangeInAccountPayable", "ChangeInOtherWorkingCapital",
    "StockBasedCompensation", "OtherNonCashItems", "InvestingCashFlow",
    "CashFlowFromContinuingInvestingActivities", "NetPPEPurchaseAndSale", "PurchaseOfPPE",
    "SaleOfPPE", "CapitalExpenditure", "NetBusinessPurchaseAndSale", "PurchaseOfBusiness",
    "SaleOfBusiness", "NetInvestmentPurchaseAndSale", "PurchaseOfInvestment",
    "SaleOfInvestment", "NetOtherInvestingChanges", "FinancingCashFlow",
    "CashFlowFromContinuingFinancingActivities", "NetIssuancePaymentsOfDebt",
    "NetLongTermDebtIssuance", "LongTermDebtIssuance", "LongTermDebtPayments",
    "NetShortTermDebtIssuance", "NetCommonStockIssuance", "CommonStockIssuance",
    "CommonStockPayments", "RepurchaseOfCapitalStock", "CashDividendsPaid",
    "CommonStockDividendPaid", "NetOtherFinancingCharges", "EndCashPosition",
    "BeginningCashPosition", "ChangesInCash", "EffectOfExchangeRateChanges", "FreeCashFlow",
    "CapitalExpenditureReported",
)
STATEMENT_FIELDS: dict[str, tuple[str, ...]] = {
    "income": INCOME_FIELDS, "balance": BALANCE_FIELDS, "cashflow": CASH_FLOW_FIELDS,
}

# {period end "YYYY-MM-DD": {field name: number}}, newest period first.
Statement = dict[str, dict[str, int | float]]



# v2's reading of a statement: one row per metric, in the statement's order, its periods
# oldest first (:func:`statement_rows`).
@dataclass(frozen=True)
class PeriodValue:
    """A metric's value at one period end."""

    date: str = member("Period end, YYYY-MM-DD", schema={"format": "date"})
    value: float = member("In the company's reporting currency; per-share values (EPS) "
                          "decimals, share counts integers")


@dataclass(frozen=True)
class StatementRow:
    """One metric of a statement and its value per period."""

    metric: str = member("Yahoo's metric name, e.g. `TotalRevenue`")
    values: list[PeriodValue] = member("Oldest period first")


@dataclass(frozen=True)
class SymbolStatement:
    """One symbol's statement, as a batch lists it."""

    symbol: str = member()
    statement: list[StatementRow] = member("The statement's metrics in the statement's order "
                                           "(top line first)")


def statement_rows(periods: Statement, statement: str,
                   metrics: Collection[str] | None = None) -> list[StatementRow]:
    """``periods`` as rows: metrics in the statement's order (a source's answer has none;
    ``metrics`` only filters, so one statement always reads the same way), each one's
    periods oldest first; a metric without any value is left out."""
    dates = sorted(periods)
    return [StatementRow(name, [PeriodValue(day, periods[day][name]) for day in dates
                                if name in periods[day]])
            for name in STATEMENT_FIELDS[statement]
            if (metrics is None or name in metrics)
            and any(name in values for values in periods.values())]


# A space goes between a lower-case letter or digit and a capital ("TotalRevenue"), and
# before the last capital of an acronym that starts a new word ("NetPPEPurchase").
_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def display_name(field: str) -> str:
    """A CamelCase field name as words: ``NetIncomeFromContinuingOperations`` ->
    "Net Income From Continuing Operations", ``NormalizedEBITDA`` -> "Normalized EBITDA".

    Only spaces are inserted (acronyms stay upper-case, every word keeps its capital), so
    removing the spaces gives back the exact field name.
    """
    return _WORD_BOUNDARY.sub(" ", field)


# -- earnings calls and transcripts -------------------------------------------------------------
QUARTERS = ("Q1", "Q2", "Q3", "Q4")


@dataclass(frozen=True)
class EarningsCall:
    """One listed earnings call; quarter/year are None when the listing does not carry them
    (the transcript's metadata still does)."""

    event_id: int
    quarter: str | None
    year: int | None
    url: str

    @property
    def title(self) -> str:
        return f"{self.quarter} {self.year}" if self.quarter and self.year else "Earnings Call"

    @property
    def sort_key(self) -> tuple[int, int]:
        return (self.year or 0, int(self.quarter[1]) if self.quarter else 0)


@dataclass(frozen=True)
class Speaker:
    name: str
    role: str | None = None
    company: str | None = None
    index: int | None = None  # the source's speaker number, which paragraphs refer to


@dataclass(frozen=True)
class Paragraph:
    speaker: str  # the resolved name, or "Speaker N" when the mapping lacks it
    text: str


@dataclass(frozen=True)
class Transcript:
    """One call's transcript (the per-word timings are dropped)."""

    event_id: int | None
    transcript_id: int | str | None
    company_id: int | str | None
    title: str | None
    event_type: str | None
    fiscal_period: str | None  # "Q1".."Q4"
    fiscal_year: int | None
    date: int | None  # epoch seconds of the call
    updated: int | None  # epoch seconds
    is_latest: bool | None
    speakers: list[Speaker] = field(default_factory=list)
    paragraphs: list[Paragraph] = field(default_factory=list)
    text: str = ""  # the source's own full text, used when there are no paragraphs
    remainder: str = ""  # the part of ``text`` after the last attributed paragraph
    retrieved_at: str | None = None  # ISO UTC time of the upstream call
    # What the source says about the document itself (v2 serves it as sent).
    version: str | None = None  # the content format's version, e.g. "1.0.0"
    s3_url: str | None = None  # where the supplier stores the document
    transcript_type: str | None = None  # e.g. "IN_HOUSE"
    speaker_count: int | None = None  # as the source counts them
    has_body: bool = True  # False: the content came without a transcript object


@dataclass(frozen=True)
class CompanyTranscripts:
    """Where a company's transcripts are read: ``company_id`` its id at the transcript
    supplier (shown as ``quartrId``), ``fetch`` one listed call's transcript (NotFound when
    the call has none yet). Looked up once per request, so the id is fetched once."""

    company_id: str
    fetch: Callable[[EarningsCall], Transcript]
