"""gunicorn settings for ``make run`` and the Docker image (the production server command).

gunicorn manages the processes; each runs uvicorn (``config.workers``) serving
``config.asgi``: the quote stream and response-cache hits on the event loop (the fast
path), every other request in a thread pool (WEB_THREADS) running the WSGI application.
A hit is served in tens of microseconds, a miss waits on an upstream round trip, and
threads let one process overlap those waits. With the local-memory cache each process
has its own cache, single-flight and stream pollers, so the quick start runs one process;
with Redis shared by all, it defaults to one process per core.
"""

import os

from marketdata import redis_config

# Loopback unless HOST says otherwise: a quick start on a laptop is not served to its
# network. The Docker image sets HOST=0.0.0.0 (its port is published on purpose).
bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
worker_class = "config.workers.MarketDataWorker"
workers = int(os.environ.get("WEB_CONCURRENCY") or (
    os.cpu_count() or 1 if redis_config.from_environment(os.environ) is not None else 1))
threads = int(os.environ.get("WEB_THREADS", "64"))  # as config.settings: for the banner
timeout = int(os.environ.get("WEB_TIMEOUT", "60"))
graceful_timeout = 5  # streams end at once on shutdown; uvicorn cancels stragglers after 2 s
keepalive = 5
accesslog = None  # our middleware writes the access log (with correlation ids)
errorlog = "-"
# gunicorn's own lines, at most INFO: at DEBUG it prints its whole configuration, which is
# not ours to redact (marketdata.logs).
loglevel = "info" if os.environ.get("LOG_LEVEL", "info").lower() == "debug" else \
    os.environ.get("LOG_LEVEL", "info").lower()
proc_name = "marketdata"

# gunicorn's control socket (``gunicornc``) defaults to ~/.gunicorn/gunicorn.ctl, one path
# shared by every instance a user runs: each start took it over from the one before. It
# lives in this instance's var directory instead (GUNICORN_CONTROL_SOCKET names another
# path, or "off" turns it off).
_VAR_DIR = os.environ.get("MARKETDATA_VAR_DIR") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "var")
_CONTROL_SOCKET = os.environ.get("GUNICORN_CONTROL_SOCKET", "").strip()
if _CONTROL_SOCKET.lower() in ("off", "0", "false", "no"):
    control_socket_disable = True
else:
    control_socket = _CONTROL_SOCKET or os.path.join(_VAR_DIR, "gunicorn.ctl")

# /metrics adds up every worker's samples (marketdata.metrics): each process writes them
# under this directory. Set here, in the master, so every worker has it before
# prometheus_client is first imported; emptied at each start (on_starting).
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", os.path.join(_VAR_DIR, "prometheus"))


def check_settings():
    """The settings load, or the refusal's one line (what to set) and exit, before gunicorn
    binds or starts a worker: a worker would print a traceback and be restarted. In a
    process of its own (config.startup), so the master imports no application module."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "config.startup"], check=False,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if done.returncode:
        sys.exit(done.returncode)


def on_starting(server):
    # bin/serve checked them a moment ago, in this environment (MARKETDATA_SETTINGS_CHECKED).
    if os.environ.get("MARKETDATA_SETTINGS_CHECKED") != "1":
        check_settings()
    # Not through marketdata.metrics: importing it would create the master's own files.
    path = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(path):
        if name.endswith(".db"):
            os.unlink(os.path.join(path, name))


def child_exit(server, worker):
    # A dead worker's gauges (open streams, breakers) no longer count; its counters do.
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def open_url(address):
    """The URL a person opens for a listening address (``(host, port)`` or a Unix path):
    ``http://localhost:PORT`` when it listens on every address or on loopback."""
    if isinstance(address, str):
        return f"unix:{address}"
    host, port = address[0], address[1]
    if host in ("0.0.0.0", "::", "127.0.0.1", "::1", ""):  # noqa: S104
        host = "localhost"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def banner(addresses):
    """The start banner: the upstream mode, and the URLs to open (the explorer at ``/``,
    the API reference at ``/docs``) on the addresses gunicorn really bound."""
    mode = os.environ.get("MARKETDATA_UPSTREAM", "live").upper()
    why = os.environ.get("MARKETDATA_UPSTREAM_REASON", "")
    line = "=" * 72
    data = ("Data is SYNTHETIC (deterministic simulator), not market data." if mode == "SANDBOX"
            else "Data comes from the real providers.")
    bound = [address if isinstance(address, str) else
             f"[{address[0]}]:{address[1]}" if ":" in address[0] else f"{address[0]}:{address[1]}"
             for address in addresses] or [bind]
    urls = sorted({open_url(address) for address in addresses})
    opens = "".join(f"  Open {url}/ (the explorer) and {url}/docs (the API reference)\n"
                    for url in urls if url.startswith("http"))
    loopback = all(not isinstance(a, str) and a[0] in ("127.0.0.1", "::1", "localhost")
                   for a in addresses)
    reach = ("  Loopback only: other machines cannot connect (HOST=0.0.0.0 listens on every "
             "address)\n" if addresses and loopback else "")
    return (f"\n{line}\n  UPSTREAM MODE: {mode}{'  (' + why + ')' if why else ''}\n"
            f"  {data}\n{opens}"
            f"  Listening on {', '.join(bound)}; workers={workers} threads={threads}\n"
            f"{reach}{line}")


def when_ready(server):
    server.log.info(banner([listener.sock.getsockname() for listener in server.LISTENERS]))


def post_worker_init(worker):
    # Build the market calendar and load the compiled kernels before the first request
    # instead of during it.
    from marketdata.warmup import warm_up_process

    warm_up_process()
    # Everything loaded so far lives as long as the worker: move it out of the collector's
    # sight. A full collection otherwise scans ~225,000 start-up objects, ~95 ms on these
    # machines with the event loop stopped: the p99 of every request in flight
    # (bench/README.md, issue 17).
    import gc

    gc.freeze()
