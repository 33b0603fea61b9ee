"""A fund's top holdings from v10 quoteSummary (``topHoldings``): the fallback of
``/v2/etf/{symbol}/holdings`` where EDGAR has no N-PORT report for the ticker.

One call, three modules (``quoteType`` to tell a fund from a stock, ``summaryDetail`` for
its net assets, ``topHoldings``: ``holdings`` [{symbol, holdingName, holdingPercent}], the
``*Position`` split and ``sectorWeightings`` [{sector key: fraction}]), bare numbers
(``formatted=false``), cached an hour as the holders' modules are. Yahoo lists the ten
largest positions only, undated: the record says so in its notices.
"""

from __future__ import annotations

from typing import Any

from marketdata.errors import NotFound
from marketdata.formatting import mapping, number, rows, text
from marketdata.providers.yahoo.quote_summary import fetch_quote_summary
from marketdata.records.funds import (
    DEFAULT_TOP,
    YAHOO_POSITIONS,
    CategoryWeight,
    FundHolding,
    FundIdentity,
    FundPortfolio,
    SectorWeight,
    holding_order,
)

MODULES = ("quoteType", "summaryDetail", "topHoldings")
FUND_TYPES = frozenset({"ETF", "MUTUALFUND"})


def _percent(fraction: Any) -> float | None:
    value = number(fraction)
    return None if value is None else round(value * 100, 6)


def parse_top_holdings(symbol: str, modules: dict[str, Any]) -> FundPortfolio:
    """quoteSummary modules -> the portfolio Yahoo shows. NotFound when Yahoo's quote type
    is not a fund's (a stock has no holdings) or its fund has no top holdings."""
    quote_type = mapping(modules.get("quoteType"))
    kind = text(quote_type.get("quoteType"))
    if kind is not None and kind.upper() not in FUND_TYPES:
        raise NotFound(f"'{symbol}' is not a fund (Yahoo's quote type: {kind}): it has no "
                       "holdings to list")
    top = mapping(modules.get("topHoldings"))
    holdings = holding_order(
        FundHolding(name=text(row.get("holdingName")), title=None, cusip=None, isin=None,
                    ticker=(text(row.get("symbol")) or "").upper() or None, lei=None,
                    balance=None, units=None, currency=None, value=None,
                    weight_percent=_percent(row.get("holdingPercent")), payoff_profile=None,
                    asset_category=None, asset_category_name=None, issuer_category=None,
                    issuer_category_name=None, country=None, fair_value_level=None,
                    restricted=None, derivative_type=None, maturity_date=None,
                    coupon_rate=None)
        for row in rows(top.get("holdings")))
    if not holdings:
        raise NotFound(f"No holdings found for '{symbol}': the SEC has no N-PORT report of "
                       "it and Yahoo lists no top holdings")
    positions = [CategoryWeight(code=code, name=name, weight_percent=weight, value=None,
                                holdings=None)
                 for code, name in YAHOO_POSITIONS.items()
                 if (weight := _percent(top.get(f"{code}Position"))) is not None]
    sectors = [SectorWeight(sector=key, weight_percent=weight)
               for row in rows(top.get("sectorWeightings")) for key, value in row.items()
               if (weight := _percent(value)) is not None]
    return FundPortfolio(
        symbol=symbol, source="yahoo",
        fund=FundIdentity(name=text(quote_type.get("longName"))
                          or text(quote_type.get("shortName")),
                          registrant=None, cik=None, series_id=None, class_id=None),
        form=None, as_of=None, fiscal_year_end=None, filed_at=None, accession_number=None,
        filing_url=None, net_assets=number(mapping(modules.get("summaryDetail")).get(
            "totalAssets")), total_assets=None,
        holdings_count=len(holdings), top=holdings[:DEFAULT_TOP], country_weights=[],
        asset_category_weights=sorted(positions, key=lambda w: -w.weight_percent),
        sector_weights=sorted(sectors, key=lambda w: -w.weight_percent),
        notices=[f"Yahoo Finance's top holdings only ({len(holdings)} positions, undated): "
                 f"the SEC has no N-PORT report for '{symbol}' (not a registered fund EDGAR "
                 "lists, or none filed yet), so the full portfolio is not available"],
        holdings=holdings)


def top_holdings(symbol: str) -> FundPortfolio:
    """The ``fund_top_holdings`` fetcher: a validated ticker's top holdings (cached an
    hour); NotFound for a symbol Yahoo does not know, one that is not a fund, or a fund
    without top holdings."""
    return parse_top_holdings(symbol, fetch_quote_summary(symbol, MODULES, policy="holders",
                                                          group="holders"))
