from django.urls import path

from apps.indicators.views import (
    IndicatorView,
    LatestIndicatorsView,
    V2IndicatorsView,
    V2IndicatorView,
)

urlpatterns = [
    path("v1/indicator", IndicatorView.as_view(), name="indicator"),
    path("v1/indicators", LatestIndicatorsView.as_view(), name="indicators"),
    path("v2/indicators", V2IndicatorsView.as_view(), name="v2-indicators"),
    path("v2/indicators/<str:symbol>", V2IndicatorView.as_view(), name="v2-indicator"),
]
