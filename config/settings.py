"""Settings, all from the environment (12-factor), with embedded quick-start defaults.

Without any variable set the service runs on SQLite and the local-memory cache with a
generated secret key kept in ``var/``. ``config.production`` is the strict variant used by
the Docker image. Every variable is listed in the README's configuration table.
"""

from __future__ import annotations

import fnmatch
import os
import re
import secrets
from pathlib import Path

import dj_database_url

import marketdata
from marketdata import redis_config
from marketdata.logs import build_logging_config, configure_structlog

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("MARKETDATA_VAR_DIR", BASE_DIR / "var"))
# Compiled indicator kernels are cached under var/ (writable in every deployment, unlike
# the source tree in the Docker image); set before numba is first imported.
os.environ.setdefault("NUMBA_CACHE_DIR", str(VAR_DIR / "numba"))


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name, "").strip()
    return float(value) if value else default


def env_list(name: str) -> list[str]:
    """A comma-separated variable as a list (blank items dropped)."""
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


def _quick_start_secret_key() -> str:
    """A random key persisted under var/, so every worker and restart shares it."""
    path = VAR_DIR / "secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(50)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(key)
        return key
    except OSError:
        return secrets.token_urlsafe(50)


SECRET_KEY = os.environ.get("SECRET_KEY") or _quick_start_secret_key()
# A generated key is this machine's alone: instances elsewhere sharing the database and
# Redis would not accept each other's sessions (apps.core.checks warns at start).
SECRET_KEY_GENERATED = not os.environ.get("SECRET_KEY")
DEBUG = env_bool("DJANGO_DEBUG")
ALLOWED_HOSTS = [h.strip() for h in os.environ.get("ALLOWED_HOSTS", "*").split(",") if h.strip()]

INSTALLED_APPS = [
    "apps.core",  # first: its templates override drf_spectacular's (offline Redoc)
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "marketdata.sandbox",
    "apps.historical",
    "apps.quotes",
    "apps.health",
    "apps.movers",
    "apps.indices",
    "apps.sectors",
    "apps.search",
    "apps.similar",
    "apps.news",
    "apps.analysis",
    "apps.holders",
    "apps.financials",
    "apps.transcripts",
    "apps.indicators",
    "apps.charts",
    "apps.calendar",
    "apps.hours",
    "apps.macro",
    "apps.positioning",
    "apps.worldnews",
    "apps.feeds",
    "apps.forex",
    "apps.futures",
    "apps.options",
    "apps.crypto",
    "apps.analysts",
    "apps.profiles",
    "apps.pressreleases",
    "apps.constituents",
    "apps.disclosures",
    "apps.backtest",
    "apps.risk",
    "apps.filings",
    "apps.funds",
    "apps.short",
    "apps.ownership",
    "apps.ratelimit",
    "apps.stream",
    "apps.mcp",
    "apps.graphql",
    "apps.explorer",
]

MIDDLEWARE = [
    # First: counts and times every answer Django gives (GET /metrics).
    "apps.health.metrics.MetricsMiddleware",
    "apps.core.middleware.RequestContextMiddleware",
    "apps.core.middleware.AccessLogMiddleware",
    # ETag/304, Cache-Control, Vary, gzip/brotli (API answers): outside CORS and the limits,
    # so their Vary merges and a 429 leaves no-store; inside the access log (logs a 304).
    "apps.core.middleware.HttpCachingMiddleware",
    # CORS and the rate limits inside the correlation id and the access log, so a 429 is
    # logged and carries both; preflights are answered by CORS and never counted.
    "corsheaders.middleware.CorsMiddleware",
    "apps.ratelimit.middleware.RateLimitMiddleware",
    # Marks what the limits let through: tells their 429s from an upstream's in /metrics.
    "apps.health.metrics.RateLimitPassedMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # OPTIONS on the pages outside the API (before WhiteNoise, which would answer 405).
    "apps.core.middleware.PageOptionsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Answers repeated GETs here, inside the header-setting middleware above and before
    # sessions, CSRF, auth and DRF below.
    "apps.core.middleware.ResponseCacheMiddleware",
    # Only requests that can reach an upstream get a deadline (not response-cache hits).
    "apps.core.middleware.RequestDeadlineMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# -- database: SQLite unless DATABASE_URL ---------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "").strip()
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60,
                                                  conn_health_checks=True)}
