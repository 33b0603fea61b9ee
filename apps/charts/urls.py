from django.urls import path

from apps.charts.views import (
    V2CapitalGainsBatchView,
    V2CapitalGainsView,
    V2ChartsView,
    V2ChartView,
    V2DividendsBatchView,
    V2DividendsView,
    V2SparkView,
    V2SplitsBatchView,
    V2SplitsView,
)

urlpatterns = [
    path("v2/chart/<str:symbol>", V2ChartView.as_view(), name="v2-chart"),
    path("v2/charts", V2ChartsView.as_view(), name="v2-charts"),
    path("v2/capital-gains", V2CapitalGainsBatchView.as_view(), name="v2-capital-gains-batch"),
    path("v2/capital-gains/<str:symbol>", V2CapitalGainsView.as_view(),
         name="v2-capital-gains"),
    path("v2/dividends", V2DividendsBatchView.as_view(), name="v2-dividends-batch"),
    path("v2/dividends/<str:symbol>", V2DividendsView.as_view(), name="v2-dividends"),
    path("v2/spark", V2SparkView.as_view(), name="v2-spark"),
    path("v2/splits", V2SplitsBatchView.as_view(), name="v2-splits-batch"),
    path("v2/splits/<str:symbol>", V2SplitsView.as_view(), name="v2-splits"),
]
