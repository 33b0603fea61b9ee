"""Ping and health. The 28 service checks of /v1/health arrive with the health issue; for
now it reports the cache round trip, the upstream mode and the cache counters."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache as django_cache
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.views import ApiView
from marketdata.cache import stats


class PingStatus(serializers.Serializer):
    status = serializers.CharField()
    timestamp = serializers.DateTimeField()


class CacheStatus(serializers.Serializer):
    status = serializers.CharField()
    latency_ms = serializers.FloatField()


class HealthStatus(serializers.Serializer):
    status = serializers.CharField(help_text="healthy | degraded | unhealthy")
    timestamp = serializers.DateTimeField()
    upstream = serializers.CharField(help_text="live | sandbox")
    cache = CacheStatus()
    services = serializers.DictField(required=False)
    cache_stats = serializers.DictField(
        required=False, help_text="{provider: {group: {hit, miss, stale, error}}} counters")


def _now() -> str:
    return datetime.now(UTC).isoformat()


def cache_round_trip() -> dict[str, object]:
    """Write, read and delete a probe key: a real round trip to the cache backend."""
    key = f"md:health:{uuid.uuid4().hex}"
    started = time.perf_counter()
    try:
        django_cache.set(key, "ok", timeout=10)
        ok = django_cache.get(key) == "ok"
        django_cache.delete(key)
    except Exception:  # noqa: BLE001 - reported, not raised
        ok = False
    latency = round((time.perf_counter() - started) * 1000, 2)
    return {"status": "healthy" if ok else "unhealthy", "latency_ms": latency}


class PingView(ApiView):
    @extend_schema(operation_id="ping", tags=["Health"], summary="Liveness",
                   responses={200: PingStatus})
    def get(self, request: Request) -> Response:
        return Response({"status": "healthy", "timestamp": _now()},
                        headers={"Cache-Control": "no-cache, no-store, must-revalidate"})


class HealthView(ApiView):
    @extend_schema(operation_id="health", tags=["Health"], summary="Health",
                   responses={200: HealthStatus})
    def get(self, request: Request) -> Response:
        cache_status = cache_round_trip()
        status = "healthy" if cache_status["status"] == "healthy" else "degraded"
        return Response({
            "status": status,
            "timestamp": _now(),
            "upstream": settings.MARKETDATA_UPSTREAM,
            "cache": cache_status,
            "cache_stats": stats.snapshot(),
        }, headers={"Cache-Control": "no-cache"})
