"""The simulated CoinGecko (``api.coingecko.com``): coin markets, the global market, the
trending list and search."""
