"""The registry of providers: name -> Provider class, and the instances bound to the
process's upstream client.

Adding a provider: write its module (a :class:`marketdata.providers.base.Provider`
subclass plus its fetchers) and add one line to ``PROVIDERS``; which capability it serves,
and in which order, is a row of the capability table (:mod:`marketdata.capabilities`).
"""

from __future__ import annotations

import threading
from importlib import import_module
from typing import Any

from marketdata.http import on_client_reset
from marketdata.providers.base import Provider

# name -> "module:Class"
PROVIDERS: dict[str, str] = {
    "yahoo": "marketdata.providers.yahoo.client:YahooProvider",
    "fred": "marketdata.providers.fred:FredProvider",
    "treasury": "marketdata.providers.treasury:TreasuryProvider",
    "fmp": "marketdata.providers.fmp:FmpProvider",
    "algolia": "marketdata.providers.algolia:AlgoliaProvider",
    "gdelt": "marketdata.providers.gdelt:GdeltProvider",
    "frankfurter": "marketdata.providers.frankfurter:FrankfurterProvider",
    "cftc": "marketdata.providers.cftc:CftcProvider",
    "sec": "marketdata.providers.sec:SecProvider",
    "wikipedia": "marketdata.providers.wikipedia:WikipediaProvider",
    "tiingo": "marketdata.providers.tiingo:TiingoProvider",
    "alphavantage": "marketdata.providers.alphavantage:AlphaVantageProvider",
    "coingecko": "marketdata.providers.coingecko:CoinGeckoProvider",
    "feeds": "marketdata.providers.feeds:FeedsProvider",
    "alternative": "marketdata.providers.alternative:AlternativeProvider",
    "finra": "marketdata.providers.finra:FinraProvider",
}


_instances: dict[str, Provider] = {}
_lock = threading.Lock()


def provider_class(name: str) -> type[Provider]:
    module, _, cls = PROVIDERS[name].partition(":")
    return getattr(import_module(module), cls)


def get_provider(name: str) -> Any:
    """The provider ``name`` bound to the current upstream client (built on first use)."""
    instance = _instances.get(name)
    if instance is not None:
        return instance
    from marketdata.http import get_client

    with _lock:
        instance = _instances.get(name)
        if instance is None:
            instance = provider_class(name)(get_client())
            _instances[name] = instance
    return instance


def reset() -> None:
    """Forget every instance (the client was reset, or settings changed)."""
    with _lock:
        _instances.clear()


def _on_setting_changed(setting: str, **kwargs: Any) -> None:
    # Credentials are read once per instance; a changed setting (tests, override_settings)
    # must be seen by the next call.
    reset()


# The instances are bound to the client: a new client, new instances.
on_client_reset(reset)

try:
    from django.test.signals import setting_changed

    setting_changed.connect(_on_setting_changed, dispatch_uid="marketdata.providers.registry")
except ImportError:  # pragma: no cover - Django is always installed here
    pass
