from django.apps import AppConfig


class CryptoConfig(AppConfig):
    name = "apps.crypto"
    label = "crypto"
