from typing import Any

from rest_framework import serializers

from apps.core.v2 import STRING, FieldsQuery, object_schema, value_format_param
from apps.quotes.serializers import LangParam
from marketdata.records.sectors import (
    FUND_MEMBERS,
    GROWTH_COMPANY_MEMBERS,
    INDUSTRY_COMPANY_MEMBERS,
    INDUSTRY_OVERVIEW_MEMBERS,
    INDUSTRY_REPORT_MEMBERS,
    PERFORMANCE_MEMBERS,
    PERFORMING_COMPANY_MEMBERS,
    SECTOR_COMPANY_MEMBERS,
    SECTOR_INDUSTRY_MEMBERS,
    SECTOR_OVERVIEW_MEMBERS,
    SECTOR_REPORT_MEMBERS,
)


class MarketSector(serializers.Serializer):
    sector = serializers.CharField()
    dayReturn = serializers.CharField(help_text="e.g. +0.45%")  # noqa: N815
    ytdReturn = serializers.CharField()  # noqa: N815
    yearReturn = serializers.CharField()  # noqa: N815
    threeYearReturn = serializers.CharField()  # noqa: N815
    fiveYearReturn = serializers.CharField()  # noqa: N815


class MarketSectorDetails(MarketSector):
    marketCap = serializers.CharField(help_text="e.g. 20.2T")  # noqa: N815
    marketWeight = serializers.CharField(  # noqa: N815
        help_text="Share of the whole market, e.g. 29.28%")
    industries = serializers.IntegerField(help_text="Number of industries in the sector")
    companies = serializers.IntegerField(help_text="Number of companies in the sector")
    topIndustries = serializers.ListField(  # noqa: N815
        child=serializers.CharField(),
        help_text="Up to 10 'Industry: weight%' strings, largest weight first")
    topCompanies = serializers.ListField(  # noqa: N815
        child=serializers.CharField(), help_text="Up to 10 symbols, largest weight first")


# -- v2 -----------------------------------------------------------------------------------------
class V2SectorQuery(FieldsQuery):
    format = value_format_param()
    lang = LangParam(required=False, help_text=(
        "BCP 47 language tag for Yahoo's texts (e.g. `de-DE`); default `en-US`. The "
        "`Accept-Language` header is not read (the response cache does not key on it)"))


# A number member: its form follows `format`.
VALUE: dict[str, Any] = {
    "anyOf": [{"type": "number"}, {"type": "string"},
              object_schema({"raw": {"type": "number"}, "fmt": {"type": "string"},
                             "longFmt": {"type": "string"}}, required=("raw",)),
              {"type": "null"}],
    "description": "A number with `format=raw` (default); Yahoo's formatted string with "
                   "`format=pretty` (null when Yahoo sends none); a `{raw, fmt, longFmt}` "
                   "object with `format=both`"}
_FRACTION = "a fraction (0.012 is 1.2 %)"
_DESCRIPTIONS = {
    "dayChangePercent": f"Change today, {_FRACTION}",
    "ytdChangePercent": f"Change this year to date, {_FRACTION}",
    "oneYearChangePercent": f"Change over one year, {_FRACTION}",
    "threeYearChangePercent": f"Change over three years, {_FRACTION}",
    "fiveYearChangePercent": f"Change over five years, {_FRACTION}",
    "ytdReturn": f"Return this year to date, {_FRACTION}",
    "marketWeight": f"Share of the parent's market capitalisation, {_FRACTION}",
    "expenseRatio": f"Yearly expense ratio, {_FRACTION}",
    "growthEstimate": f"Analysts' earnings growth estimate, {_FRACTION}",
    "marketCap": "Market capitalisation (USD)",
    "netAssets": "Net assets (USD)",
    "companiesCount": "Number of companies",
    "industriesCount": "Number of industries",
    "employeeCount": "Number of employees",
    "reportDate": "Publication time (ISO 8601)",
    "headline": "The report's headline (Yahoo's `headHtml`: HTML)",
    "title": "The report's title",
    "rating": "Analysts' consensus rating, e.g. `Buy`",
    "investmentRating": "`Bullish`, `Neutral` or `Bearish`",
    "targetPriceStatus": "`Increased`, `Maintained`, `Decreased`...",
}
_TEXT_MEMBERS = {"symbol", "name", "key", "description", "rating", "id", "headline",
                 "provider", "reportDate", "reportTitle", "reportType", "targetPriceStatus",
                 "investmentRating", "title"}