else:
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3",
                             "NAME": VAR_DIR / "db.sqlite3"}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# -- cache: local memory unless REDIS_URL ---------------------------------------------------
# Threads per worker for the requests that are not cache hits (config.asgi), and as many
# for their fan-out (marketdata.concurrency): waiting on an upstream holds one.
WEB_THREADS = env_int("WEB_THREADS", 64)

# One Redis (REDIS_URL), or a primary found through Redis Sentinel (REDIS_SENTINELS and
# REDIS_SENTINEL_SERVICE; marketdata.redis_config says how the variables combine). Every
# Redis client of the service is built from REDIS.
try:
    REDIS = redis_config.from_environment(os.environ)
except redis_config.RedisConfigError as exc:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(str(exc)) from None
REDIS_URL = REDIS.url if REDIS else ""
# Namespaces this deployment's keys in a shared Redis: cache, counters, stream locks, layer.
CACHE_KEY_PREFIX = os.environ.get("CACHE_KEY_PREFIX", "marketdata")
# Bytes of the local-memory cache (per process, without REDIS_URL): 128 MiB is ~14,000
# answers of bench/soak.py's mix (9.6 KiB on average; a chart can be hundreds of KiB) and
# keeps a worker near 0.5 GB (bench/README.md, issue 23).
LOCMEM_MAX_BYTES = env_int("LOCMEM_MAX_BYTES", 128 * 1024 * 1024)
if REDIS is not None:
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": CACHE_KEY_PREFIX,
            "TIMEOUT": 300,
            "OPTIONS": {
                # The primary only, Sentinel or not (redis_config: read-your-writes).
                "CLIENT_CLASS": "django_redis.client.DefaultClient",
                "SOCKET_CONNECT_TIMEOUT": 2,
                "SOCKET_TIMEOUT": 2,
                # Every thread of a worker may be in a cache call at once (requests,
                # their fan-out, refreshes, health checks): redis-py's pool refuses past it.
                "CONNECTION_POOL_KWARGS": {"max_connections": max(100, 4 * WEB_THREADS)},
            },
        }
    }
    if REDIS.uses_sentinel:
        # django-redis's own Sentinel support: the LOCATION's host is the service name;
        # a connection asks the sentinels for the primary, again after a failure.
        CACHES["default"]["OPTIONS"].update({
            "CONNECTION_FACTORY": "django_redis.pool.SentinelConnectionFactory",
            "SENTINELS": list(REDIS.sentinels),
            "SENTINEL_KWARGS": REDIS.sentinel_kwargs(),
        })
else:
    # Bounded in entries and in bytes (marketdata.locmem): the total size of the stored
    # values stays under LOCMEM_MAX_BYTES, least recently used entries evicted first.
    CACHES = {
        "default": {
            "BACKEND": "marketdata.locmem.ByteBoundedLocMemCache",
            "LOCATION": "marketdata",
            "TIMEOUT": 300,
            "OPTIONS": {"MAX_ENTRIES": env_int("LOCMEM_MAX_ENTRIES", 20000),
                        "MAX_BYTES": LOCMEM_MAX_BYTES},
        }
    }

# -- quote stream (apps.stream) -------------------------------------------------------------
# Pollers publish to channel-layer groups: in process without Redis; with Redis, shared by
# every process (and one poller leader per symbol across them).
STREAM_INTERVAL_SECONDS = env_float("STREAM_INTERVAL_SECONDS", 10.0)
STREAM_HEARTBEAT_SECONDS = env_float("STREAM_HEARTBEAT_SECONDS", 15.0)
if STREAM_INTERVAL_SECONDS <= 0 or STREAM_HEARTBEAT_SECONDS <= 0:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("STREAM_INTERVAL_SECONDS and STREAM_HEARTBEAT_SECONDS must be "
                               "positive")
