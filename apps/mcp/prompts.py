"""MCP prompts: ready-made requests a user picks in the client (``prompts/list``,
``prompts/get``), each one user message telling the agent which tools to call and what to
summarise.

The tool names are the curated catalog's (:data:`TOOLS`). Arguments are checked here
before any message is made: a symbol by the service's own rule
(:func:`marketdata.symbols.normalize_symbol`, the check every endpoint applies), so a bad
one is an ``INVALID_PARAMS`` error naming it, as are a missing or unknown argument and an
unknown prompt.

Imported by :func:`apps.mcp.server.build_server`, once the SDK is loaded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mcp.server import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    PaginatedRequestParams,
    Prompt,
    PromptArgument,
    PromptMessage,
    TextContent,
)

from marketdata.symbols import display_symbol, normalize_symbol

# The tools the prompts name (the curated catalog's names).
TOOLS = ("get_quote", "get_chart", "get_company_profile", "get_financials",
         "get_analyst_ratings", "get_news", "get_risk", "get_macro_series",
         "get_treasury_yields")
MIN_COMPARED, MAX_COMPARED = 2, 5
MACRO_SNAPSHOT_SERIES = ("FEDFUNDS", "DGS10", "DGS2", "T10Y2Y", "CPIAUCSL", "UNRATE",
                         "PAYEMS", "GDP", "VIXCLS")

_SANDBOX_NOTE = (
    "If any result's `_meta[\"marketdata/http\"][\"headers\"][\"x-data-source\"]` is "
    "`sandbox`, say at the top that the data is synthetic (a simulator), not market data. "
    "If a tool fails, say which and what its error said (an upstream failure names its "
    "provider), and go on with the others. Give dates with the numbers you cite. This is "
    "information, not investment advice: say so in one line at the end.")


def refuse(message: str, **data: Any) -> MCPError:
    return MCPError(code=INVALID_PARAMS, message=message, data=data or None)


def symbol_argument(value: str, argument: str) -> str:
    """The canonical symbol, or an ``INVALID_PARAMS`` error naming the argument."""
    symbol = normalize_symbol(value)
    if symbol is None:
        raise refuse(f"Invalid symbol in '{argument}': '{display_symbol(value)}' (letters, "
                     "digits and . - = ^ &, at most 24 characters; e.g. AAPL, BRK-B, ^GSPC, "
                     "0700.HK)", argument=argument)
    return symbol


def symbols_argument(value: str, argument: str) -> list[str]:
    """2..5 distinct symbols from a comma (or blank) separated list."""
    items = [item for item in value.replace(",", " ").split() if item]
    symbols = list(dict.fromkeys(symbol_argument(item, argument) for item in items))
    if not MIN_COMPARED <= len(symbols) <= MAX_COMPARED:
        raise refuse(f"'{argument}' needs {MIN_COMPARED} to {MAX_COMPARED} distinct symbols, "
                     f"comma-separated (e.g. AAPL,MSFT,GOOGL); got {len(symbols)}",
                     argument=argument)
    return symbols


# -- the prompts -------------------------------------------------------------------------------
def analyse_stock(arguments: Mapping[str, str]) -> tuple[str, str]:
    symbol = symbol_argument(arguments["symbol"], "symbol")
    return f"An analysis of {symbol}", f"""Analyse the stock {symbol} with the marketdata tools.

Call, for {symbol}:
1. get_quote: price, day change, market cap, valuation ratios.
2. get_company_profile: the business, sector, industry, size.
3. get_chart: the last year of daily prices (trend, 52-week range, largest drawdown).
4. get_financials: the latest annual and quarterly statements (revenue, margins, earnings, \
cash flow, debt) and their trend.
5. get_analyst_ratings: consensus, price targets, recent upgrades and downgrades.
6. get_news: the latest headlines.
7. get_risk: volatility, beta, drawdown and the other risk measures.

Then write a concise report with these sections: what the company does; price and \
performance; valuation; financial health and trend; what analysts think; news and \
catalysts; main risks; a three-line summary. {_SANDBOX_NOTE}"""


def compare_symbols(arguments: Mapping[str, str]) -> tuple[str, str]:
    symbols = symbols_argument(arguments["symbols"], "symbols")
    listed = ", ".join(symbols)
    return f"A comparison of {listed}", f"""Compare {listed} with the marketdata tools.

For each of {listed}, call:
1. get_quote: price, market cap, valuation ratios (P/E, price/sales, dividend yield).
2. get_company_profile: the business, sector, industry.
3. get_chart: the last year of daily prices, the same period for every symbol.
4. get_financials: the latest annual statements (revenue growth, margins, earnings, debt).
5. get_analyst_ratings: consensus and price targets.
6. get_risk: volatility, beta, largest drawdown.

