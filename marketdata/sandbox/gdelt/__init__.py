"""GDELT DOC 2.0 API simulator (the world news endpoint's source), wired in router.py."""