# WebSocket streams (/v2/stream, /v2/feeds/stream): symbols (or feeds) one connection may
# hold; seconds a frame may wait on a client that stopped reading before it is closed; how
# often the feeds stream polls its publishers.
WS_MAX_SYMBOLS = env_int("WS_MAX_SYMBOLS", 100)
WS_SEND_TIMEOUT_SECONDS = env_float("WS_SEND_TIMEOUT_SECONDS", 30.0)
FEEDS_STREAM_INTERVAL_SECONDS = env_float("FEEDS_STREAM_INTERVAL_SECONDS", 300.0)
# Pushed ticks (Yahoo's price streamer, one connection per process for the symbols it
# leads): on unless STREAM_PUSH=false. A symbol the streamer ticked in the last
# STREAM_PUSH_FRESH_SECONDS (at least two poll intervals) is not polled; the others are.
STREAM_PUSH = env_bool("STREAM_PUSH", True)
STREAM_PUSH_FRESH_SECONDS = env_float("STREAM_PUSH_FRESH_SECONDS", 30.0)
# What one stream client may send, hold and cost (README "Streams: limits"):
# - WS_MAX_MESSAGE_BYTES: a client frame's size after inflating (permessage-deflate is
#   inflated against this limit; larger: close 1009). 16 KiB holds a subscribe frame of
#   WS_MAX_SYMBOLS symbols of the longest form, and as many alert rules.
# - WS_MAX_ALERT_RULES: alert rules per connection.
# - WS_FRAMES_PER_SECOND / WS_FRAME_BURST: client frames per connection (a token bucket);
#   a frame past it is refused (error frame, 429), a burst of refused ones closes (1008).
# - WS_SEND_QUEUE_BYTES: error and alert frames waiting for one client (the oldest go).
# - WS_COMPRESSION: permessage-deflate on the WebSockets.
# - STREAM_MAX_CONNECTIONS_PER_ADDRESS: open streams (both WebSockets and SSE) per client
#   address, per server process.
WS_MAX_MESSAGE_BYTES = env_int("WS_MAX_MESSAGE_BYTES", 16384)
WS_MAX_ALERT_RULES = env_int("WS_MAX_ALERT_RULES", 100)
WS_FRAMES_PER_SECOND = env_float("WS_FRAMES_PER_SECOND", 5.0)
WS_FRAME_BURST = env_int("WS_FRAME_BURST", 20)
WS_SEND_QUEUE_BYTES = env_int("WS_SEND_QUEUE_BYTES", 262144)
WS_COMPRESSION = env_bool("WS_COMPRESSION", True)
# Keepalive: a ping every WS_PING_INTERVAL_SECONDS; one unanswered for WS_PING_TIMEOUT_SECONDS
# drops the connection (a client that stopped reading answers no ping either).
WS_PING_INTERVAL_SECONDS = env_float("WS_PING_INTERVAL_SECONDS", 20.0)
WS_PING_TIMEOUT_SECONDS = env_float("WS_PING_TIMEOUT_SECONDS", 20.0)
STREAM_MAX_CONNECTIONS_PER_ADDRESS = env_int("STREAM_MAX_CONNECTIONS_PER_ADDRESS", 100)
if min(WS_MAX_SYMBOLS, WS_MAX_ALERT_RULES, WS_FRAME_BURST, WS_SEND_QUEUE_BYTES,
       STREAM_MAX_CONNECTIONS_PER_ADDRESS) < 1 or WS_MAX_MESSAGE_BYTES < 1024 \
        or WS_SEND_TIMEOUT_SECONDS <= 0 or FEEDS_STREAM_INTERVAL_SECONDS <= 0 \
        or WS_FRAMES_PER_SECOND <= 0 or WS_PING_INTERVAL_SECONDS <= 0 \
        or WS_PING_TIMEOUT_SECONDS <= 0:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("WS_MAX_SYMBOLS, WS_MAX_ALERT_RULES, WS_FRAME_BURST, "
                               "WS_SEND_QUEUE_BYTES, STREAM_MAX_CONNECTIONS_PER_ADDRESS, "
                               "WS_SEND_TIMEOUT_SECONDS, WS_FRAMES_PER_SECOND, "
                               "WS_PING_INTERVAL_SECONDS, WS_PING_TIMEOUT_SECONDS and "
                               "FEEDS_STREAM_INTERVAL_SECONDS must be positive, and "
                               "WS_MAX_MESSAGE_BYTES at least 1024")
