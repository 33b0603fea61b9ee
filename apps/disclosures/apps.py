from django.apps import AppConfig


class DisclosuresConfig(AppConfig):
    name = "apps.disclosures"
