from django.apps import AppConfig


class NewsConfig(AppConfig):
    name = "apps.news"
    label = "news"
