from django.urls import path

from apps.charts.views import (
    V2CapitalGainsBatchView,
    V2CapitalGainsView,
    V2ChartsView,
    V2ChartView,
)

urlpatterns = [
    path("v2/chart/<str:symbol>", V2ChartView.as_view(), name="v2-chart"),
    path("v2/charts", V2ChartsView.as_view(), name="v2-charts"),
    path("v2/capital-gains", V2CapitalGainsBatchView.as_view(), name="v2-capital-gains-batch"),
    path("v2/capital-gains/<str:symbol>", V2CapitalGainsView.as_view(),
         name="v2-capital-gains"),
]
