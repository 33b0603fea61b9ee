"""A sandbox HTTP server on a free port in a thread, for the tests that talk to it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from marketdata.sandbox.core import UpstreamSandbox
from marketdata.sandbox.server import make_server


@contextmanager
def serving(sandbox: UpstreamSandbox) -> Iterator[int]:
    """Serve ``sandbox`` on 127.0.0.1; yields the port, stops the server on exit."""
    httpd = make_server("127.0.0.1", 0, sandbox)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
