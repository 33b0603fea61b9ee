"""Upstream providers: one package each (request builders + parsers into our own types)."""
