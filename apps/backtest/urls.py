from django.urls import path

from apps.backtest.views import V2BacktestView

urlpatterns = [
    path("v2/backtest/<str:symbol>", V2BacktestView.as_view(), name="v2-backtest"),
]
