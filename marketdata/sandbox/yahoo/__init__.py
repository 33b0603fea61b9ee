"""Yahoo Finance upstream simulator: one module per endpoint family, wired in router.py."""
