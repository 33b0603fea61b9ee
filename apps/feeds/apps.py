from django.apps import AppConfig


class FeedsConfig(AppConfig):
    name = "apps.feeds"
    label = "feeds"
