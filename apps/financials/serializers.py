from rest_framework import serializers

from apps.core.params import QuerySerializer, choice
from marketdata.records.fundamentals import FREQUENCIES, STATEMENTS


class FinancialsQuery(QuerySerializer):
    statement = choice(STATEMENTS, help_text="Which statement: income statement, balance sheet "
                       "or cash flow. Required: the three are different resources")
    frequency = choice(FREQUENCIES, required=False, default="annual",
                       help_text="Reporting period: annual (fiscal years) or quarterly")


class FinancialStatement(serializers.Serializer):
    symbol = serializers.CharField(help_text="The symbol, upper-cased")
    statement_type = serializers.ChoiceField(choices=list(STATEMENTS))
    frequency = serializers.ChoiceField(choices=list(FREQUENCIES))
    statement = serializers.DictField(
        child=serializers.DictField(child=serializers.FloatField()),
        help_text="Period end date (YYYY-MM-DD, newest first) -> metric name -> number. "
                  "Amounts are in the company's reporting currency; integral values are "
                  "integers, per-share values (EPS) decimals")


FINANCIALS_EXAMPLE = {
    "symbol": "AAPL", "statement_type": "income", "frequency": "annual",
    "statement": {
        "2024-09-30": {"Total Revenue": 391035000000, "Cost Of Revenue": 210352000000,
                       "Gross Profit": 180683000000, "Net Income": 93736000000,
                       "Diluted EPS": 6.08, "EBITDA": 134661000000},
        "2023-09-30": {"Total Revenue": 383285000000, "Cost Of Revenue": 214137000000,
                       "Gross Profit": 169148000000, "Net Income": 96995000000,
                       "Diluted EPS": 6.13, "EBITDA": 125820000000},
    },
}
