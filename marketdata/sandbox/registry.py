"""The simulated providers, in fallback order.

Each entry builds one provider (host patterns + route table + error shapes) for a sandbox.
A request whose upstream host belongs to a provider is routed only within that provider;
a request for an unknown host (an old-style ``UPSTREAM_HOST_MAP`` to 127.0.0.1 without
``X-Upstream-Host``) tries each provider's routes by path, in this order. Adding a provider
is one package with its routes and ``build_provider``, plus one line here.
"""

from __future__ import annotations

from marketdata.sandbox.algolia import router as algolia
from marketdata.sandbox.alphavantage import router as alphavantage
from marketdata.sandbox.alternative import router as alternative
from marketdata.sandbox.cftc import router as cftc
from marketdata.sandbox.coingecko import router as coingecko
from marketdata.sandbox.feeds import router as feeds
from marketdata.sandbox.finra import router as finra
from marketdata.sandbox.fmp import router as fmp
from marketdata.sandbox.frankfurter import router as frankfurter
from marketdata.sandbox.fred import router as fred
from marketdata.sandbox.gdelt import router as gdelt
from marketdata.sandbox.providers import ProviderFactory
from marketdata.sandbox.sec import router as sec
from marketdata.sandbox.tiingo import router as tiingo
from marketdata.sandbox.treasury import router as treasury
from marketdata.sandbox.wikipedia import router as wikipedia
from marketdata.sandbox.yahoo import router as yahoo

PROVIDERS: tuple[ProviderFactory, ...] = (
    yahoo.build_provider,  # first: unknown hosts fall back to Yahoo's paths before others'
    algolia.build_provider,
    fred.build_provider,
    treasury.build_provider,
    fmp.build_provider,
    frankfurter.build_provider,
    gdelt.build_provider,
    cftc.build_provider,
    sec.build_provider,
    wikipedia.build_provider,
    tiingo.build_provider,
    alphavantage.build_provider,
    coingecko.build_provider,
    feeds.build_provider,
    alternative.build_provider,
    finra.build_provider,
)