# Who may open a WebSocket stream or call /mcp (apps.core.origins): a Host in
# STREAM_ALLOWED_HOSTS (default: ALLOWED_HOSTS when it is not "*", else the loopback names),
# and a browser page at the service's own origin or one in STREAM_ALLOWED_ORIGINS (default:
# CORS_ALLOWED_ORIGINS; "*" allows any). A web page the user visits cannot then drive them
# by DNS rebinding.
LOOPBACK_HOSTS = ["localhost", ".localhost", "127.0.0.1", "[::1]"]


def stream_allowed_hosts(given: str, allowed_hosts: list[str]) -> list[str]:
    """STREAM_ALLOWED_HOSTS: as given, else ALLOWED_HOSTS unless that allows any host."""
    named = [h.strip() for h in given.split(",") if h.strip()]
    return named or (LOOPBACK_HOSTS if "*" in allowed_hosts else list(allowed_hosts))


STREAM_ALLOWED_HOSTS = stream_allowed_hosts(os.environ.get("STREAM_ALLOWED_HOSTS", ""),
                                            ALLOWED_HOSTS)
ASGI_APPLICATION = "config.asgi.application"
# A process's hub channel receives one message per active symbol per cycle, all at once;
# a full channel drops messages silently, so its capacity is far above any symbol count.
_HUB_CHANNELS, _HUB_CAPACITY = "md.hub.*", 100_000
if REDIS is not None:
    CHANNEL_LAYERS = {"default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [REDIS.channel_layer_host()], "prefix": f"{CACHE_KEY_PREFIX}:asgi",
                   "capacity": 200, "expiry": 60,
                   "channel_capacity": {_HUB_CHANNELS: _HUB_CAPACITY}},
    }}
else:
    # The in-memory layer does not compile channel_capacity patterns itself (channels 4.3).
    CHANNEL_LAYERS = {"default": {
        "BACKEND": "channels.layers.InMemoryChannelLayer",
        "CONFIG": {"capacity": 200, "expiry": 60, "channel_capacity": [
            (re.compile(fnmatch.translate(_HUB_CHANNELS)), _HUB_CAPACITY)]},
    }}

# -- market data ----------------------------------------------------------------------------
MARKETDATA_UPSTREAM = os.environ.get("MARKETDATA_UPSTREAM", "live").strip().lower()
# The upstream client's transport per mode (marketdata.http): the sandbox answers from the
# in-process simulator; live uses HTTP. config.production has no sandbox.
UPSTREAM_TRANSPORTS = {"sandbox": "marketdata.sandbox.transport.SandboxTransport"}
# ... and its upstream WebSockets (the price streamer): in process too.
UPSTREAM_WEBSOCKETS = {"sandbox": "marketdata.sandbox.yahoo.streamer.connect"}
if MARKETDATA_UPSTREAM not in ("live", "sandbox"):
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("MARKETDATA_UPSTREAM must be 'live' or 'sandbox' "
                               "(make run resolves 'auto' before the server starts)")
