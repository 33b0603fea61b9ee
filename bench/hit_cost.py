"""In-process cost of a response-cache hit: the WSGI application called directly, no server.

Warms ``/v1/simple-quotes?symbols=AAPL`` (sandbox mode) until it is a response-cache HIT,
then times 5 x 2,000 calls and prints the per-hit minimum and median in microseconds. Run
from the root of the tree to measure (a checkout of another commit measures that commit):

    MARKETDATA_VAR_DIR=/tmp/hit-var .venv/bin/python bench/hit_cost.py
"""
import io
import os
import sys
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["MARKETDATA_UPSTREAM"] = "sandbox"
os.environ.setdefault("LOG_LEVEL", "WARNING")
sys.path.insert(0, os.getcwd())
from config.wsgi import application


def call(path, query):
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": query,
               "SERVER_NAME": "x", "SERVER_PORT": "80", "wsgi.input": io.BytesIO(),
               "wsgi.url_scheme": "http", "REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "x"}
    out = {}
    def start(status, headers, exc_info=None):
        out["status"], out["headers"] = status, dict(headers)
    body = b"".join(application(environ, start))
    return out, body

for _ in range(5):
    out, _ = call("/v1/simple-quotes", "symbols=AAPL")
assert out["headers"].get("X-Cache") == "HIT", out
best = []
for _ in range(5):
    t = time.perf_counter()
    for _ in range(2000):
        call("/v1/simple-quotes", "symbols=AAPL")
    best.append((time.perf_counter() - t) / 2000 * 1e6)
print(f"{os.getcwd()}: per hit us min {min(best):.1f} median {sorted(best)[2]:.1f}")
