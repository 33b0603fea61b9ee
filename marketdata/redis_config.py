"""Where the service's Redis is: one URL, or a primary found through Redis Sentinel.

Every Redis client of the service (the cache through django-redis, the event loop's
client in :mod:`marketdata.redis_async`, the stream's leader locks, the channel layer) is
built from what :func:`from_environment` returns, so a Sentinel deployment is one set of
variables, not four:

- ``REDIS_URL=redis://host:6379/0``: one Redis.
- ``REDIS_SENTINELS=host1:26379,host2:26379,host3:26379`` and ``REDIS_SENTINEL_SERVICE``
  (default ``mymaster``): the clients ask the sentinels for the service's primary and ask
  again after a connection fails, so a failover needs no restart. ``REDIS_URL`` is then
  optional and gives only what the sentinels do not know (database number, user and
  password, ``rediss`` for TLS); its host must be the service's name, as in
  ``redis://:secret@mymaster/0``, so that nothing written there is silently ignored.
  ``REDIS_SENTINEL_PASSWORD`` authenticates to the sentinels themselves when they ask.

Reads and writes both go to the primary: the rate-limit counters, single-flight locks and
leader locks need to read what was just written, which a replica may not have yet.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

DEFAULT_SENTINEL_PORT = 26379
SENTINEL_TIMEOUT_SECONDS = 1.0


class RedisConfigError(ValueError):
    """A Redis variable that cannot be used as given (the message names it)."""


@dataclass(frozen=True)
class RedisTarget:
    """The service's Redis: ``url`` always (for a Sentinel deployment its host is the
    service name, django-redis's convention); ``sentinels`` empty without Sentinel."""

    url: str
    sentinels: tuple[tuple[str, int], ...] = ()
    service: str = ""
    sentinel_password: str = field(default="", repr=False)

    @property
    def uses_sentinel(self) -> bool:
        return bool(self.sentinels)

    @property
    def db(self) -> int:
        path = urlsplit(self.url).path.strip("/")
        return int(path) if path else 0

    @property
    def username(self) -> str | None:
        name = urlsplit(self.url).username
        return unquote(name) if name else None

    @property
    def password(self) -> str | None:
        secret = urlsplit(self.url).password
        return unquote(secret) if secret else None

    @property
    def ssl(self) -> bool:
        return urlsplit(self.url).scheme == "rediss"

    def sentinel_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for the connections to the sentinels themselves: short
        timeouts (a sentinel that does not answer is skipped for the next one), and the
        sentinels' own password when they ask for one."""
        kwargs: dict[str, Any] = {"socket_timeout": SENTINEL_TIMEOUT_SECONDS,
                                  "socket_connect_timeout": SENTINEL_TIMEOUT_SECONDS}
        if self.sentinel_password:
            kwargs["password"] = self.sentinel_password
        return kwargs

    def primary_kwargs(self) -> dict[str, Any]:
        """What a Sentinel-managed connection needs beside the primary's address."""
        kwargs: dict[str, Any] = {"db": self.db}
        if self.username:
            kwargs["username"] = self.username
        if self.password:
            kwargs["password"] = self.password
        if self.ssl:
            kwargs["ssl"] = True
        return kwargs

    def channel_layer_host(self) -> str | dict[str, Any]:
        """One entry of channels_redis's ``hosts``: the URL, or its Sentinel form."""
        if not self.uses_sentinel:
            return self.url
        return {"sentinels": list(self.sentinels), "master_name": self.service,
                "sentinel_kwargs": self.sentinel_kwargs(), **self.primary_kwargs()}


def parse_sentinels(text: str) -> tuple[tuple[str, int], ...]:
    """``host[:port]`` entries separated by commas (``[v6]:port`` for IPv6 addresses)."""
    sentinels = []
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        if item.startswith("["):
            host, _, rest = item[1:].partition("]")
            port_text = rest[1:] if rest.startswith(":") else rest
        elif item.count(":") == 1:
            host, _, port_text = item.partition(":")
        else:
            host, port_text = item, ""
        if not host:
            raise RedisConfigError(f"REDIS_SENTINELS: {item!r} has no host")
        try:
            port = int(port_text) if port_text else DEFAULT_SENTINEL_PORT
        except ValueError:
            raise RedisConfigError(f"REDIS_SENTINELS: {item!r} has a port that is not a "
                                   "number") from None
        if not 0 < port < 65536:
            raise RedisConfigError(f"REDIS_SENTINELS: {item!r} has a port out of range")
        sentinels.append((host, port))
    return tuple(sentinels)


def from_environment(environ: Mapping[str, str]) -> RedisTarget | None:
    """The configured Redis, or None when the service runs without one."""
    url = environ.get("REDIS_URL", "").strip()
    sentinels = parse_sentinels(environ.get("REDIS_SENTINELS", ""))
    if not sentinels:
        return RedisTarget(url=url) if url else None
    service = environ.get("REDIS_SENTINEL_SERVICE", "").strip() or "mymaster"
    # The name travels as a URL's host (django-redis reads it from there), which is
    # lower-cased on the way: a name it would alter is refused rather than changed.
    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", service):
        raise RedisConfigError("REDIS_SENTINEL_SERVICE must be lower-case letters, digits, "
                               "'.', '_' or '-'")
    if url:
        parts = urlsplit(url)
        if parts.scheme not in ("redis", "rediss"):
            raise RedisConfigError("REDIS_URL must be redis:// or rediss:// with "
                                   "REDIS_SENTINELS")
        if parts.hostname != service or parts.port is not None:
            raise RedisConfigError(
                f"with REDIS_SENTINELS the host of REDIS_URL names the Sentinel service "
                f"(redis://[:password@]{service}/<db>), not a server: the sentinels say "
                f"where the primary is")
        path = parts.path.strip("/")
        if path and not path.isdigit():
            raise RedisConfigError("REDIS_URL's path must be a database number")
        netloc = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
        url = f"{parts.scheme}://{netloc}{service}/{path or 0}"
    else:
        url = f"redis://{service}/0"
    return RedisTarget(url=url, sentinels=sentinels, service=service,
                       sentinel_password=environ.get("REDIS_SENTINEL_PASSWORD", ""))
