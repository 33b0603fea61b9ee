"""The service's own limits: the v1 daily quota, the /v1/health cooldown, the v2 token bucket.

Policy lives here (keys, windows, who is exempt, what clients are told); the atomic
arithmetic lives in :mod:`apps.ratelimit.counters`. The middleware, the fast path
(:mod:`apps.core.fastpath`, through the ``*_async`` twins, same keys and arguments) and the
admin all read and write through these functions, so they always agree.

- **v1 daily quota**: ``APP_RATE_LIMIT_PER_DAY`` requests per client IP per calendar day in
  UTC. The count resets for everyone at 00:00 UTC, so ``X-RateLimit-Reset`` is the same for
  all clients and the admin's "today" is one well-defined set of counters.
- **/v1/health cooldown**: one health check per client IP per ``HEALTH_COOLDOWN_SECONDS``
  (30 minutes), not counted in the quota.
- **v2 token bucket**: ``V2_RATE_LIMIT_CAPACITY`` tokens refilled continuously at
  ``V2_RATE_LIMIT_REFILL_PER_SECOND``; one bucket for all clients (``global``, the spec) or
  one per client IP (``ip``).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.core.cache import caches

from apps.ratelimit.counters import BucketTake, get_async_store, get_store
from marketdata import outages

_PREFIX = "md:rl:"
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


# -- who is asking ---------------------------------------------------------------------------
def is_admin(meta: dict[str, Any]) -> bool:
    """Whether the request carries the admin key (``x-api-key``), compared in constant time.

    Any other key, like no key, makes an ordinary limited request.
    """
    expected = settings.ADMIN_API_KEY
    given = meta.get("HTTP_X_API_KEY")
    if not expected or given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"),
                               expected.encode("utf-8", "surrogateescape"))


@lru_cache(maxsize=8)
def _trusted_networks(spec: str) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(item.strip(), strict=False)
                 for item in spec.split(",") if item.strip())


def trusted_proxies() -> tuple[IPNetwork, ...]:
    return _trusted_networks(settings.TRUSTED_PROXIES)


def _parse_ip(text: str | None) -> IPAddress | None:
    """An address from a socket peer or an X-Forwarded-For hop (ports and brackets allowed)."""
    if not text:
        return None
    text = text.strip()
    if text.startswith("["):  # [2001:db8::1]:443
        text = text[1:text.find("]")] if "]" in text else text[1:]
    elif text.count(":") == 1:  # 203.0.113.7:51234
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _is_trusted(address: IPAddress, networks: tuple[IPNetwork, ...]) -> bool:
    return any(address in network for network in networks)


def client_key(address: IPAddress) -> str:
    """What a client is counted as: its IPv4 address, or its IPv6 /64 (one subscriber's
    allocation: counting single IPv6 addresses would let a client rotate past any limit)."""
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def asgi_meta(client: Any, headers: Mapping[bytes, bytes]) -> dict[str, str]:
    """The parts of a WSGI environ these functions read (peer, ``x-api-key``,
    ``x-forwarded-for``), from an ASGI scope's ``client`` and its headers by lower-case
    name: for the fast path and the WebSocket handshakes, which answer without Django."""
    meta = {"REMOTE_ADDR": client[0]} if client else {}
    for name, meta_name in ((b"x-api-key", "HTTP_X_API_KEY"),
                            (b"x-forwarded-for", "HTTP_X_FORWARDED_FOR")):
        if name in headers:
            meta[meta_name] = headers[name].decode("latin-1")
    return meta


def client_ip(meta: dict[str, Any]) -> str:
    """The client a request is counted against.

    The socket peer, unless the peer is a trusted proxy (``TRUSTED_PROXIES``, addresses or
    networks); then the right-most ``X-Forwarded-For`` entry that is not a trusted proxy.
    Entries to the left of that one were written by the client and are never believed; a
    malformed entry stops the walk at the last address a trusted proxy vouched for.
    """
    peer = _parse_ip(meta.get("REMOTE_ADDR"))
    if peer is None:
        return "unknown"
    networks = trusted_proxies()
    if not networks or not _is_trusted(peer, networks):
        return client_key(peer)
    address = peer
    for hop in reversed(meta.get("HTTP_X_FORWARDED_FOR", "").split(",")):
        if not hop.strip():
            continue
        parsed = _parse_ip(hop)
        if parsed is None:
            break
        address = parsed
        if not _is_trusted(parsed, networks):
            break
    return client_key(address)


# -- what clients are told: the IETF RateLimit headers ---------------------------------------
# draft-ietf-httpapi-ratelimit-headers (-10): structured fields naming the policy,
#   RateLimit-Policy: "<name>";q=<quota>;w=<window seconds>
#   RateLimit: "<name>";r=<remaining>;t=<seconds until more quota is available>
DAILY_POLICY = "daily"
HEALTH_POLICY = "health"
BUCKET_POLICY = "bucket"
DAY_SECONDS = 86400


def ietf_headers(policy: str, quota: int, window: int, remaining: int,
                 reset: int) -> dict[str, str]:
    """``RateLimit-Policy`` and ``RateLimit`` for one policy."""
    return {"RateLimit-Policy": f'"{policy}";q={quota};w={window}',
            "RateLimit": f'"{policy}";r={remaining};t={reset}'}


# -- v1 daily quota -------------------------------------------------------------------------
@dataclass(frozen=True)
class QuotaState:
    """A client's quota after a request: what the headers and the 429 body report."""

    count: int
    limit: int
    reset_in: int

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.count)

    def headers(self) -> dict[str, str]:
        """The spec's X-RateLimit-* headers and the IETF draft's pair for the same quota."""
        return {"X-RateLimit-Limit": str(self.limit),
                "X-RateLimit-Remaining": str(self.remaining),
                "X-RateLimit-Reset": str(self.reset_in),
                **ietf_headers(DAILY_POLICY, self.limit, DAY_SECONDS, self.remaining,
                               self.reset_in)}

    def body(self) -> dict[str, Any]:
        return {"detail": "Rate limit exceeded",
                "rate_limit_info": {"count": self.count, "remaining": self.remaining,
                                    "reset_in": self.reset_in, "limit": self.limit}}


