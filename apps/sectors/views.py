from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.params import QuerySerializer, choice, validate_query
from apps.core.routing import route
from apps.core.schema import error_responses
from apps.core.shapes import record_output, v1_component
from apps.core.symbols import require_symbol
from apps.core.v2 import V2ApiView
from apps.core.views import ApiView
from apps.sectors.serializers import (
    INDUSTRY_RESPONSE,
    SECTOR_RESPONSE,
    V2SectorQuery,
)
from apps.sectors.services import (
    SECTOR_CHOICES,
    TOP_COMPANIES,
    TOP_INDUSTRIES,
    MarketSector,
    MarketSectorDetails,
    all_sectors,
    details_for,
    sector_for_symbol,
    v2_industry,
    v2_sector,
)
from marketdata.records.members import as_json
from marketdata.records.sectors import (
    INDUSTRY_SLUGS,
    SECTOR_ALIASES,
    SECTORS,
    IndustryProfile,
    SectorProfile,
)

_RETURNS = ("Returns are price changes of Yahoo Finance's sector index: day, year to date, "
            "one, three and five years, signed percent strings such as `+1.23%`.")


class SectorPath(QuerySerializer):
    sector = choice(SECTOR_CHOICES)


@route("v1/sectors", name="sectors")
class SectorsView(ApiView):
    @extend_schema(
        operation_id="get_sectors", tags=["Sectors"], summary="Performance of all sectors",
        description=("The 11 sectors, largest first (Yahoo's order). " + _RETURNS
                     + " A sector whose upstream call fails is left out; 502/503/504 when "
                     "all fail."),
        responses={200: v1_component(MarketSector)(many=True), **error_responses(upstream=True)})
    def get(self, request: Request) -> Response:
        # A partial answer is marked no-store by the response-cache middleware.
        return Response(as_json(all_sectors()))


@route("v1/sectors/symbol/<anytext:symbol>", name="sector-symbol")
class SectorForSymbolView(ApiView):
    @extend_schema(
        operation_id="get_sector_for_symbol", tags=["Sectors"],
        summary="Performance of a symbol's sector",
        description=("The sector of the symbol's company profile. " + _RETURNS + " 404 when "
                     "the symbol is unknown or malformed, or has no sector (ETFs, funds, "
                     "indices, currencies, crypto): `Sector for {SYMBOL} not found.`. There "
                     "are no other parameters, so 422 is not produced in practice."),
        parameters=[OpenApiParameter("symbol", OpenApiTypes.STR, OpenApiParameter.PATH,
                                     description="Ticker symbol, e.g. AAPL")],
        responses={200: v1_component(MarketSector), **error_responses(404, 422, upstream=True)})
    def get(self, request: Request, symbol: str) -> Response:
        return Response(as_json(sector_for_symbol(require_symbol(symbol))))


@route("v1/sectors/details/<anytext:sector>", name="sector-details")
class SectorDetailsView(ApiView):
    @extend_schema(
        operation_id="get_sector_details", tags=["Sectors"], summary="Details of one sector",
        description=(_RETURNS + " `marketCap` is abbreviated (`20.2T`), `marketWeight` is the "
                     "sector's share of the whole market. `topIndustries` lists at most "
                     f"{TOP_INDUSTRIES} industries and `topCompanies` at most {TOP_COMPANIES} "
                     "symbols, largest market weight first. The path value is the exact "
                     "display name (URL-encoded, e.g. `Basic%20Materials`); anything else, "
                     "including values with `/` or control characters, is 422."),
        parameters=[OpenApiParameter("sector", OpenApiTypes.STR, OpenApiParameter.PATH,
                                     enum=list(SECTOR_CHOICES), description="Sector name")],
        responses={200: v1_component(MarketSectorDetails), **error_responses(422, upstream=True)})
    def get(self, request: Request, sector: str) -> Response:
        name = validate_query(SectorPath, {"sector": sector})["sector"]
        return Response(as_json(details_for(name)))


# -- v2 -----------------------------------------------------------------------------------------
V2_TAG = "Sectors (v2)"
_NUMBERS = ("`format`: `raw` (default) numbers, `pretty` (alias `fmt`) Yahoo's formatted "
            "strings, `both` (alias `full`) the `{raw, fmt, longFmt}` objects; any case, "
            "anything else raw. Percent members (`*ChangePercent`, `ytdReturn`, "
            "`marketWeight`, ...) are fractions (0.012 is 1.2 %). `lang` (BCP 47, default "
            "`en-US`) chooses the language of Yahoo's texts. `fields` selects top-level "
            "members.")


@route("v2/sectors/<str:sector>", name="v2-sector")
class V2SectorView(V2ApiView):
    __doc__ = ("""One sector from Yahoo Finance: its size (`overview`), returns of its index
    and of the S&P 500 (`performance`, `benchmark`, `benchmarkName`), its largest companies,
    ETFs and mutual funds, its industries (each `key` is a `/v2/industries/{industry}`
    path) and analyst research. 400 for an unknown sector, before any upstream call.
    """ + _NUMBERS)

    query_serializer = V2SectorQuery
    path_choices = {"sector": (*SECTORS, *SECTOR_ALIASES)}
    # The enum goes with the description: a described path value replaces the bare one.
    path_descriptions = {"sector": {
        "description": "Sector key, or an alias: " + ", ".join(
            f"`{alias}` = `{key}`" for alias, key in SECTOR_ALIASES.items()),
        "enum": list(path_choices["sector"])}}
    response_schema = SECTOR_RESPONSE
    output = record_output(SectorProfile)
    operation_id, tag = "get_sector_v2", V2_TAG
    summary = "One sector"

    def get(self, request: Request, sector: str) -> Response:
        q = self.params
        return self.answer(v2_sector(sector, q.get("lang"), q["format"]))


@route("v2/industries/<str:industry>", name="v2-industry")
class V2IndustryView(V2ApiView):
    __doc__ = ("""One industry from Yahoo Finance: its sector (`sectorName`, `sectorKey`),
    size (`overview`), returns of its index and of the S&P 500 (`performance`,
    `benchmark`), its largest companies, its best year-to-date performers
    (`topPerformingCompanies`), its highest growth estimates (`topGrowthCompanies`) and
    analyst research. The path is one of the listed slugs (400 otherwise, before any
    upstream call); 404 when Yahoo has no page for it.
    """ + _NUMBERS)

    query_serializer = V2SectorQuery
    path_choices = {"industry": INDUSTRY_SLUGS}
    path_descriptions = {"industry": {
        "description": "Industry slug, e.g. `semiconductors`, `software-infrastructure`, "
                       "`banks-regional`", "enum": list(INDUSTRY_SLUGS)}}
    response_schema = INDUSTRY_RESPONSE
    output = record_output(IndustryProfile)
    operation_id, tag = "get_industry_v2", V2_TAG
    summary = "One industry"

    def get(self, request: Request, industry: str) -> Response:
        q = self.params
        return self.answer(v2_industry(industry, q.get("lang"), q["format"]))