def _member_schema(name: str) -> dict[str, Any]:
    schema = dict(STRING) if name in _TEXT_MEMBERS else dict(VALUE)
    if name in _DESCRIPTIONS:
        schema["description"] = (_DESCRIPTIONS[name] + ". " + schema["description"]
                                 if "description" in schema else _DESCRIPTIONS[name])
    return schema


def _object(members: tuple[str, ...], description: str, nullable: bool = True,
            ) -> dict[str, Any]:
    schema = object_schema({name: _member_schema(name) for name in members}, description)
    if nullable:
        schema["type"] = ["object", "null"]
    return schema


def _list(members: tuple[str, ...], description: str) -> dict[str, Any]:
    return {"type": "array", "description": description,
            "items": _object(members, "One row", nullable=False)}


PERFORMANCE_SCHEMA = _object(PERFORMANCE_MEMBERS, "Returns of the group's index")
SECTOR_RESPONSE = object_schema({
    "name": STRING, "symbol": {**STRING, "description": "Yahoo's index of the sector, e.g. "
                                                        "`^YH311`"},
    "key": STRING,
    "overview": _object(SECTOR_OVERVIEW_MEMBERS, "The sector's size"),
    "performance": PERFORMANCE_SCHEMA,
    "benchmark": _object(PERFORMANCE_MEMBERS, "Returns of the benchmark (Yahoo's "
                                              "`performanceOverviewBenchmark`)"),
    "benchmarkName": {**STRING, "description": "The benchmark, e.g. `S&P 500`"},
    "topCompanies": _list(SECTOR_COMPANY_MEMBERS, "The largest companies, Yahoo's order"),
    "topEtfs": _list(FUND_MEMBERS, "ETFs of the sector"),
    "topMutualFunds": _list(FUND_MEMBERS, "Mutual funds of the sector"),
    "industries": _list(SECTOR_INDUSTRY_MEMBERS, "The sector's industries (Yahoo's \"All "
                                                 "Industries\" aggregate left out); `key` "
                                                 "is a `/v2/industries/{industry}` path"),
    "researchReports": _list(SECTOR_REPORT_MEMBERS, "Analyst research on the sector"),
}, "One sector; `fields` selects these members")
INDUSTRY_RESPONSE = object_schema({
    "name": STRING, "key": STRING,
    "symbol": {**STRING, "description": "Yahoo's index of the industry"},
    "sectorName": STRING,
    "sectorKey": {**STRING, "description": "A `/v2/sectors/{sector}` path"},
    "overview": _object(INDUSTRY_OVERVIEW_MEMBERS, "The industry's size"),
    "performance": PERFORMANCE_SCHEMA,
    "benchmark": object_schema(
        {"name": {**STRING, "description": "The benchmark, e.g. `S&P 500`"},
         **{name: _member_schema(name) for name in PERFORMANCE_MEMBERS}},
        "Returns of the benchmark (Yahoo's `performanceOverviewBenchmark`)")
    | {"type": ["object", "null"]},
    "topCompanies": _list(INDUSTRY_COMPANY_MEMBERS, "The largest companies, Yahoo's order"),
    "topPerformingCompanies": _list(PERFORMING_COMPANY_MEMBERS,
                                    "The best year-to-date returns"),
    "topGrowthCompanies": _list(GROWTH_COMPANY_MEMBERS, "The highest growth estimates"),
    "researchReports": _list(INDUSTRY_REPORT_MEMBERS, "Analyst research on the industry"),
}, "One industry; `fields` selects these members")
