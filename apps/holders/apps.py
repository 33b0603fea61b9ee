from django.apps import AppConfig


class HoldersConfig(AppConfig):
    name = "apps.holders"
    label = "holders"