def daily_limit() -> int:
    return settings.APP_RATE_LIMIT_PER_DAY


def _window(now: float | None = None) -> tuple[str, int]:
    """(the UTC day as YYYYMMDD, whole seconds until it ends)."""
    moment = datetime.fromtimestamp(time.time() if now is None else now, UTC)
    midnight = datetime.combine(moment.date() + timedelta(days=1), datetime.min.time(), UTC)
    return moment.strftime("%Y%m%d"), max(1, math.ceil((midnight - moment).total_seconds()))


def _quota_key(day: str, client: str) -> str:
    return f"{_PREFIX}day:{day}:{client}"


def _quota_index(day: str) -> str:
    return f"{_PREFIX}day:{day}:_clients"


def _daily_call(client: str, now: float | None) -> tuple[tuple[str, str, str, int, int],
                                                        int, int]:
    """The quota store's arguments for one request of ``client``, the limit, the reset."""
    day, reset_in = _window(now)
    limit = daily_limit()
    # Kept a minute past midnight: a request racing the boundary still finds its counter.
    return ((_quota_key(day, client), _quota_index(day), client, limit, reset_in + 60),
            limit, reset_in)


def take_daily(client: str, now: float | None = None) -> tuple[bool, QuotaState]:
    """Count one request of ``client`` unless its quota is used up (then nothing is counted)."""
    call, limit, reset_in = _daily_call(client, now)
    taken = get_store().take_quota(*call)
    return taken.allowed, QuotaState(taken.count, limit, reset_in)


