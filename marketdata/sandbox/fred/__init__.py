"""FRED simulator: the API's series observations (JSON or XML) and the keyless
fredgraph.csv download, both from ``series.py``; wired in ``router.py``."""
