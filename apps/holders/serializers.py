"""Holders: the query declarations, the reference's sub-route bodies' one component, v1's
example and v2's module schema (v1's members are
:class:`apps.holders.services.HoldersData`'s and the reference records', v2's the records':
:mod:`marketdata.records.fundamentals`)."""

from drf_spectacular.utils import PolymorphicProxySerializer

from apps.analysis.modules import V2ModuleQuery, module_order_param, v2_module_schema
from apps.core.params import QuerySerializer, choice
from apps.core.shapes import v1_component
from apps.holders.services import (
    ALIASES,
    HOLDER_TYPES,
    HOLDERS,
    HolderListResponse,
    InsiderPurchasesResponse,
    InsiderRosterResponse,
    InsiderTransactionsResponse,
    MajorHoldersResponse,
)

# The sub-route form's names in the docs: the reference's only. The underscore spellings
# (the query's values) are accepted too but not listed: a code generator turns both
# spellings into the same constant name and fails (documented in the description instead).
ALIAS_NAMES = ("major", "institutional", "mutualfund", *ALIASES)


class HoldersQuery(QuerySerializer):
    holder_type = choice(HOLDER_TYPES, help_text="Which holders to return. Required: the six "
                         "types are different resources")


HOLDERS_ALIAS_RESPONSE = PolymorphicProxySerializer(
    component_name="HoldersReferenceResponse",
    serializers=[v1_component(record) for record in (
        MajorHoldersResponse, HolderListResponse, InsiderTransactionsResponse,
        InsiderPurchasesResponse, InsiderRosterResponse)],
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