async def take_daily_async(client: str, now: float | None = None,
                           store: Any = None) -> tuple[bool, QuotaState]:
    """:func:`take_daily` on the event loop (``store``: an async counter store the caller
    keeps; the default cache's otherwise)."""
    call, limit, reset_in = _daily_call(client, now)
    taken = await (store or get_async_store()).take_quota(*call)
    return taken.allowed, QuotaState(taken.count, limit, reset_in)


def json_body(data: dict[str, Any]) -> bytes:
    """A 429 body as the fast path sends it: the bytes of the middleware's
    ``JsonResponse`` (stdlib ``json``, default separators; the fast path's equivalence
    tests compare the two)."""
    return json.dumps(data).encode()


@dataclass(frozen=True)
class CounterRow(QuotaState):
    """One client's quota today, as the admin lists it."""

    client: str = ""


def today_counters(search: str = "") -> list[CounterRow]:
    """Today's quota counters, busiest first; ``search`` filters clients by substring."""
    day, reset_in = _window()
    store = get_store()
    index = _quota_index(day)
    search = search.strip()
    clients = [c for c in store.members(index) if search in c]
    counts = store.quota_counts({c: _quota_key(day, c) for c in clients})
    limit = daily_limit()
    rows = [CounterRow(n, limit, reset_in, client=c) for c, n in counts.items()]
    return sorted(rows, key=lambda r: (-r.count, r.client))


def reset_counters(clients: list[str]) -> None:
    """Forget today's count and the health cooldown of these clients."""
    day, _ = _window()
    get_store().reset(_quota_index(day), {c: _quota_key(day, c) for c in clients})
    caches["default"].delete_many([_health_key(c) for c in clients])


# -- /v1/health cooldown --------------------------------------------------------------------
def health_cooldown() -> int:
    return settings.HEALTH_COOLDOWN_SECONDS


def _health_key(client: str) -> str:
    return f"{_PREFIX}health:{client}"


def take_health(client: str) -> int | None:
    """None when ``client`` may run a health check now (and starts its cooldown), else the
    whole seconds left. ``add`` is an atomic SET NX in Redis."""
    seconds = health_cooldown()
    now = time.time()
    cache = caches["default"]
    if cache.add(_health_key(client), now + seconds, timeout=seconds):
        return None
    until = cache.get(_health_key(client))
    return max(1, math.ceil((until or now + 1) - now))


def health_limited_body(wait: int) -> dict[str, Any]:
    """The 429 of a health check inside the cooldown: the quota's shape, limit 1."""
    return {"detail": "Health check rate limit exceeded. Try again later.",
            "rate_limit_info": {"count": 1, "remaining": 0, "reset_in": wait, "limit": 1}}


# -- v2 token bucket ------------------------------------------------------------------------
@dataclass(frozen=True)
class BucketConfig:
    capacity: int
    refill_per_second: float
    scope: str  # "global" | "ip"

    @property
    def enabled(self) -> bool:
        return self.capacity > 0 and self.refill_per_second > 0


def bucket_config() -> BucketConfig:
    return BucketConfig(settings.V2_RATE_LIMIT_CAPACITY,
                        settings.V2_RATE_LIMIT_REFILL_PER_SECOND, settings.V2_RATE_LIMIT_SCOPE)


_BUCKET_INDEX = f"{_PREFIX}v2:_clients"


def _bucket_key(client: str | None) -> str:
    return f"{_PREFIX}v2:global" if client is None else f"{_PREFIX}v2:ip:{client}"


def _v2_call(client: str, config: BucketConfig) -> tuple[str, str, str, int, float]:
    own = client if config.scope == "ip" else None
    return _bucket_key(own), _BUCKET_INDEX, own or "", config.capacity, config.refill_per_second


def take_v2(client: str, config: BucketConfig) -> BucketTake:
    """Take one token from the v2 bucket (``client``'s own bucket in ``ip`` scope)."""
    return get_store().take_token(*_v2_call(client, config))