UPSTREAM_HOST_MAP = os.environ.get("UPSTREAM_HOST_MAP", "")
CACHE_MAX_STALE_SECONDS = env_int("CACHE_MAX_STALE_SECONDS", 86400)
CACHE_TTL_CAP_SECONDS = env_int("CACHE_TTL_CAP_SECONDS", 0) or None
CACHE_FLIGHT_TIMEOUT_SECONDS = env_float("CACHE_FLIGHT_TIMEOUT_SECONDS", 30.0)
# Every request is answered within this many seconds of its arrival (retries, fallbacks,
# single-flight and bulkhead waits all use only the time left).
REQUEST_DEADLINE_SECONDS = env_float("REQUEST_DEADLINE_SECONDS", 10.0)
# With a stale copy in hand, a request waits this long for the upstream, then serves it.
STALE_GRACE_SECONDS = env_float("STALE_GRACE_SECONDS", 2.0)
# Upstream calls in flight per provider and process; one endpoint gets at most three
# quarters of its provider's (marketdata.lanes). The rest wait within their deadline.
UPSTREAM_MAX_CONCURRENCY = env_int("UPSTREAM_MAX_CONCURRENCY", 32)
# Threads one upstream endpoint, and one provider, may hold (calls in flight and waiting),
# below WEB_THREADS: a hanging upstream never takes the threads the others need. Requests
# past a full share wait on the event loop, holding no thread (marketdata.lanes).
UPSTREAM_ENDPOINT_SHARE = env_int("UPSTREAM_ENDPOINT_SHARE", max(1, WEB_THREADS // 2))
UPSTREAM_PROVIDER_SHARE = env_int("UPSTREAM_PROVIDER_SHARE", max(1, WEB_THREADS * 3 // 4))
if REQUEST_DEADLINE_SECONDS <= 0 or STALE_GRACE_SECONDS < 0 or UPSTREAM_MAX_CONCURRENCY < 1 \
        or WEB_THREADS < 1 or UPSTREAM_ENDPOINT_SHARE < 1 or UPSTREAM_PROVIDER_SHARE < 1:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("REQUEST_DEADLINE_SECONDS must be > 0, STALE_GRACE_SECONDS "
                               ">= 0, and WEB_THREADS, UPSTREAM_MAX_CONCURRENCY, "
                               "UPSTREAM_ENDPOINT_SHARE and UPSTREAM_PROVIDER_SHARE >= 1")
# What the serving front accepts (config.protocol, apps.core.bridge): over-long URLs are a
# 414, header sections a 431, bodies a 413, all before any thread is taken; a request whose
# headers or body do not arrive in time is a 408 and its connection closed; a connection
# whose client stops reading its answer is closed.
REQUEST_URL_MAX_BYTES = env_int("REQUEST_URL_MAX_BYTES", 8192)
REQUEST_HEADERS_MAX_BYTES = env_int("REQUEST_HEADERS_MAX_BYTES", 32768)
REQUEST_HEADERS_MAX_COUNT = env_int("REQUEST_HEADERS_MAX_COUNT", 100)
REQUEST_HEADER_TIMEOUT_SECONDS = env_float("REQUEST_HEADER_TIMEOUT_SECONDS", 10.0)
REQUEST_BODY_MAX_BYTES = env_int("REQUEST_BODY_MAX_BYTES", 1024 * 1024)
REQUEST_BODY_TIMEOUT_SECONDS = env_float("REQUEST_BODY_TIMEOUT_SECONDS", 5.0)
RESPONSE_WRITE_TIMEOUT_SECONDS = env_float("RESPONSE_WRITE_TIMEOUT_SECONDS", 30.0)
if min(REQUEST_URL_MAX_BYTES, REQUEST_HEADERS_MAX_BYTES, REQUEST_HEADERS_MAX_COUNT,
       REQUEST_BODY_MAX_BYTES) < 1 or min(REQUEST_HEADER_TIMEOUT_SECONDS,
                                          REQUEST_BODY_TIMEOUT_SECONDS,
                                          RESPONSE_WRITE_TIMEOUT_SECONDS) <= 0:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("the REQUEST_*_MAX_* limits must be >= 1 and the request and "
                               "response timeouts > 0")
# Django's own limit on what it reads of a body agrees with the front's (Django's test
# client and plain WSGI do not pass through the front).
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_BYTES
RESPONSE_CACHE_ENABLED = env_bool("RESPONSE_CACHE", True)
# Response-cache hits and /v1/ping answered on the event loop (apps.core.fastpath); off:
# every request goes through Django (the same answers, slower).
FAST_PATH_ENABLED = env_bool("FAST_PATH", True)
PERFORMANCE_THRESHOLD_MS = env_float("PERFORMANCE_THRESHOLD_MS", 2000.0)
# How often the worker's loop-lag monitor checks how late its event loop runs a timer
# (marketdata.loop_lag, marketdata_event_loop_lag_seconds in /metrics); 0 turns it off.
LOOP_LAG_INTERVAL_SECONDS = env_float("LOOP_LAG_INTERVAL_SECONDS", 0.02)
if not 0 <= LOOP_LAG_INTERVAL_SECONDS <= 60:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("LOOP_LAG_INTERVAL_SECONDS must be between 0 (off) and 60")
# Deadline of /v1/health's 28 service checks (they run concurrently).
HEALTH_CHECK_TIMEOUT_SECONDS = env_float("HEALTH_CHECK_TIMEOUT_SECONDS", 8.0)
QUOTES_MAX_SYMBOLS = 50
# Primary search provider (an Algolia application). The defaults are the shared,
# search-only credentials the reference ships (read-only, free tier); operators set their own.
SEARCH_APP_ID = os.environ.get("SEARCH_APP_ID", "ZTZOECLXBC").strip()
SEARCH_API_KEY = os.environ.get("SEARCH_API_KEY", "a3882d6ec31c0b1063ede94374616d8a").strip()
SEARCH_INDEX = os.environ.get("SEARCH_INDEX", "stocks").strip()
# Keyed providers (marketdata.capabilities.table): with a key the keyed source serves its
# capability, without one the keyless source does. Never logged, never echoed.
FRED_API_KEY = os.environ.get("FRED_API_KEY", "").strip()
FMP_API_KEY = os.environ.get("FMP_API_KEY", "").strip()
# Tiingo: daily and longer bars of US tickers when Yahoo's chart fails (sent in the
# Authorization header).
TIINGO_API_KEY = os.environ.get("TIINGO_API_KEY", "").strip()
# Alpha Vantage: company profiles (OVERVIEW) and earnings surprises (EARNINGS) before the
# keyless Yahoo sources (sent as its `apikey` query parameter, the only way it takes one).
ALPHAVANTAGE_API_KEY = os.environ.get("ALPHAVANTAGE_API_KEY", "").strip()
# CoinGecko: optional Demo plan key for the /v2/crypto routes (keyless without it), sent in
# the x-cg-demo-api-key header; with it calls are paced 2 s apart instead of 6 s.
COINGECKO_API_KEY = os.environ.get("COINGECKO_API_KEY", "").strip()
# Wikipedia asks automated clients for a descriptive User-Agent with a contact.
WIKIPEDIA_USER_AGENT = os.environ.get("WIKIPEDIA_USER_AGENT", "").strip()
# GDELT asks for at most one request every 5 seconds: call starts are spaced this far apart
# per process (0 turns the pacing off, e.g. behind a caching proxy or a replay server).
GDELT_MIN_INTERVAL_SECONDS = env_float("GDELT_MIN_INTERVAL_SECONDS", 5.0)
# SEC EDGAR asks every client to identify itself with a contact in the User-Agent.
SEC_USER_AGENT = os.environ.get("SEC_USER_AGENT", "").strip() or \
    f"MarketDataService/{marketdata.__version__} (self-hosted; set SEC_USER_AGENT) " \
    "admin@example.com"
# Parsed N-PORT filings (immutable per accession) kept in each process's memory, by their
# pickled size (marketdata.memo): a big fund's filing is megabytes, read once per process.
SEC_NPORT_MEMORY_BYTES = env_int("SEC_NPORT_MEMORY_BYTES", 64 * 1024 * 1024)
if SEC_NPORT_MEMORY_BYTES < 0:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("SEC_NPORT_MEMORY_BYTES must be 0 or more")

# -- rate limits (apps.ratelimit) ------------------------------------------------------------
USE_SECURITY = env_bool("USE_SECURITY")
APP_RATE_LIMIT_PER_DAY = env_int("APP_RATE_LIMIT_PER_DAY", 8000)
ADMIN_API_KEY = os.environ.get("ADMIN_API_KEY", "")
HEALTH_COOLDOWN_SECONDS = env_int("HEALTH_COOLDOWN_SECONDS", 1800)
TRUSTED_PROXIES = os.environ.get("TRUSTED_PROXIES", "")
# Admin login throttle (apps.ratelimit.login_throttle): a client with this many failed
# logins within the window (from its first failure) is refused until the window passes.
ADMIN_LOGIN_MAX_FAILURES = env_int("ADMIN_LOGIN_MAX_FAILURES", 10)
ADMIN_LOGIN_WINDOW_SECONDS = env_int("ADMIN_LOGIN_WINDOW_SECONDS", 900)
V2_RATE_LIMIT_CAPACITY = env_int("V2_RATE_LIMIT_CAPACITY", 600)
V2_RATE_LIMIT_REFILL_PER_SECOND = env_float("V2_RATE_LIMIT_REFILL_PER_SECOND", 10.0)
V2_RATE_LIMIT_SCOPE = os.environ.get("V2_RATE_LIMIT_SCOPE", "global").strip().lower()
if V2_RATE_LIMIT_SCOPE not in ("global", "ip"):
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("V2_RATE_LIMIT_SCOPE must be 'global' or 'ip'")

# -- MCP (/mcp, apps.mcp): one tool per API operation for agents; MCP=false turns it off ----
MCP_ENABLED = env_bool("MCP", True)
# GraphQL at /graphql (apps.graphql; README "GraphQL"): on unless GRAPHQL=false. What one
# query may be and cost, refused before anything runs past each limit.
GRAPHQL_ENABLED = env_bool("GRAPHQL", True)
GRAPHQL_MAX_QUERY_BYTES = env_int("GRAPHQL_MAX_QUERY_BYTES", 16 * 1024)
GRAPHQL_MAX_TOKENS = env_int("GRAPHQL_MAX_TOKENS", 3000)
GRAPHQL_MAX_DEPTH = env_int("GRAPHQL_MAX_DEPTH", 12)
GRAPHQL_MAX_ALIASES = env_int("GRAPHQL_MAX_ALIASES", 60)
# Tokens of the v2 bucket one query may cost (one per REST request it may make).
GRAPHQL_MAX_COST = env_int("GRAPHQL_MAX_COST", 250)
# REST requests one query has in flight at once: a 250-request query must not take every
# thread of the worker (WEB_THREADS) from the other clients.
GRAPHQL_MAX_CONCURRENT_REQUESTS = env_int("GRAPHQL_MAX_CONCURRENT_REQUESTS", 16)
# Subscriptions over WebSocket at /graphql (graphql-transport-ws, apps.graphql.ws): the
# operations one connection runs at once; the streams' WS_* and STREAM_* limits apply too.
GRAPHQL_WS_MAX_SUBSCRIPTIONS = env_int("GRAPHQL_WS_MAX_SUBSCRIPTIONS", 10)
if GRAPHQL_WS_MAX_SUBSCRIPTIONS < 1:
    raise ImproperlyConfigured("GRAPHQL_WS_MAX_SUBSCRIPTIONS must be at least 1")

# -- metrics (GET /metrics, marketdata.metrics) ---------------------------------------------
# When set, /metrics answers only requests with "Authorization: Bearer <METRICS_TOKEN>".
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "").strip()
# Serve /metrics without a token: an explicit choice (config.production refuses to start
# with neither), for a /metrics that only the operator's own network can reach.
METRICS_PUBLIC = env_bool("METRICS_PUBLIC")

# -- CORS: a read-only public API, callable from any origin unless restricted --------------
CORS_ALLOWED_ORIGINS = [o.strip() for o in os.environ.get("CORS_ALLOWED_ORIGINS", "").split(",")
                        if o.strip()]
CORS_ALLOW_ALL_ORIGINS = not CORS_ALLOWED_ORIGINS
# Browser origins the WebSockets and /mcp accept besides the service's own (apps.core.origins;
# empty: CORS_ALLOWED_ORIGINS; "*": any).
STREAM_ALLOWED_ORIGINS = [o.strip().rstrip("/") for o in os.environ.get(
    "STREAM_ALLOWED_ORIGINS", "").split(",") if o.strip()]
CORS_URLS_REGEX = r"^/(v1/|v2/|openapi\.json$|graphql/?$)"
# POST: the two computations that take a body (/v2/backtest, /v2/screeners/custom).
CORS_ALLOW_METHODS = ("GET", "HEAD", "OPTIONS", "POST")
CORS_ALLOW_HEADERS = ("accept", "content-type", "x-api-key", "x-correlation-id")
CORS_EXPOSE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
                       "RateLimit-Policy", "RateLimit", "Retry-After", "ETag",
                       "X-Correlation-ID", "X-Cache", "X-Data-Source")

# -- API ------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["apps.core.renderers.ORJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [],
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # `format` is a query member of the spec (v2 quotes' ValueFormat), never a renderer name.
    "URL_FORMAT_OVERRIDE": None,
    "EXCEPTION_HANDLER": "apps.core.exceptions.exception_handler",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Market data service",
    "DESCRIPTION": "Read-only market data API: quotes, charts, indicators, fundamentals "
                   "and more, from upstream providers behind a cache. The WebSocket streams "
                   "(`/v2/stream`, `/v2/feeds/stream`) are described at "
                   "[/docs/websockets](/docs/websockets).",
    # The interface description's version (the v2 spec's header), not the package's.
    "VERSION": "3.2.0",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": False,
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "apps.ratelimit.schema.postprocess_rate_limits",
                             "apps.core.openapi.postprocess_conditional_get",
                             "apps.core.schema.postprocess_nullable",
                             "apps.core.tabular.postprocess_csv",
                             "apps.core.schema_fields.postprocess_fields",
                             "apps.core.units.postprocess_units",
                             "apps.core.schema.postprocess_code_generators",
                             "apps.core.schema.postprocess_examples"],
    "ENUM_NAME_OVERRIDES": {"SecurityTypeEnum": "marketdata.providers.algolia.SECURITY_TYPES"},
}

