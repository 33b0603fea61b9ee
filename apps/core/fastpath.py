"""The fast path: response-cache hits and ``/v1/ping`` answered on the event loop.

``config.asgi`` offers every HTTP request to :class:`FastPath` before Django. It answers a
GET under /v1/ or /v2/ whose answer is in the response cache, and ``/v1/ping``, itself: no
worker thread, no Django handler, no middleware chain. Everything else (misses, other
methods and paths, a request body, anything it cannot decide exactly as Django would) goes
to Django untouched: nothing counted, nothing sent. When in doubt, it falls through.

Its answer is the Django path's answer (``tests/config/test_fastpath_equivalence.py``
compares them for every endpoint). It does not re-implement what Django's layers add; it
runs their code, once per distinct input, and replays the result:

- correlation id and ``X-Data-Source``: :func:`apps.core.middleware.correlation_id_for`
  and ``MARKETDATA_UPSTREAM``, as ``RequestContextMiddleware``;
- the access line: :class:`marketdata.logs.AccessLog`, as ``AccessLogMiddleware``;
- rate limits: :mod:`apps.ratelimit.limits` (the same keys, scripts and 429 bodies; on
  Redis through ``redis.asyncio``), as ``RateLimitMiddleware``;
- CORS: django-cors-headers' own ``add_response_headers``, run on a probe request once per
  (``Origin``, whether the path matches ``CORS_URLS_REGEX``);
- security headers and ``X-Frame-Options``: Django's ``SecurityMiddleware`` and
  ``XFrameOptionsMiddleware`` ``process_response``, run once per scheme (HSTS only over
  https); whether a request is secure, and whether its ``Host`` is allowed, are Django's
  own ``is_secure()``/``get_host()`` on a probe, once per header value;
- ``Content-Length`` (``CommonMiddleware``) and ``X-Cache: HIT`` (the response cache);
- ETag, ``If-None-Match`` -> 304, ``Cache-Control``, ``Vary`` and the encoding
  (``HttpCachingMiddleware``): :mod:`apps.core.encoding`'s rules, with the encodings the
  entry carries (a hit never compresses); ``Vary`` is merged by Django's own
  ``patch_vary_headers``, once per distinct input;
- the stored entry itself: :mod:`apps.core.response_cache` (the same keys and entries).

**Misses of one key wait for one computation.** When an entry expires, every request for it
misses at once (50 polling clients: 50 misses in the same millisecond), and each used to
run Django in a thread of its own, 50 threads taking turns at the GIL with the event loop
while every other hit waited (bench/README.md, issue 47). The first miss of a key is the
*leader*: ``config.asgi`` runs it in Django inside :meth:`FastPath.leading`. A miss of the
same key while the leader runs waits for it on the event loop (no thread) and then reads
the cache again: the leader's answer, stored by the response cache, is served as the hit it
now is. When the leader stored nothing (an error, a stale answer: not cacheable), or it is
still running at the follower's deadline, the follower goes to Django as before, having
spent its wait out of its stale budget (a request waits ``STALE_GRACE_SECONDS`` in all for
an upstream it holds a stale copy of, the wait behind the leader included); and the key's
next misses do not wait until a hit shows its answers are stored again.

It relies on the middleware in front of the response cache being exactly
:data:`EXPECTED_MIDDLEWARE`: any other layout (a new middleware could add a header) turns
it off with a warning, and a test fails. Settings are read once and again after a
``setting_changed`` signal (tests).
"""

from __future__ import annotations

import asyncio
import io
import re
import time
import weakref
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import orjson
from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.wsgi import WSGIRequest
from django.core.signals import setting_changed
from django.http import HttpResponse

from apps.core import encoding, response_cache
from apps.core.inprocess import PREPAID_KEY
from apps.core.middleware import STALE_BUDGET_KEY, correlation_id_for
from apps.core.routes import UNMATCHED, rate_limit_name
from apps.core.symbols import encoded_slash_in_path
from apps.ratelimit import limits
from apps.ratelimit.counters import get_async_store
from marketdata import cache as md_cache
from marketdata import deadline, outages
from marketdata.logs import AccessLog, get_logger

log = get_logger("apps.core.fastpath")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

