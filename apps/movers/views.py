from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.schema import error_responses
from apps.core.views import ApiView
from apps.movers.serializers import MarketMover, MoversQuery
from apps.movers.services import market_movers

_NOTES = (" At most `count` rows (fewer when Yahoo lists fewer). Prices use the "
          "instrument's precision with thousands separators; `change` and `percentChange` "
          "always carry a sign ('+1.23', '-0.45%'). 422 when `count` is not 25, 50 or 100 "
          "(an empty `count=` too: leave the parameter out for the default).")


class _MoversView(ApiView):
    query_serializer = MoversQuery
    screener = ""

    def get(self, request: Request) -> Response:
        q = self.query(request)
        return Response(market_movers(self.screener, int(q["count"])))


def _schema(name: str, summary: str, description: str) -> Any:
    """The OpenAPI description shared by the three movers endpoints."""
    return extend_schema(operation_id=f"get_{name}", tags=["Market movers"], summary=summary,
                         description=description + _NOTES, parameters=[MoversQuery],
                         responses={200: MarketMover(many=True),
                                    **error_responses(422, upstream=True)})


class ActivesView(_MoversView):
    screener = "actives"

    @_schema("actives", "Most active stocks",
             "US stocks with the highest trading volume today (Yahoo's MOST_ACTIVES screener).")
    def get(self, request: Request) -> Response:
        return super().get(request)


class GainersView(_MoversView):
    screener = "gainers"

    @_schema("gainers", "Top gainers",
             "US stocks with the highest percent price increase today (DAY_GAINERS).")
    def get(self, request: Request) -> Response:
        return super().get(request)


class LosersView(_MoversView):
    screener = "losers"

    @_schema("losers", "Top losers",
             "US stocks with the highest percent price decrease today (DAY_LOSERS).")
    def get(self, request: Request) -> Response:
        return super().get(request)
