"""Which process polls a symbol: one leader per symbol across every process of a deployment.

With Redis (the channels-redis layer), each process's hub claims its active symbols once per
cycle in one script call: a symbol's lock holds the leader's token and expires one interval
and a margin (:func:`lease_seconds`) after its last renewal. A claim that finds another
holder learns how long that holder's lock has left (``others_expire_in``): a lock that was
not renewed at this cycle's start ends within the margin, and the hub claims again right
after it ends (apps.stream.hub), so a leader that dies is replaced within one interval and
the margin, and the cycle it missed is polled late rather than skipped. One that stops
cleanly hands over at the next cycle (it releases its locks). Without Redis there is one
process per channel layer and it leads every symbol.
"""

from __future__ import annotations

import uuid
from typing import Protocol

from django.conf import settings

from marketdata import outages

# KEYS: lock per symbol; ARGV: token, ttl (ms). Returns the 1-based indexes now led, and
# for each symbol another process holds, its index and the milliseconds its lock has left.
_CLAIM = """
local led, held = {}, {}
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if holder == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    led[#led + 1] = i
  elseif not holder then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    led[#led + 1] = i
  else
    held[#held + 1] = i
    held[#held + 1] = redis.call('PTTL', key)
  end
end
return {led, held}
"""
_RELEASE = """
local released = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('DEL', key)
    released = released + 1
  end
end
return released
"""


def lease_seconds(interval: float) -> float:
    """How long a leader's lock lasts after a renewal: one interval (it renews every cycle)
    and a margin for the processes' cycles not starting at the same instant."""
    return interval + max(1.0, 0.25 * interval)


class Leadership(Protocol):
    # After a claim: for the symbols another process holds, the seconds its lock has left.
    others_expire_in: dict[str, float]

    async def claim(self, symbols: list[str]) -> set[str]:
        """The symbols this process should poll in this cycle."""

    async def release(self, symbols: list[str]) -> None:
        """Give up symbols this process no longer polls."""

    async def close(self) -> None: ...


class LocalLeadership:
    """One process, one channel layer: this process leads everything it serves."""

    others_expire_in: dict[str, float] = {}

    async def claim(self, symbols: list[str]) -> set[str]:
        return set(symbols)

    async def release(self, symbols: list[str]) -> None:
        return None

    async def close(self) -> None:
        return None


class RedisLeadership:
    """Per-symbol locks with expiry in Redis, claimed and renewed in one call per cycle."""

    def __init__(self, url: str | None, prefix: str, ttl_seconds: float) -> None:
        """``url`` None: the default cache's Redis, Sentinel-managed or not."""
        import redis.asyncio as aioredis

        from marketdata import redis_async

        self.client = aioredis.Redis.from_url(url) if url else redis_async.connect()
        self.prefix = f"{prefix}:stream:leader:"
        self.token = uuid.uuid4().hex
        self.ttl_ms = max(1000, int(ttl_seconds * 1000))
        self.others_expire_in: dict[str, float] = {}
        self._claim = self.client.register_script(_CLAIM)
        self._release = self.client.register_script(_RELEASE)

    def _keys(self, symbols: list[str]) -> list[str]:
        return [self.prefix + s for s in symbols]

    async def claim(self, symbols: list[str]) -> set[str]:
        self.others_expire_in = {}
        if not symbols:
            return set()
        try:
            indexes, held = await self._claim(keys=self._keys(symbols),
                                              args=[self.token, self.ttl_ms])
        except Exception as exc:  # noqa: BLE001 - a lock outage must not stop the stream
            # Poll anyway: a duplicate upstream call per process beats a silent stream.
            outages.failed(exc, "stream leadership")  # logged once per outage
            return set(symbols)
        outages.succeeded("stream leadership")
        self.others_expire_in = {symbols[int(i) - 1]: max(0, int(ms)) / 1000
                                 for i, ms in zip(held[::2], held[1::2], strict=True)}
        return {symbols[int(i) - 1] for i in indexes}

    async def release(self, symbols: list[str]) -> None:
        if not symbols:
            return
        try:
            await self._release(keys=self._keys(symbols), args=[self.token])
        except Exception as exc:  # noqa: BLE001 - the locks expire on their own
            outages.failed(exc, "stream leadership release")

    async def close(self) -> None:
        await self.client.aclose()


def make_leadership(interval: float) -> Leadership:
    if settings.REDIS_URL:
        return RedisLeadership(None, settings.CACHE_KEY_PREFIX,
                               ttl_seconds=lease_seconds(interval))
    return LocalLeadership()