# The middleware in front of the response cache, in order: what the fast path stands in for
# (the metrics middleware add no header; the fast path records what MetricsMiddleware would).
METRICS_MIDDLEWARE = "apps.health.metrics.MetricsMiddleware"
_HEADER_NEUTRAL = frozenset({METRICS_MIDDLEWARE, "apps.health.metrics.RateLimitPassedMiddleware",
                             # answers OPTIONS only, outside /v1/ and /v2/
                             "apps.core.middleware.PageOptionsMiddleware"})
EXPECTED_MIDDLEWARE = (
    "apps.core.middleware.RequestContextMiddleware",
    "apps.core.middleware.AccessLogMiddleware",
    "apps.core.middleware.HttpCachingMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "apps.ratelimit.middleware.RateLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "apps.core.middleware.ResponseCacheMiddleware",
)
PING_PATH = "/v1/ping"
# Accept values DRF's negotiation answers with JSON for sure (others go to Django, which
# may answer 406).
_PING_ACCEPT = (None, "*/*", "application/json")
_MEMO_LIMIT = 1024
# The production server's extension for a whole answer in one call and one write
# (config.protocol.send_whole, which names it too: apps never import config).
SEND_WHOLE_EXTENSION = "marketdata.http.send_whole"
_NO_EXTENSIONS: dict[str, Any] = {}
# The key of a miss the fast path saw first (no leader running): config.asgi's
# FastPath.leading makes its Django run the leader of that key.
MISSED_KEY = "marketdata.fastpath.missed"
_X_CACHE_HIT = (b"x-cache", md_cache.HIT.encode())
_NO_STORE = (b"cache-control", b"no-store")  # HttpCachingMiddleware's, on every error


def _raise_if_cancelled() -> None:
    """End a cancelled request here: after an await that returned (or failed) although the
    task was cancelled meanwhile (seen with redis.asyncio when the cancellation lands
    while its reply is already in), the request must not go on to Django."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


async def _respond(scope: Scope, send: Send, status: int, headers: list[tuple[bytes, bytes]],
                   body: bytes) -> None:
    """Send the answer: through the server's one-call extension when it offers one
    (:data:`SEND_WHOLE_EXTENSION`: the same bytes in one write), else as two ASGI
    messages."""
    whole = scope.get("extensions", _NO_EXTENSIONS).get(SEND_WHOLE_EXTENSION)
    if whole is not None and whole(status, headers, body):
        return
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _latin1(value: bytes | None) -> str | None:
    return None if value is None else value.decode("latin-1")


def _header_name(meta_name: str) -> bytes:
    """``HTTP_X_FORWARDED_PROTO`` -> ``x-forwarded-proto`` (a2wsgi maps both ``-`` and
    ``_`` to ``_``, so the fast path folds ``_`` into ``-`` when it reads headers)."""
    return meta_name[5:].lower().replace("_", "-").encode("latin-1")


def _probe(path: str = "/", scheme: str = "http", **meta: str) -> WSGIRequest:
    """A real Django request, for running Django's own code on one header combination."""
    return WSGIRequest({"REQUEST_METHOD": "GET", "PATH_INFO": path, "SCRIPT_NAME": "",
                        "QUERY_STRING": "", "SERVER_NAME": "fastpath.invalid",
                        "SERVER_PORT": "443" if scheme == "https" else "80",
                        "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.input": io.BytesIO(),
                        "wsgi.url_scheme": scheme, **meta})


def _added(response: HttpResponse, before: set[str]) -> tuple[tuple[bytes, bytes], ...]:
    return tuple((name.lower().encode("latin-1"), value.encode("latin-1"))
                 for name, value in response.items() if name not in before)


def _encode(headers: Any) -> tuple[tuple[bytes, bytes], ...]:
    return tuple((n.lower().encode("latin-1"), v.encode("latin-1")) for n, v in headers)


class _Memo(dict):
    """A bounded memo of Django's answers per header value (emptied when full: an attacker
    sending random values only costs probes)."""

    def remember(self, key: Any, value: Any) -> Any:
        if len(self) >= _MEMO_LIMIT:
            self.clear()
        self[key] = value
        return value