Then give one table with a row per symbol and columns for price, 1-year return, market cap, \
P/E, revenue growth, operating margin, debt, beta, volatility and analyst consensus; then, \
dimension by dimension (growth, profitability, valuation, balance sheet, risk, momentum), \
which symbol looks strongest and why, with the numbers; then a short conclusion on how \
they differ (a different business or size makes some figures incomparable: say so). \
{_SANDBOX_NOTE}"""


def macro_snapshot(arguments: Mapping[str, str]) -> tuple[str, str]:
    series = ", ".join(MACRO_SNAPSHOT_SERIES)
    return "A snapshot of the US economy", f"""Give a snapshot of the US economy and markets \
with the marketdata tools.

Call:
1. get_treasury_yields: the latest par yield curve (and the one a year before, if the \
tool gives it).
2. get_macro_series for each of {series}: only the newest observations (the newest 13 of a \
monthly series, 5 of a quarterly one, to compare with a year ago). The resource \
marketdata://macro-series says what each series measures and in which units.

Then summarise, with the latest value, its date and the change over a year: policy rates \
and the curve's shape (is it inverted? 10-year minus 2-year); inflation (CPI's change over \
12 months); the labour market (unemployment, payrolls); growth (GDP); market stress (VIX). \
End with three lines on what the figures say together. {_SANDBOX_NOTE}"""


@dataclass(frozen=True)
class PromptSpec:
    name: str
    title: str
    description: str
    arguments: tuple[tuple[str, str], ...]  # (name, description), every one required
    build: Callable[[Mapping[str, str]], tuple[str, str]]  # -> (description, message)

    def prompt(self) -> Prompt:
        return Prompt(name=self.name, title=self.title, description=self.description,
                      arguments=[PromptArgument(name=name, description=text, required=True)
                                 for name, text in self.arguments])


PROMPTS: dict[str, PromptSpec] = {spec.name: spec for spec in (
    PromptSpec("analyse_stock", "Analyse a stock",
               "A report on one stock: business, price action, valuation, financials, "
               "analysts, news and risk, from the quote, chart, profile, financials, "
               "ratings, news and risk tools.",
               (("symbol", "The stock's symbol, e.g. AAPL, BRK-B, 0700.HK"),), analyse_stock),
    PromptSpec("compare_symbols", "Compare symbols",
               f"A side-by-side comparison of {MIN_COMPARED} to {MAX_COMPARED} stocks: "
               "performance, valuation, financials, analysts and risk, in one table and a "
               "verdict per dimension.",
               (("symbols", f"{MIN_COMPARED} to {MAX_COMPARED} symbols, comma-separated, "
                            "e.g. AAPL,MSFT,GOOGL"),), compare_symbols),
    PromptSpec("macro_snapshot", "Macro snapshot",
               "The US economy now: rates and the yield curve, inflation, jobs, growth and "
               "market stress, from the Treasury yields and FRED series tools.", (),
               macro_snapshot),
)}


def get(name: str, arguments: Mapping[str, str] | None) -> GetPromptResult:
    """The prompt ``name`` with ``arguments``, or an ``INVALID_PARAMS`` error."""
    spec = PROMPTS.get(name)
    if spec is None:
        raise refuse(f"Unknown prompt: {name}", prompts=list(PROMPTS))
    arguments = dict(arguments or {})
    expected = [argument for argument, _ in spec.arguments]
    unknown = sorted(set(arguments) - set(expected))
    if unknown:
        raise refuse(f"Unknown argument(s) for {name}: {', '.join(unknown)} (it takes "
                     f"{', '.join(expected) or 'none'})", arguments=unknown)
    missing = [argument for argument in expected if not str(arguments.get(argument) or "")
               .strip()]
    if missing:
        raise refuse(f"Missing argument(s) for {name}: {', '.join(missing)}",
                     arguments=missing)
    description, text = spec.build(arguments)
    return GetPromptResult(description=description, messages=[
        PromptMessage(role="user", content=TextContent(text=text))])


async def list_prompts(ctx: ServerRequestContext[Any, Any],
                       params: PaginatedRequestParams | None) -> ListPromptsResult:
    """``prompts/list``: every prompt (one page; the list changes only with a deployment)."""
    return ListPromptsResult(prompts=[spec.prompt() for spec in PROMPTS.values()],
                             ttl_ms=300_000, cache_scope="public")


async def get_prompt(ctx: ServerRequestContext[Any, Any],
                     params: GetPromptRequestParams) -> GetPromptResult:
    """``prompts/get``."""
    return get(params.name, params.arguments)
