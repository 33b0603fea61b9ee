from django.urls import path

from apps.indices.views import (
    IndicesView,
    V2IndicesView,
    V2MarketSummaryView,
    V2TrendingView,
)

urlpatterns = [
    path("indices", IndicesView.as_view(), name="indices"),
]

v2_urlpatterns = [
    path("v2/indices", V2IndicesView.as_view(), name="v2-indices"),
    path("v2/market-summary", V2MarketSummaryView.as_view(), name="v2-market-summary"),
    path("v2/trending", V2TrendingView.as_view(), name="v2-trending"),
]
