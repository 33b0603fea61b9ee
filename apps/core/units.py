"""OpenAPI: the unit of every percent-like member, stated in its description.

Values stay as each upstream sends them, so one member name can have two units:
``regularMarketChangePercent`` is a fraction on ``/v2/quote`` (Yahoo's quoteSummary: 0.0079
is 0.79 %) and a percent on ``/v2/quotes``, ``/v2/indices`` and the screeners (Yahoo's v7
quote and screener: 0.79 is 0.79 %). This post-processing hook writes each member's unit at
the start of its description in the 200 answer of each operation: :data:`BY_PATH` for the
operations whose source differs, else :data:`UNITS`. A description that already states a
unit (one of :data:`UNIT_WORDS`) is left as it is.

The units were read off the parsers and the recorded upstream payloads (shared/upstream):
e.g. AAPL's quoteSummary ``price.regularMarketChangePercent`` -0.00114 beside a change of
-0.28 at ~245, its v7 ``regularMarketChangePercent`` 1.271 beside a change of 3.07;
``summaryDetail.dividendYield`` 0.0041 and v7 ``dividendYield`` 0.41;
``summaryDetail.fiveYearAvgDividendYield`` 0.6; ``financialData.debtToEquity`` 145.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

FRACTION = "Fraction: 0.0079 means 0.79 %"
PERCENT = "Percent: 0.79 means 0.79 %"
PERCENT_TEXT = "Percent, as signed text: '+0.79%' means +0.79 %"
PERCENT_TEXT_UNSIGNED = "Percent, as text: '0.79%' means 0.79 %"
CURRENCY = "In the quote's currency (index points for an index), absolute"
CURRENCY_TEXT = "In the quote's currency, absolute, as signed text: '+1.23'"
MULTIPLE = "A multiple: 1.5 means 1.5 times"
DAYS = "In days (days to cover: shares short / average daily volume)"
DIMENSIONLESS = "Dimensionless (a pure number, no unit)"
SPLIT = "A multiple, as text `numerator:denominator`: `4:1` means 4 new shares for 1"
# A description gives a unit when it names one of these (whole words, any case).
UNIT_WORDS = ("fraction", "percent", "currency", "points", "basis points", "multiple",
              "days", "dimensionless")
_UNIT = re.compile(r"\b(" + "|".join(re.escape(w) for w in UNIT_WORDS) + r")\b", re.I)
# Member names that say percent, ratio, yield or change: they must state a unit.
_WORDS = {"percent", "percentage", "pct", "ratio", "yield", "change"}


def names_a_rate(name: str) -> bool:
    """Whether a member's name has one of the words (camelCase or snake_case parts)."""
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", name)
    return bool(_WORDS.intersection(part.lower() for part in parts))


def gives_unit(description: str | None) -> bool:
    return bool(description) and _UNIT.search(description or "") is not None


# -- units by source ---------------------------------------------------------------------------
# Yahoo's quoteSummary modules (the single quote): fractions, except where Yahoo says otherwise.
QUOTE_SUMMARY: dict[str, str] = {
    **dict.fromkeys(("regularMarketChangePercent", "preMarketChangePercent",
                     "postMarketChangePercent", "dividendYield", "trailingAnnualDividendYield",
                     "yieldValue", "payoutRatio", "heldPercentInsiders",
                     "heldPercentInstitutions", "sharesPercentSharesOut",
                     "shortPercentOfFloat", "week52Change", "benchmark52WeekChange",
                     "earningsGrowth", "earningsQuarterlyGrowth", "revenueGrowth",
                     "grossMargins", "ebitdaMargins", "operatingMargins", "profitMargins",
                     "returnOnAssets", "returnOnEquity"), FRACTION),
    **dict.fromkeys(("regularMarketChange", "preMarketChange", "postMarketChange"), CURRENCY),
    "fiveYearAvgDividendYield": PERCENT,  # summaryDetail: 0.6 is 0.6 %
    "debtToEquity": "Percent: 145 means debt is 145 % of equity",
    "currentRatio": MULTIPLE, "quickRatio": MULTIPLE, "shortRatio": DAYS,
}
# Yahoo's v7 quote batch: the change percents and dividendYield in percent;
# trailingAnnualDividendYield stays a fraction, week52Change is converted to one.
_V7 = {
    **dict.fromkeys(("regularMarketChangePercent", "preMarketChangePercent",
                     "postMarketChangePercent", "dividendYield"), PERCENT),
    **dict.fromkeys(("regularMarketChange", "preMarketChange", "postMarketChange"), CURRENCY),
    "trailingAnnualDividendYield": FRACTION,
    "week52Change": FRACTION + " (v7's `fiftyTwoWeekChangePercent`, a percent, divided by 100)",
}


def _batch_quote() -> dict[str, str]:
    """The GqlQuote of a v7 batch: v7's units where it carries the member (``_V7``: the
    v7 parser's members, checked by the tests; the apps never import a provider), else a
    null (the single quote's unit named for reference)."""
    out = dict(_V7)
    for name, unit in QUOTE_SUMMARY.items():
        out.setdefault(name, "Always null here: the quote batch does not carry it (on "
                             f"`/v2/quote`: {unit[0].lower()}{unit[1:]})")
    return out


