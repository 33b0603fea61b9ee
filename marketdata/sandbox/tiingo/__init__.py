"""Tiingo's end-of-day prices API, simulated (see README.md in this package)."""
