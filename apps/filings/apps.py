from django.apps import AppConfig


class FilingsConfig(AppConfig):
    name = "apps.filings"
