from django.apps import AppConfig


class FinancialsConfig(AppConfig):
    name = "apps.financials"
    label = "financials"