class Setup:
    """What the fast path needs from settings, computed once per settings state."""

    def __init__(self) -> None:
        self.reason = self._unsupported()
        self.enabled = self.reason is None
        if not self.enabled:
            return
        self.data_source = (b"x-data-source", settings.MARKETDATA_UPSTREAM.encode("latin-1"))
        self.serve_hits = bool(getattr(settings, "RESPONSE_CACHE_ENABLED", True))
        self.store = response_cache.get_store() if self.serve_hits else None
        self.counters = get_async_store()
        self.use_security = bool(settings.USE_SECURITY)
        self.bucket = limits.bucket_config()
        self.access_log = AccessLog(__file__, settings.PERFORMANCE_THRESHOLD_MS)
        self.ssl_redirect = bool(settings.SECURE_SSL_REDIRECT)
        proxy = settings.SECURE_PROXY_SSL_HEADER
        self.proxy_header = _header_name(proxy[0]) if proxy else None
        self.forwarded_host = bool(settings.USE_X_FORWARDED_HOST)
        wanted = {b"host", b"origin", b"x-correlation-id", b"x-api-key", b"accept-language",
                  b"x-forwarded-for", b"content-length", b"transfer-encoding", b"accept",
                  b"accept-encoding", b"if-none-match"}
        if self.proxy_header:
            wanted.add(self.proxy_header)
        if self.forwarded_host:
            wanted.add(b"x-forwarded-host")
        self.wanted = frozenset(wanted)
        from corsheaders.conf import conf

        regex = conf.CORS_URLS_REGEX
        self.cors_urls = re.compile(regex) if isinstance(regex, str) else regex
        self._secure: _Memo = _Memo()
        self._hosts: _Memo = _Memo()
        self._cors: _Memo = _Memo()
        self._cors_parts: _Memo = _Memo()
        self._entry_headers: _Memo = _Memo()
        self._vary: _Memo = _Memo()
        # A hit's headers but the per-request ones, per (entry, coding, origin, secure): the
        # same for every hit of an entry within a second (its max-age). The entry is held
        # weakly: the memo keeps no body alive past its cache entry.
        self.hit_headers: _Memo = _Memo()
        self._layers = {secure: self._django_layers(secure) for secure in (False, True)}
        self.ping = self._ping_template()
        self.metrics = _Metrics() if METRICS_MIDDLEWARE in settings.MIDDLEWARE else None
        self._routes: _Memo = _Memo()

    # -- what the fast path cannot stand in for -------------------------------------------
    @staticmethod
    def _unsupported() -> str | None:
        from corsheaders.signals import check_request_enabled

        if not getattr(settings, "FAST_PATH_ENABLED", True):
            return "FAST_PATH is off"
        middleware = tuple(m for m in settings.MIDDLEWARE
                           if m not in _HEADER_NEUTRAL)[:len(EXPECTED_MIDDLEWARE)]
        if middleware != EXPECTED_MIDDLEWARE:
            return "the middleware in front of the response cache is not the expected one"
        proxy = settings.SECURE_PROXY_SSL_HEADER
        if proxy and not str(proxy[0]).startswith("HTTP_"):
            return "SECURE_PROXY_SSL_HEADER names no HTTP header"
        if check_request_enabled.has_listeners():
            return "a check_request_enabled receiver decides CORS per request"
        if getattr(settings, "CORS_ALLOW_PRIVATE_NETWORK", False):
            return "CORS_ALLOW_PRIVATE_NETWORK answers per request"
        if settings.DISALLOWED_USER_AGENTS or settings.PREPEND_WWW or \
                settings.FORCE_SCRIPT_NAME or getattr(settings, "WHITENOISE_ROOT", None):
            return "a CommonMiddleware/WhiteNoise feature in use answers per request"
        if str(settings.STATIC_URL or "").lstrip("/").startswith(("v1/", "v2/")):
            return "static files are served under /v1/ or /v2/"
        return None

    # -- Django's own answers, memoised ---------------------------------------------------
    def _django_layers(self, secure: bool) -> tuple[tuple[tuple[bytes, bytes], ...], ...]:
        """(X-Frame-Options layer, security layer) as Django adds them to a JSON answer."""
        from django.middleware.clickjacking import XFrameOptionsMiddleware
        from django.middleware.security import SecurityMiddleware

        request = _probe(scheme="https" if secure else "http")
        response = HttpResponse(b"", content_type="application/json")
        before = set(response.headers)
        XFrameOptionsMiddleware(lambda r: response).process_response(request, response)
        xframe = _added(response, before)
        before = set(response.headers)
        SecurityMiddleware(lambda r: response).process_response(request, response)
        return xframe, _added(response, before)

    def is_secure(self, scheme: str, proxy_value: str | None) -> bool:
        key = (scheme, proxy_value)
        known = self._secure.get(key)
        if known is None:
            meta = {} if proxy_value is None else {settings.SECURE_PROXY_SSL_HEADER[0]:
                                                   proxy_value}
            known = self._secure.remember(key, _probe(scheme=scheme, **meta).is_secure())
        return known

    def host_allowed(self, host: str, forwarded: str | None) -> bool:
        key = (host, forwarded)
        known = self._hosts.get(key)
        if known is None:
            meta = {"HTTP_HOST": host}
            if forwarded is not None:
                meta["HTTP_X_FORWARDED_HOST"] = forwarded
            try:
                _probe(**meta).get_host()
                known = True
            except DisallowedHost:
                known = False
            self._hosts.remember(key, known)
        return known

    def cors(self, origin: str | None, path: str) -> tuple[tuple[bytes, bytes], ...]:
        enabled = self.cors_urls.match(path) is not None
        key = (origin, enabled)
        known = self._cors.get(key)
        if known is None:
            from corsheaders.middleware import CorsMiddleware

            request = _probe(path, **({} if origin is None else {"HTTP_ORIGIN": origin}))
            request._cors_enabled = enabled  # type: ignore[attr-defined]  # corsheaders' flag
            response = HttpResponse(b"", content_type="application/json")
            before = set(response.headers)
            CorsMiddleware(lambda r: response).add_response_headers(request, response)
            known = self._cors.remember(key, _added(response, before))
        return known

    def cors_parts(self, origin: str | None, path: str
                   ) -> tuple[tuple[tuple[bytes, bytes], ...], str | None]:
        """:meth:`cors` split into (the headers but ``Vary``, the ``Vary`` it adds)."""
        key = (origin, self.cors_urls.match(path) is not None)
        known = self._cors_parts.get(key)
        if known is None:
            headers = self.cors(origin, path)
            known = self._cors_parts.remember(key, (
                tuple(h for h in headers if h[0] != b"vary"),
                next((v.decode("latin-1") for n, v in headers if n == b"vary"), None)))
        return known

    def entry_headers(self, headers: tuple[tuple[str, str], ...]
                      ) -> tuple[tuple[tuple[bytes, bytes], ...], str | None]:
        """An entry's headers, encoded, but ``Vary`` (merged with the others'), and its
        ``Vary``."""
        known = self._entry_headers.get(headers)
        if known is None:
            known = self._entry_headers.remember(headers, (
                _encode((n, v) for n, v in headers if n.lower() != "vary"),
                next((v for n, v in headers if n.lower() == "vary"), None)))
        return known

    def vary(self, entry: str | None, cors: str | None, language: bool,
             encodings: bool) -> tuple[tuple[bytes, bytes], ...]:
        """The ``Vary`` header of a hit, merged as the Django path merges it: the entry's,
        then CORS's, then HttpCachingMiddleware's (Django's ``patch_vary_headers``)."""
        key = (entry, cors, language, encodings)
        known = self._vary.get(key)
        if known is None:
            from django.utils.cache import cc_delim_re, patch_vary_headers

            response = HttpResponse(b"")
            if entry is not None:
                response["Vary"] = entry
            if cors is not None:
                patch_vary_headers(response, cc_delim_re.split(cors))
            own = (["Accept-Language"] if language else []) + \
                (["Accept-Encoding"] if encodings else [])
            if own:
                patch_vary_headers(response, own)
            value = response.get("Vary")
            known = self._vary.remember(
                key, () if value is None else ((b"vary", value.encode("latin-1")),))
        return known

    def _ping_template(self) -> tuple[dict[str, Any], tuple[tuple[bytes, bytes], ...],
                                      str | None] | None:
        """The ping view's body and headers, from the view itself (the timestamp is the
        only thing that changes); None when its shape is not the known one."""
        from django.urls import resolve

        # The view the URL configuration names for the path (apps.core imports no app).
        response = resolve(PING_PATH).func(_probe(PING_PATH))
        response.render()
        body = orjson.loads(response.content)
        if response.status_code != 200 or set(body) != {"status", "timestamp"}:
            log.warning("fast path: /v1/ping has an unknown shape; Django answers it")
            return None
        return body, _encode(response.items()), resolve(PING_PATH).url_name

    def layers(self, secure: bool) -> tuple[tuple[tuple[bytes, bytes], ...], ...]:
        return self._layers[secure]

    def route(self, path: str, unmatched: str) -> str:
        """The URL pattern of ``path``, as the metrics label requests (``unmatched`` for a
        path no pattern matches)."""
        known = self._routes.get(path)
        if known is None:
            from django.urls import Resolver404, resolve

            try:
                known = resolve(path).route or "/"
            except Resolver404:
                known = unmatched
            self._routes.remember(path, known)
        return known

    def record(self, path: str, status: int, seconds: float, refused: bool) -> None:
        """What MetricsMiddleware records for an answer (it never raises)."""
        metrics = self.metrics
        if metrics is None:
            return
        if refused:
            metrics.record_rate_limited(metrics.rate_limit_name(path))
        metrics.record_request("GET", self.route(path, metrics.UNMATCHED), status, seconds)


