"""Analysis: the query declarations, v1's example and v2's module schema (v1's members are
:class:`apps.analysis.services.AnalysisData`'s, v2's the records':
:mod:`marketdata.records.analysts`)."""

from apps.analysis.modules import V2ModuleQuery, module_order_param, v2_module_schema
from apps.analysis.services import ALIASES, ANALYSIS, ANALYSIS_TYPES
from apps.core.params import QuerySerializer, choice

# The sub-route form's names in the docs: the reference's only. The underscore spellings
# (the query's values) are accepted too but not listed: a code generator turns both
# spellings into the same constant name and fails (documented in the description instead).
ALIAS_NAMES = ("recommendations", *ALIASES, "sustainability")


class AnalysisQuery(QuerySerializer):
    analysis_type = choice(ANALYSIS_TYPES, help_text="Which analysis to return. Required: the "
                           "seven types are different resources")


ANALYSIS_EXAMPLE = {
    "symbol": "AAPL", "analysis_type": "recommendations",
    "recommendations": [
        {"period": "0m", "strong_buy": 7, "buy": 21, "hold": 14, "sell": 2, "strong_sell": 2},
        {"period": "-1m", "strong_buy": 8, "buy": 21, "hold": 13, "sell": 2, "strong_sell": 2},
    ],
    "upgrades_downgrades": None, "price_targets": None, "earnings_estimate": None,
    "revenue_estimate": None, "earnings_history": None, "sustainability": None,
}


# -- v2 ---------------------------------------------------------------------------------------
class V2AnalysisQuery(V2ModuleQuery):
    """`fields` selects top-level members; `cursor`/`limit` page the type's list member;
    `order` reads a time-ordered type's list in either order."""

    order = module_order_param(ANALYSIS)


V2_ANALYSIS_RESPONSE = v2_module_schema("analysis", ANALYSIS)
