from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.params import QuerySerializer, choice, validate_query
from apps.core.schema import error_responses
from apps.core.symbols import require_symbol
from apps.core.views import ApiView
from apps.sectors.serializers import MarketSector, MarketSectorDetails
from apps.sectors.services import (
    SECTOR_CHOICES,
    TOP_COMPANIES,
    TOP_INDUSTRIES,
    all_sectors,
    details_for,
    sector_for_symbol,
)

_RETURNS = ("Returns are price changes of Yahoo Finance's sector index: day, year to date, "
            "one, three and five years, signed percent strings such as `+1.23%`.")


class SectorPath(QuerySerializer):
    sector = choice(SECTOR_CHOICES)


class SectorsView(ApiView):
    @extend_schema(
        operation_id="get_sectors", tags=["Sectors"], summary="Performance of all sectors",
        description=("The 11 sectors, largest first (Yahoo's order). " + _RETURNS
                     + " A sector whose upstream call fails is left out; 502/503/504 when "
                     "all fail."),
        responses={200: MarketSector(many=True), **error_responses(upstream=True)})
    def get(self, request: Request) -> Response:
        # A partial answer is marked no-store by the response-cache middleware.
        return Response(all_sectors())


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
        responses={200: MarketSector, **error_responses(404, 422, upstream=True)})
    def get(self, request: Request, symbol: str) -> Response:
        return Response(sector_for_symbol(require_symbol(symbol)))


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
        responses={200: MarketSectorDetails, **error_responses(422, upstream=True)})
    def get(self, request: Request, sector: str) -> Response:
        name = validate_query(SectorPath, {"sector": sector})["sector"]
        return Response(details_for(name))