class _Metrics:
    """What the metrics middleware records, for answers given here (the metrics module is
    imported only where the middleware is configured)."""

    UNMATCHED = UNMATCHED

    def __init__(self) -> None:
        from marketdata.metrics import RequestRecorder, record_rate_limited

        self.rate_limit_name = rate_limit_name
        self.record_rate_limited = record_rate_limited
        self.record_request = RequestRecorder()


class FastPath:
    """The ASGI-level answerer; ``await fast_path(scope, receive, send)`` is True when it
    answered the request (then the caller must do nothing more)."""

    def __init__(self) -> None:
        self._setup: Setup | None = None
        # Response-cache key -> the leader's run (done when its Django answer is out).
        self._leaders: dict[str, asyncio.Future[None]] = {}
        # Keys whose last leader stored nothing: their misses do not wait (until a hit).
        self._unstored: _Memo = _Memo()
        setting_changed.connect(self._settings_changed, weak=False)

    def _settings_changed(self, **_kwargs: Any) -> None:
        self._setup = None

    def setup(self) -> Setup:
        setup = self._setup
        if setup is None:
            setup = self._setup = Setup()
            if not setup.enabled and setup.reason != "FAST_PATH is off":
                log.warning(f"fast path off: {setup.reason}")
        return setup

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> bool:
        if scope["method"] != "GET":
            return False
        path = scope["path"]
        if not path.startswith(("/v1/", "/v2/")) or scope.get("root_path"):
            return False
        setup = self._setup or self.setup()
        if not setup.enabled:
            return False
        # From arrival (the protocol's stamp): a busy event loop's delay is latency too.
        started = scope.get(deadline.ARRIVAL_KEY) or time.monotonic()
        wanted = setup.wanted
        headers: dict[bytes, bytes] = {}
        for name, value in scope["headers"]:
            if b"_" in name:
                name = name.replace(b"_", b"-")
            if name in wanted:
                # Repeated headers are joined as a2wsgi joins them for Django.
                seen = headers.get(name)
                headers[name] = value if seen is None else seen + b"," + value
        if b"transfer-encoding" in headers or headers.get(b"content-length", b"0") != b"0":
            return False  # a body: Django's to read
        host = headers.get(b"host")
        if host is None:
            return False
        secure = setup.is_secure(scope.get("scheme", "http"),
                                 _latin1(headers.get(setup.proxy_header)))
        if setup.ssl_redirect and not secure:
            return False
        if not setup.host_allowed(host.decode("latin-1"),
                                  _latin1(headers.get(b"x-forwarded-host"))
                                  if setup.forwarded_host else None):
            return False
        if path == PING_PATH:
            return await self._ping(setup, scope, send, headers, secure, started)
        if not setup.serve_hits or setup.store is None:  # the store is set when serve_hits is
            return False
        try:
            query = scope["query_string"].decode("ascii")
        except UnicodeDecodeError:
            return False
        key = response_cache.cache_key(
            "GET", path, query, (_latin1(headers.get(b"accept-language")) or ""),
            encoded_slash=encoded_slash_in_path({"asgi.scope": scope}),
            accept=_latin1(headers.get(b"accept")) or "")
        if key is None:
            return False
        try:
            entry = await setup.store.aget(key)
        except Exception as exc:  # noqa: BLE001 - a cache outage: Django decides what to answer
            outages.failed(exc, "response cache get")
            entry = None
        else:
            outages.succeeded("response cache get")
        _raise_if_cancelled()
        if entry is None:
            entry = await self._behind_leader(setup, scope, key, started)
            if entry is None:
                return False
        elif self._unstored and key in self._unstored:
            del self._unstored[key]
        await self._hit(setup, scope, send, headers, secure, path, query, entry, started)
        return True

    # -- misses of one key: one leader --------------------------------------------------------
    async def _behind_leader(self, setup: Setup, scope: Scope, key: str,
                             started: float) -> response_cache.Entry | None:
        """After a miss of ``key``: the entry the running leader stored, once it is done;
        None when this request goes to Django (then, if no leader runs, it may lead)."""
        leader = self._leaders.get(key)
        if leader is None:
            if key not in self._unstored:
                scope[MISSED_KEY] = key
            return None
        waited_from = time.monotonic()
        left = started + deadline.default_seconds() - deadline.ANSWER_MARGIN_SECONDS \
            - waited_from
        if left > 0:
            # asyncio.wait, not await: a follower cancelled must not cancel the leader's
            # future that other followers wait on.
            await asyncio.wait((leader,), timeout=left)
        _raise_if_cancelled()
        entry = None
        if leader.done():
            try:
                entry = await setup.store.aget(key)  # type: ignore[union-attr]  # serve_hits
            except Exception as exc:  # noqa: BLE001 - as the first read: Django decides
                outages.failed(exc, "response cache get")
            else:
                outages.succeeded("response cache get")
            _raise_if_cancelled()
            if entry is None:
                self._unstored.remember(key, True)
        if entry is None:
            # Django's turn: the time spent behind the leader was spent waiting for the
            # upstream, out of the request's one stale budget.
            budget = deadline.StaleBudget(deadline.stale_grace_seconds())
            budget.started = waited_from
            scope[STALE_BUDGET_KEY] = budget
        return entry

    @contextmanager
    def leading(self, scope: Scope) -> Iterator[None]:
        """Around the Django run of a request the fast path passed on: when it was the
        first miss of its key (no leader running), it leads that key until it is done, and
        the misses meanwhile wait for it (:meth:`_behind_leader`). Entered right after the
        fast path returned, with no await between: nothing else can have led meanwhile."""
        key = scope.pop(MISSED_KEY, None)
        if key is None or key in self._leaders:
            yield
            return
        leader = asyncio.get_running_loop().create_future()
        self._leaders[key] = leader
        try:
            yield
        finally:
            del self._leaders[key]
            leader.set_result(None)

    # -- answers ----------------------------------------------------------------------------
    async def _hit(self, setup: Setup, scope: Scope, send: Send, headers: dict[bytes, bytes],
                   secure: bool, path: str, query: str, entry: response_cache.Entry,
                   started: float) -> None:
        correlation_id = correlation_id_for(_latin1(headers.get(b"x-correlation-id")))
        refusal, quota = await self._limits(setup, scope, headers, path, correlation_id)
        if refusal is not None:
            status, body = 429, refusal[0]
            out = [(b"content-type", b"application/json"), *refusal[1], *quota, _NO_STORE]
            out += setup.cors(_latin1(headers.get(b"origin")), path)
        else:
            status, body, out = self._representation(setup, headers, secure, path, query,
                                                     entry)
            out += quota
        out.append((b"x-correlation-id", correlation_id.encode()))
        out.append(setup.data_source)
        await _respond(scope, send, status, out, body)
        seconds = self._log(setup, path, status, started, correlation_id, query, None)
        setup.record(path, status, seconds, refusal is not None)

    @staticmethod
    def _representation(setup: Setup, headers: dict[bytes, bytes], secure: bool, path: str,
                        query: str, entry: response_cache.Entry
                        ) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
        """HttpCachingMiddleware's answer for a hit the limits let through: (200 or 304,
        the body, the headers but the limits', the correlation id and the data source)."""
        codings = entry.codings
        coding = encoding.choose(_latin1(headers.get(b"accept-encoding")), codings)
        origin = _latin1(headers.get(b"origin"))
        max_age = entry.max_age()
        key = (id(entry), coding, origin, secure, path, query)
        known = setup.hit_headers.get(key)
        # (An id can be reused by a newer entry once the old one is gone.)
        if known is None or known[0]() is not entry or known[1] != max_age:
            current = encoding.etag(entry.etag, coding)
            entry_out, entry_vary = setup.entry_headers(entry.headers)
            cors_out, cors_vary = setup.cors_parts(origin, path)
            xframe, security = setup.layers(secure)
            common = (_X_CACHE_HIT,
                      (b"cache-control", encoding.cache_control(max_age).encode()),
                      *xframe, *security, *cors_out,
                      *setup.vary(entry_vary, cors_vary,
                                  response_cache.language_dependent(path, query),
                                  bool(codings)),
                      (b"etag", current.encode()))
            known = setup.hit_headers.remember(
                key, (weakref.ref(entry), max_age, current, entry_out, common))
        _, _, current, entry_out, common = known
        condition = headers.get(b"if-none-match")
        if condition is not None and encoding.none_match(condition.decode("latin-1"),
                                                         current):
            return 304, b"", [*entry_out[1:], *common]
        if coding == encoding.IDENTITY:
            body = entry.body
            return 200, body, [*entry_out, *common,
                               (b"content-length", str(len(body)).encode())]
        body = entry.variant(coding)
        return 200, body, [*entry_out, *common, (b"content-length", str(len(body)).encode()),
                           (b"content-encoding", coding.encode())]

    async def _limits(self, setup: Setup, scope: Scope, headers: dict[bytes, bytes],
                      path: str, correlation_id: str
                      ) -> tuple[tuple[bytes, list[tuple[bytes, bytes]]] | None,
                                 list[tuple[bytes, bytes]]]:
        """RateLimitMiddleware's decision for a hit: (the 429's body and headers, or None;
        the quota headers). Health and ping are never hits, so only the quota and the
        bucket apply."""
        v1 = path.startswith("/v1/")
        if (v1 and not setup.use_security) or (not v1 and not setup.bucket.enabled) \
                or scope.get(PREPAID_KEY):
            return None, []
        meta = limits.asgi_meta(scope.get("client"), headers)
        if limits.is_admin(meta):
            return None, []
        try:
            if v1:
                allowed, state = await limits.take_daily_async(limits.client_ip(meta),
                                                               store=setup.counters)
            else:
                take = await limits.take_v2_async(limits.client_ip(meta), setup.bucket,
                                                  store=setup.counters)
        except Exception as exc:  # noqa: BLE001 - as RateLimitMiddleware: let it through
            _raise_if_cancelled()
            outages.failed(exc, "rate-limit counters", correlation_id=correlation_id)
            return None, []
        outages.succeeded("rate-limit counters")
        _raise_if_cancelled()
        if not v1:
            bucket = list(_encode(limits.bucket_headers(take, setup.bucket).items()))
            if take.allowed:
                return None, bucket
            return (limits.json_body(limits.v2_rate_limit_body(take)),
                    [(b"retry-after", str(take.retry_after).encode())]), bucket
        quota = _encode(state.headers().items())
        if allowed:
            return None, list(quota)
        return (limits.json_body(state.body()),
                [(b"retry-after", str(state.reset_in).encode())]), list(quota)

    async def _ping(self, setup: Setup, scope: Scope, send: Send,
                    headers: dict[bytes, bytes], secure: bool, started: float) -> bool:
        if setup.ping is None or _latin1(headers.get(b"accept")) not in _PING_ACCEPT:
            return False
        template, view_headers, route = setup.ping
        correlation_id = correlation_id_for(_latin1(headers.get(b"x-correlation-id")))
        body = orjson.dumps({**template, "timestamp": datetime.now(UTC).isoformat()})
        xframe, security = setup.layers(secure)
        out = [*view_headers, *xframe, (b"content-length", str(len(body)).encode()),
               *security, *setup.cors(_latin1(headers.get(b"origin")), PING_PATH),
               (b"x-correlation-id", correlation_id.encode()), setup.data_source]
        await _respond(scope, send, 200, out, body)
        try:
            query = scope["query_string"].decode("ascii")
        except UnicodeDecodeError:
            query = ""
        seconds = self._log(setup, PING_PATH, 200, started, correlation_id, query, route)
        setup.record(PING_PATH, 200, seconds, False)
        return True

    @staticmethod
    def _log(setup: Setup, path: str, status: int, started: float, correlation_id: str,
             query: str, route: str | None) -> float:
        """The access line; returns the seconds the answer took."""
        seconds = time.monotonic() - started
        setup.access_log("GET", path, status, round(seconds * 1000, 3), correlation_id, query,
                         route)
        return seconds


fast_path = FastPath()
