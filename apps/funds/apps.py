from django.apps import AppConfig


class FundsConfig(AppConfig):
    name = "apps.funds"
