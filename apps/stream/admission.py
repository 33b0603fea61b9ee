"""Open streams per client address: at most ``STREAM_MAX_CONNECTIONS_PER_ADDRESS`` at once
in this process, counted across ``/v2/stream``, ``/v2/feeds/stream`` and the SSE stream.

A connection costs the process a socket, a writer task and its share of every cycle's
fan-out for as long as it stays, so one address (a script opening connections in a loop)
must not hold thousands. The address is the one the rate limits count
(:func:`apps.ratelimit.limits.client_ip`: the peer, or the client a trusted proxy names).
Counted per process, not across a fleet: a process's sockets are what the cap protects.
A refusal is a 429 at the handshake, before anything is subscribed.
"""

from __future__ import annotations

import threading
from collections import Counter

from django.conf import settings

from marketdata.errors import MarketDataError

_lock = threading.Lock()  # the SSE view admits from a thread, the WebSockets from the loop
_open: Counter[str] = Counter()


class TooManyStreams(MarketDataError):
    status_code = 429
    code = "too_many_streams"
    shows_code = True  # not the daily quota's 429


class Lease:
    """One admitted connection; :meth:`release` (idempotent) gives its place back."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.released = False

    def release(self) -> None:
        with _lock:
            if self.released:
                return
            self.released = True
            _open[self.address] -= 1
            if _open[self.address] <= 0:
                del _open[self.address]


def admit(address: str) -> Lease:
    """A place for one more stream of ``address``, or :class:`TooManyStreams`."""
    limit = int(settings.STREAM_MAX_CONNECTIONS_PER_ADDRESS)
    with _lock:
        if _open[address] >= limit:
            raise TooManyStreams(
                f"Too many open streams from this address: at most {limit} at once "
                "(STREAM_MAX_CONNECTIONS_PER_ADDRESS); close one before opening another")
        _open[address] += 1
    return Lease(address)

