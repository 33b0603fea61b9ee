from django.apps import AppConfig


class HoursConfig(AppConfig):
    name = "apps.hours"
    label = "hours"
