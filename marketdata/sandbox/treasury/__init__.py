"""U.S. Treasury simulator: the daily par yield curve CSV (``curve.py`` holds the one
curve that the FRED sandbox's Treasury series share), wired in ``router.py``."""