# -- static files (docs assets are served offline by WhiteNoise) ----------------------------
STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns on a missing root
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# -- HTTPS, proxies and cookies (README "Configuration"; all off by default) ----------------
# Origins whose form posts (the admin login) pass the CSRF Origin check although they are
# not this host as Django sees it, e.g. "https://md.example.com" behind a proxy.
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
# Only behind a proxy that sets X-Forwarded-Proto itself (overwriting whatever a client
# sent): a request it marks https is secure (Secure cookies, CSRF checks, no redirect).
if env_bool("TRUST_X_FORWARDED_PROTO"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
USE_X_FORWARDED_HOST = env_bool("USE_X_FORWARDED_HOST")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT")
# Probes and scrapers connect over plain HTTP from inside the network: never redirected.
SECURE_REDIRECT_EXEMPT = [r"^readyz$", r"^v1/ping$", r"^metrics$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS")
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD")
# Secure cookies are sent over HTTPS only: the admin login needs them off over plain HTTP
# (config.production turns them on unless told otherwise).
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE")
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", SESSION_COOKIE_SECURE)

# -- logging --------------------------------------------------------------------------------
LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO")
LOG_FORMAT = os.environ.get("LOG_FORMAT", "json").strip().lower()
LOGGING = build_logging_config(LOG_LEVEL, LOG_FORMAT)
# The MCP SDK logs a line per request at INFO (/mcp has its access line): warnings only.
LOGGING["loggers"]["mcp"] = {"level": "DEBUG" if LOG_LEVEL.upper() == "DEBUG" else "WARNING"}
# The indicator compiler's internals, warnings only whatever LOG_LEVEL says: at DEBUG numba
# logs every bytecode and SSA step of each kernel it compiles (~89,000 lines in the first
# minute on a fresh var/ directory), which buries the service's own lines.
LOGGING["loggers"].update({name: {"level": "WARNING"} for name in ("numba", "llvmlite")})
configure_structlog()
