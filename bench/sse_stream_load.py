"""SSE stream load: thousands of /v1/stream/quotes clients on one worker.

The SSE twin of bench/ws_stream_load.py (issue 26: 5,000 clients over 200 symbols, 5 each,
on one worker), with the same service, sandbox, baseline, multi-process clients
(bench/stream_clients.py) and report. bench/stream_load.py is the SSE stream's
correctness load (events well-formed and spaced, nothing left behind after the clients
go); this one measures delivery.

A connection gets one ``quote`` event per ``STREAM_INTERVAL_SECONDS`` on its own clock,
carrying the latest quote of each of its symbols. **Due**: per symbol, the distinct quotes
(``price``, ``change``) that any client first received within the window, for every client
subscribed to it (a quote that did not change is not due again); **delivered**: what each
client received of those by the window's end plus ``--grace``. A quote carries no market
time, so the lag reported is the fan-out (a quote's arrival after its first arrival at any
client), with the spacing of each connection's events (``event_gap``: the interval when
every event was written on time).

    .venv/bin/python bench/sse_stream_load.py [--clients 5000] [--symbols 200]
        [--per-client 5] [--interval 2] [--duration 20] [--baseline-clients 10]
        [--sources poll,push] [--client-processes 4] [--workers 1]

Loopback only; Linux only (reads /proc for the server's RSS and CPU).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.ws_stream_load import arguments, run

if __name__ == "__main__":
    run(arguments(__doc__), "sse")
