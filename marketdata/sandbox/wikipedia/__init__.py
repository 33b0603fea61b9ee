"""Wikipedia simulator: the three index constituent articles, wired in router.py."""