async def take_v2_async(client: str, config: BucketConfig, store: Any = None, *,
                        cost: int = 1) -> BucketTake:
    """:func:`take_v2` on the event loop (``store`` as for :func:`take_daily_async`);
    ``cost`` tokens at once (a GraphQL query's cost), all or none."""
    store = store or get_async_store()
    if cost == 1:
        return await store.take_token(*_v2_call(client, config))
    return await store.take_token(*_v2_call(client, config), cost=cost)


async def charge_v2(scope: Mapping[str, Any], cost: int = 1
                    ) -> tuple[BucketTake, list[tuple[bytes, bytes]]] | None:
    """``cost`` tokens of the v2 bucket for an ASGI request answered before Django (an MCP
    message, a GraphQL query): the bucket's decision and its headers (``Retry-After`` first
    when refused), or None when nothing is counted (the bucket is off, the admin key, or
    the counters cannot be reached: let through, as :mod:`apps.ratelimit.middleware`)."""
    config = bucket_config()
    if not config.enabled:
        return None
    meta = asgi_meta(scope.get("client"), dict(scope.get("headers") or ()))
    if is_admin(meta):
        return None
    try:
        take = await take_v2_async(client_ip(meta), config, cost=cost)
    except Exception as exc:  # noqa: BLE001 - redis/socket errors of any kind
        outages.failed(exc, "rate-limit counters")  # logged once per outage
        return None
    outages.succeeded("rate-limit counters")
    headers = [(name.lower().encode("latin-1"), value.encode("latin-1"))
               for name, value in bucket_headers(take, config).items()]
    if not take.allowed:
        headers.insert(0, (b"retry-after", str(take.retry_after).encode()))
    return take, headers


def bucket_headers(take: BucketTake, config: BucketConfig) -> dict[str, str]:
    """The IETF headers of a v2 answer (the spec gives v2 no X-RateLimit-* headers).

    A token bucket as a quota policy: ``q`` is the capacity (the burst) and ``w`` the time
    the refill takes to give that many tokens, so ``q/w`` is the sustained rate; ``r`` the
    whole tokens left; ``t`` (draft -10: seconds until more quota is available) the wait
    for the next whole token (``Retry-After`` on a 429).
    """
    window = max(1, math.ceil(config.capacity / config.refill_per_second - 1e-9))
    remaining = max(0, math.floor(take.tokens))
    if not take.allowed:
        reset = take.retry_after
    else:
        missing = 1.0 - (take.tokens - remaining)
        reset = max(1, math.ceil(missing / config.refill_per_second - 1e-9))
    return ietf_headers(BUCKET_POLICY, config.capacity, window, remaining, reset)


def v2_rate_limit_body(take: BucketTake) -> dict[str, Any]:
    seconds = take.retry_after
    return {"error": "Rate limit exceeded",
            "message": f"Too many requests. Please retry after {seconds} "
                       f"second{'' if seconds == 1 else 's'}.",
            "retryAfterSeconds": seconds}


@dataclass(frozen=True)
class BucketLevel:
    client: str  # "global", or the client in ip scope
    tokens: float
    capacity: int


def bucket_levels(config: BucketConfig | None = None, search: str = "") -> list[BucketLevel]:
    """Current level of the v2 bucket (or of every client's bucket seen today in ip scope)."""
    config = config or bucket_config()
    store = get_store()
    if config.scope != "ip":
        return [BucketLevel("global", store.bucket_level(_bucket_key(None), config.capacity,
                                                         config.refill_per_second),
                            config.capacity)]
    search = search.strip()
    clients = [c for c in store.members(_BUCKET_INDEX) if search in c]
    levels = [BucketLevel(c, store.bucket_level(_bucket_key(c), config.capacity,
                                                config.refill_per_second), config.capacity)
              for c in clients]
    return sorted(levels, key=lambda level: (level.tokens, level.client))
