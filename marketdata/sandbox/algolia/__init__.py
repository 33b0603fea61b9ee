"""Algolia search simulator (the service's primary search provider), wired in router.py."""
