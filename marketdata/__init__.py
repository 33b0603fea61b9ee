"""Framework-light core of the market data service: upstream client, cache, providers."""

__version__ = "0.1.0"
