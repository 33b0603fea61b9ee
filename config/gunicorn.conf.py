"""gunicorn settings for ``make run`` and the Docker image (the production server command).

gunicorn manages the processes; each runs uvicorn (``config.workers``) serving
``config.asgi``: the quote stream on the event loop, every other request in a thread pool
(WEB_THREADS) running the WSGI application. A cache hit is served in well under a
millisecond, a miss waits on an upstream round trip, and threads let one process overlap
those waits. With the local-memory cache each process has its own cache, single-flight and
stream pollers, so the quick start runs one process; with Redis shared by all, it defaults
to one process per core.
"""

import os

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"  # noqa: S104
worker_class = "config.workers.MarketDataWorker"
workers = int(os.environ.get("WEB_CONCURRENCY") or (os.cpu_count() or 1
                                                     if os.environ.get("REDIS_URL") else 1))
threads = int(os.environ.get("WEB_THREADS", "16"))
timeout = int(os.environ.get("WEB_TIMEOUT", "60"))
graceful_timeout = 5  # streams end at once on shutdown; uvicorn cancels stragglers after 2 s
keepalive = 5
accesslog = None  # our middleware writes the access log (with correlation ids)
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
proc_name = "marketdata"


def when_ready(server):
    mode = os.environ.get("MARKETDATA_UPSTREAM", "live").upper()
    why = os.environ.get("MARKETDATA_UPSTREAM_REASON", "")
    line = "=" * 72
    server.log.info(f"\n{line}\n  UPSTREAM MODE: {mode}{'  (' + why + ')' if why else ''}\n"
                    f"  {'Data is SYNTHETIC (deterministic simulator), not market data.' if mode == 'SANDBOX' else 'Data comes from the real providers.'}\n"  # noqa: E501
                    f"  Listening on {bind}; docs at /docs; workers={workers} threads={threads}\n"
                    f"{line}")


def post_worker_init(worker):
    # Build the market calendar and load the compiled indicator and backtest kernels before
    # the first request instead of during it.
    from marketdata.backtest.warmup import warm_up as warm_up_backtest
    from marketdata.indicators.warmup import warm_up
    from marketdata.markets import market_status

    market_status()
    warm_up()
    warm_up_backtest()
