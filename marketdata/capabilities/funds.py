"""Funds: an ETF's or mutual fund's portfolio.

Two capabilities, not one with two sources: Yahoo's top holdings answer only where EDGAR has
no N-PORT report for the ticker (the SEC source says so with NotServed), never because the
SEC failed: a client asking for the full portfolio gets EDGAR's failure (502/503/504 naming
the SEC) rather than a silent ten-holding answer.
"""

from __future__ import annotations

from marketdata.capabilities.table import YAHOO, Source, declare
from marketdata.records.funds import FundPortfolio


@declare("fund_holdings", "Fund holdings (/v2/etf/{symbol}/holdings)",
         Source("sec", "SEC EDGAR N-PORT-P reports (company_tickers_mf.json, the series' "
                "filing list, the report's primary_doc.xml)",
                fetcher="marketdata.providers.sec_nport:fund_holdings"))
def fund_holdings(symbol: str) -> FundPortfolio:
    """A validated ticker's whole portfolio from its series' latest N-PORT-P report;
    NotServed when EDGAR has none for it (not a registered fund's ticker, or no report
    filed)."""


@declare("fund_top_holdings",
         "Fund top holdings (/v2/etf/{symbol}/holdings where EDGAR has no N-PORT)",
         Source("yahoo", f"{YAHOO} quoteSummary topHoldings",
                fetcher="marketdata.providers.yahoo.fund_holdings:top_holdings"))
def fund_top_holdings(symbol: str) -> FundPortfolio:
    """A validated fund ticker's top holdings as Yahoo lists them; NotFound for a symbol
    that is not a fund, or a fund without any."""
