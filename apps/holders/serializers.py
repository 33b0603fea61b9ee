"""Holders: the query declarations, the HoldersData response shape, the reference's
sub-route bodies and v2's module (its members are the records':
:mod:`marketdata.records.fundamentals`)."""

from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from apps.analysis.modules import V2ModuleQuery, module_order_param, v2_module_schema
from apps.core.params import QuerySerializer, choice
from apps.holders.services import ALIASES, HOLDER_TYPES, HOLDERS

# The sub-route form's names in the docs: the reference's only. The underscore spellings
# (the query's values) are accepted too but not listed: a code generator turns both
# spellings into the same constant name and fails (documented in the description instead).
ALIAS_NAMES = ("major", "institutional", "mutualfund", *ALIASES)


class HoldersQuery(QuerySerializer):
    holder_type = choice(HOLDER_TYPES, help_text="Which holders to return. Required: the six "
                         "types are different resources")


class MajorHoldersBreakdown(serializers.Serializer):
    breakdown_data = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="Metric -> number: institutionsPercentHeld, insidersPercentHeld, "
                  "institutionsFloatPercentHeld (fractions: 0.627 = 62.7%) and "
                  "institutionsCount (integer); the four are always present (null when "
                  "Yahoo has no value), other metrics Yahoo adds are passed through")


class Holder(serializers.Serializer):
    holder = serializers.CharField(allow_null=True)
    shares = serializers.IntegerField(allow_null=True)
    date_reported = serializers.DateTimeField(allow_null=True, help_text="ISO 8601, UTC")
    percent_out = serializers.FloatField(allow_null=True,
                                         help_text="Fraction of shares outstanding")
    value = serializers.IntegerField(allow_null=True)


class InsiderTransaction(serializers.Serializer):
    start_date = serializers.DateTimeField(allow_null=True, help_text="ISO 8601, UTC")
    insider = serializers.CharField(allow_null=True)
    position = serializers.CharField(allow_null=True)
    transaction = serializers.CharField(allow_null=True,
                                        help_text='Yahoo\'s text; "" on grants and gifts')
    shares = serializers.IntegerField(allow_null=True)
    value = serializers.IntegerField(allow_null=True)
    ownership = serializers.CharField(allow_null=True, help_text="D (direct) or I (indirect)")


class InsiderPurchase(serializers.Serializer):
    period = serializers.CharField(allow_null=True, help_text='e.g. "6m"')
    purchases_shares = serializers.IntegerField(allow_null=True)
    purchases_transactions = serializers.IntegerField(allow_null=True)
    sales_shares = serializers.IntegerField(allow_null=True)
    sales_transactions = serializers.IntegerField(allow_null=True)
    net_shares = serializers.IntegerField(allow_null=True)
    net_transactions = serializers.IntegerField(allow_null=True)
    total_insider_shares = serializers.IntegerField(allow_null=True)
    net_percent_insider_shares = serializers.FloatField(allow_null=True)
    buy_percent_insider_shares = serializers.FloatField(allow_null=True)
    sell_percent_insider_shares = serializers.FloatField(allow_null=True)


class InsiderRosterMember(serializers.Serializer):
    name = serializers.CharField(allow_null=True)
    position = serializers.CharField(allow_null=True)
    most_recent_transaction = serializers.CharField(allow_null=True)
    latest_transaction_date = serializers.DateTimeField(allow_null=True)
    shares_owned_directly = serializers.IntegerField(allow_null=True)
    shares_owned_indirectly = serializers.IntegerField(allow_null=True)
    position_direct_date = serializers.DateTimeField(allow_null=True)


class HoldersData(serializers.Serializer):
    symbol = serializers.CharField(help_text="The symbol, upper-cased")
    holder_type = serializers.ChoiceField(choices=list(HOLDER_TYPES))
    major_breakdown = MajorHoldersBreakdown(allow_null=True)
    institutional_holders = Holder(many=True, allow_null=True)
    mutualfund_holders = Holder(many=True, allow_null=True)
    insider_transactions = InsiderTransaction(many=True, allow_null=True)
    insider_purchases = InsiderPurchase(allow_null=True)
    insider_roster = InsiderRosterMember(many=True, allow_null=True)


# -- the reference's sub-route bodies ----------------------------------------------------------
class MajorHoldersResponse(serializers.Serializer):
    symbol = serializers.CharField()
    breakdown = MajorHoldersBreakdown()


class HolderListResponse(serializers.Serializer):
    symbol = serializers.CharField()
    holders = Holder(many=True)


class InsiderTransactionsResponse(serializers.Serializer):
    symbol = serializers.CharField()
    transactions = InsiderTransaction(many=True)


class InsiderPurchasesResponse(serializers.Serializer):
    symbol = serializers.CharField()
    summary = InsiderPurchase()


class InsiderRosterResponse(serializers.Serializer):
    symbol = serializers.CharField()
    roster = InsiderRosterMember(many=True)


HOLDERS_ALIAS_RESPONSE = PolymorphicProxySerializer(
    component_name="HoldersReferenceResponse",
    serializers=[MajorHoldersResponse, HolderListResponse, InsiderTransactionsResponse,
                 InsiderPurchasesResponse, InsiderRosterResponse],
    resource_type_field_name=None,
)

HOLDERS_EXAMPLE = {
    "symbol": "AAPL", "holder_type": "institutional", "major_breakdown": None,
    "institutional_holders": [
        {"holder": "Vanguard Group Inc", "shares": 1395785512,
         "date_reported": "2024-12-31T00:00:00Z", "percent_out": 0.0929,
         "value": 342735136731},
    ],
    "mutualfund_holders": None, "insider_transactions": None, "insider_purchases": None,
    "insider_roster": None,
}


# -- v2 ---------------------------------------------------------------------------------------
class V2HoldersQuery(V2ModuleQuery):
    """`fields` selects top-level members; `cursor`/`limit` page the list types' list;
    `order` reads `insider-transactions` in either order."""

    order = module_order_param(HOLDERS)


V2_HOLDERS_RESPONSE = v2_module_schema("holders", HOLDERS)
