"""CFTC Public Reporting (Socrata) simulator: the weekly Commitments of Traders datasets,
wired in router.py (README.md says what is simulated)."""
