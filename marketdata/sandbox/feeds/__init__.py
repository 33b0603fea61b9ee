"""The simulated publishers' RSS and Atom feeds (``/v2/feeds``), wired in router.py."""
