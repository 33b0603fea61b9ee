from django.apps import AppConfig


class TranscriptsConfig(AppConfig):
    name = "apps.transcripts"
    label = "transcripts"