# Yahoo's screeners (predefined and custom): v7's vocabulary.
SCREENER: dict[str, str] = {
    **dict.fromkeys(("regularMarketChangePercent", "preMarketChangePercent",
                     "postMarketChangePercent", "fiftyTwoWeekChangePercent", "dividendYield"),
                    PERCENT),
    **dict.fromkeys(("fiftyDayAverageChangePercent", "twoHundredDayAverageChangePercent",
                     "trailingAnnualDividendYield"), FRACTION),
    **dict.fromkeys(("regularMarketChange", "preMarketChange", "postMarketChange",
                     "fiftyDayAverageChange", "twoHundredDayAverageChange"), CURRENCY),
    "fiftyTwoWeekChange": "Null: Yahoo's screeners do not send it (by Yahoo's naming an "
                          "absolute change in the quote's currency)",
}
_V1_QUOTE = {"change": CURRENCY_TEXT, "percentChange": PERCENT_TEXT,
             "yield": PERCENT_TEXT_UNSIGNED, "expenseRatio": PERCENT_TEXT_UNSIGNED}

# Every operation unless BY_PATH says otherwise.
UNITS: dict[str, str] = {
    "regularMarketChange": CURRENCY,
    "change": CURRENCY,
    # v1 holders (insider purchases: netSharePurchaseActivity), v2 holders' ownership lists.
    **dict.fromkeys(("net_percent_insider_shares", "buy_percent_insider_shares",
                     "sell_percent_insider_shares", "pctHeld", "pctChange"), FRACTION),
    # Backtest results ending in Pct are percentages (its parameters' are fractions).
    **dict.fromkeys(("annualizedReturnPct", "avgLossPct", "avgTradeReturnPct", "avgWinPct",
                     "maxDrawdownPct", "timeInMarketPct", "totalReturnPct", "returnPct",
                     "drawdownPct"), "Percent: 5.0 means 5 %"),
    **dict.fromkeys(("calmarRatio", "omegaRatio", "serenityRatio", "sharpeRatio",
                     "sortinoRatio", "tailRatio", "informationRatio"), DIMENSIONLESS),
    "ratio": SPLIT,
}
BY_PATH: dict[str, dict[str, str]] = {
    "/v2/quote/{symbol}": QUOTE_SUMMARY,
    "/v2/screeners/{screener}": SCREENER,
    "/v2/screeners/custom": SCREENER,
    "/v1/quotes": _V1_QUOTE, "/v1/simple-quotes": _V1_QUOTE, "/v1/similar": _V1_QUOTE,
    "/v1/actives": _V1_QUOTE, "/v1/gainers": _V1_QUOTE, "/v1/losers": _V1_QUOTE,
    "/v2/forex/{from}/{to}": {"change": "In the quote currency (`to` per unit of `from`), "
                                        "absolute"},
    "/v2/futures/{symbol}": {"change": "In the contract's currency, absolute"},
    "/v2/analysis/{symbol}/{type}": {"surprisePercent": "Fraction (with `format=raw`): "
                                                        "0.0205 means 2.05 %"},
}
_BATCH_PATHS = ("/v2/quotes", "/v2/indices")


def units_for(path: str) -> Mapping[str, str]:
    if path in _BATCH_PATHS:
        return {**UNITS, **_batch_quote()}
    return {**UNITS, **BY_PATH.get(path, {})}


# -- the hook ----------------------------------------------------------------------------------
def postprocess_units(result: dict[str, Any], generator: Any, request: Any, public: bool,
                      **kwargs: Any) -> dict[str, Any]:
    """Each 200 JSON schema of each operation with its members' units. Inline schemas are
    copied before they change (one may be several operations' own, of different units); a
    component gets the units in place when every operation reaching it gives the same ones
    (its name stays, for generated clients), else the operation inlines its own copy."""
    components = result.get("components", {}).get("schemas", {})
    state = _State(components, copy.deepcopy(components))
    for path, operations in result.get("paths", {}).items():
        units = units_for(path)
        for operation in operations.values():
            if not isinstance(operation, dict):
                continue
            ok = (operation.get("responses") or {}).get("200")
            for media_type, media in ((ok or {}).get("content") or {}).items():
                if "json" in media_type and isinstance(media, dict) and "schema" in media:
                    media["schema"] = state.apply(copy.deepcopy(media["schema"]), units, 0)
    return result


class _State:
    def __init__(self, components: dict[str, Any], originals: dict[str, Any]) -> None:
        self.components = components
        self.originals = originals  # as generated: each operation's units start from these
        self.applied: dict[str, Any] = {}  # component -> the version written in place

    def apply(self, node: Any, units: Mapping[str, str], depth: int) -> Any:
        if not isinstance(node, dict) or depth > 24:
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            return self._component(node, ref.rsplit("/", 1)[1], units, depth)
        for key in ("oneOf", "anyOf", "allOf", "prefixItems"):
            if isinstance(node.get(key), list):
                node[key] = [self.apply(a, units, depth + 1) for a in node[key]]
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                node[key] = self.apply(node[key], units, depth + 1)
        properties = node.get("properties")
        if isinstance(properties, dict):
            for name, sub in list(properties.items()):
                sub = self.apply(sub, units, depth + 1)
                unit = units.get(name)
                if unit is not None and isinstance(sub, dict) and \
                        not gives_unit(sub.get("description")):
                    rest = sub.get("description", "")
                    sub = {**sub, "description": f"{unit}. {rest}" if rest else unit}
                properties[name] = sub
        return node

    def _component(self, node: dict[str, Any], name: str, units: Mapping[str, str],
                   depth: int) -> Any:
        original = self.originals.get(name)
        if original is None:
            return node
        updated = self.apply(copy.deepcopy(original), units, depth + 1)
        if updated == original and name not in self.applied:
            return node
        if self.applied.setdefault(name, updated) == updated:
            self.components[name] = updated
            return node
        # Another operation gave this component other units: this one has its own copy.
        return {**{k: v for k, v in node.items() if k != "$ref"}, **updated}
