"""SEC EDGAR simulator: company list, submissions, filing indexes and 8-K exhibits, wired in
router.py."""
