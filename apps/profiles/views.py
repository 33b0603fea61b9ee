"""v2 company profile."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView
from apps.profiles.serializers import V2CompanyProfileQuery
from apps.profiles.services import company_profile
from marketdata.records.companies import CompanyProfile


@route("v2/company-profile/<str:symbol>", name="v2-company-profile")
class V2CompanyProfileView(V2ApiView):
    """Who a company (or fund) is: `{symbol, name, description, assetType, exchange,
    currency, country, sector, industry, marketCapitalization, website, phone, address,
    employees, fundFamily, fundCategory}`, every member but `symbol` nullable.

    Source: Alpha Vantage's `OVERVIEW` when `ALPHAVANTAGE_API_KEY` is set; when it refuses
    the key, its call allowance is spent, it fails, or it does not cover the symbol (funds,
    most listings outside the US), and always without a key, Yahoo Finance's quoteSummary
    (`assetProfile`, `summaryProfile`, `fundProfile`, `price`, `quoteType` in one call).
    Values are the source's words (Alpha Vantage writes `TECHNOLOGY` and `Common Stock`,
    Yahoo `Technology` and `EQUITY`); Alpha Vantage has no `phone`, `employees`,
    `fundFamily` or `fundCategory`. A fund has no sector, industry or address: those are
    null, its family and category filled. `fields` selects members.

    404 when the symbol is malformed or unknown; 502/503/504/429 name the provider that
    failed."""

    query_serializer = V2CompanyProfileQuery
    response_schema = record_schema(
        CompanyProfile, "Company profile; `fields` selects members (a requested member is "
        "present even when null)")
    operation_id, tag = "get_company_profile", "Companies (v2)"
    summary = "Company profile"

    output = record_output(CompanyProfile)

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(company_profile(symbol))
