"""Analysis: the query declarations and the response shapes (for the docs): v1's
AnalysisData and v2's module (its members are the records':
:mod:`marketdata.records.analysts`)."""

from rest_framework import serializers

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


class RecommendationData(serializers.Serializer):
    period = serializers.CharField(allow_null=True,
                                   help_text='Month: "0m" current, "-1m" one month ago, ...')
    strong_buy = serializers.IntegerField(allow_null=True)
    buy = serializers.IntegerField(allow_null=True)
    hold = serializers.IntegerField(allow_null=True)
    sell = serializers.IntegerField(allow_null=True)
    strong_sell = serializers.IntegerField(allow_null=True)


class UpgradeDowngrade(serializers.Serializer):
    firm = serializers.CharField(allow_null=True)
    to_grade = serializers.CharField(allow_null=True)
    from_grade = serializers.CharField(allow_null=True,
                                       help_text='"" on an initiation, as Yahoo sends it')
    action = serializers.ChoiceField(
        choices=["upgrade", "downgrade"], allow_null=True,
        help_text="upgrade or downgrade (Yahoo's up, down); null for other rating actions "
        "(Yahoo's main, init, reit: maintained, initiated, reiterated)")
    date = serializers.DateTimeField(allow_null=True, help_text="ISO 8601, UTC")


class PriceTarget(serializers.Serializer):
    current = serializers.FloatField(allow_null=True, help_text="Current price")
    mean = serializers.FloatField(allow_null=True)
    median = serializers.FloatField(allow_null=True)
    low = serializers.FloatField(allow_null=True)
    high = serializers.FloatField(allow_null=True)


class _EstimateValue(serializers.Serializer):
    avg = serializers.FloatField(allow_null=True)
    low = serializers.FloatField(allow_null=True)
    high = serializers.FloatField(allow_null=True)
    numberOfAnalysts = serializers.IntegerField(allow_null=True)  # noqa: N815
    growth = serializers.FloatField(allow_null=True,
                                    help_text="Expected growth, a fraction (0.051 = 5.1%)")
    period = serializers.CharField(allow_null=True, help_text='"0q", "+1q", "0y" or "+1y"')
    currency = serializers.CharField(allow_null=True)


class EarningsEstimateValue(_EstimateValue):
    yearAgoEps = serializers.FloatField(allow_null=True)  # noqa: N815


class RevenueEstimateValue(_EstimateValue):
    yearAgoRevenue = serializers.FloatField(allow_null=True)  # noqa: N815


class EarningsEstimate(serializers.Serializer):
    estimates = serializers.DictField(child=EarningsEstimateValue(),
                                      help_text="Period end date (YYYY-MM-DD) -> EPS estimate")


class RevenueEstimate(serializers.Serializer):
    estimates = serializers.DictField(child=RevenueEstimateValue(),
                                      help_text="Period end date (YYYY-MM-DD) -> revenue "
                                      "estimate (same shape as the EPS estimates)")


class EarningsHistoryItem(serializers.Serializer):
    date = serializers.DateTimeField(allow_null=True, help_text="Fiscal quarter end, UTC")
    eps_actual = serializers.FloatField(allow_null=True)
    eps_estimate = serializers.FloatField(allow_null=True)
    surprise = serializers.FloatField(allow_null=True, help_text="Actual minus estimate")
    surprise_percent = serializers.FloatField(allow_null=True,
                                              help_text="A fraction (0.0205 = 2.05%)")


class _Scores(serializers.Serializer):
    environmentScore = serializers.FloatField(allow_null=True)  # noqa: N815
    socialScore = serializers.FloatField(allow_null=True)  # noqa: N815
    governanceScore = serializers.FloatField(allow_null=True)  # noqa: N815
    totalEsg = serializers.FloatField(allow_null=True)  # noqa: N815


class SustainabilityScores(serializers.Serializer):
    scores = _Scores()


class AnalysisData(serializers.Serializer):
    symbol = serializers.CharField(help_text="The symbol, upper-cased")
    analysis_type = serializers.ChoiceField(choices=list(ANALYSIS_TYPES))
    recommendations = RecommendationData(many=True, allow_null=True)
    upgrades_downgrades = UpgradeDowngrade(many=True, allow_null=True)
    price_targets = PriceTarget(allow_null=True)
    earnings_estimate = EarningsEstimate(allow_null=True)
    revenue_estimate = RevenueEstimate(allow_null=True)
    earnings_history = EarningsHistoryItem(many=True, allow_null=True)
    sustainability = SustainabilityScores(allow_null=True)


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
