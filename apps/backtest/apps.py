from django.apps import AppConfig


class BacktestConfig(AppConfig):
    name = "apps.backtest"
