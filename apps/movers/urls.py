from django.urls import path

from apps.movers.views import (
    ActivesView,
    GainersView,
    LosersView,
    V2CustomScreenerView,
    V2ScreenerView,
)

urlpatterns = [
    path("actives", ActivesView.as_view(), name="actives"),
    path("gainers", GainersView.as_view(), name="gainers"),
    path("losers", LosersView.as_view(), name="losers"),
]
# The v2 routes, mounted at the root (config.urls mounts this module under v1/). The custom
# screen comes first: `custom` is not a predefined screener's name.
v2_urlpatterns = [
    path("v2/screeners/custom", V2CustomScreenerView.as_view(), name="v2-screeners-custom"),
    path("v2/screeners/<str:screener>", V2ScreenerView.as_view(), name="v2-screener"),
]
