"""apps.core.origins: the Host and Origin a WebSocket stream or /mcp accepts (DNS
rebinding), and the settings' default from ALLOWED_HOSTS."""

from __future__ import annotations

import pytest

from apps.core.origins import host_allowed, origin_allowed, refusal
from config.settings import LOOPBACK_HOSTS, stream_allowed_hosts


def _scope(**headers: str) -> dict:
    return {"headers": [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()]}


@pytest.mark.parametrize("given, allowed_hosts, expected", [
    ("", ["*"], LOOPBACK_HOSTS),  # the quick start: loopback names only
    ("", ["md.example.com", "*"], LOOPBACK_HOSTS),
    ("", ["md.example.com", ".example.org"], ["md.example.com", ".example.org"]),
    ("md.example.com, *", ["*"], ["md.example.com", "*"]),  # as the operator says
])
def test_the_default_follows_allowed_hosts_unless_it_allows_any(given, allowed_hosts,
                                                                 expected):
    assert stream_allowed_hosts(given, allowed_hosts) == expected


def test_hosts_match_the_allowed_patterns_with_any_port(settings):
    settings.STREAM_ALLOWED_HOSTS = LOOPBACK_HOSTS
    for host in ("localhost:8000", "127.0.0.1", "[::1]:8000", "app.localhost:9000"):
        assert host_allowed(host), host
    for host in ("evil.example:8000", "127.0.0.2", "", "localhost.evil.example", "[::2]"):
        assert not host_allowed(host), host


def test_forwarded_host_is_read_only_when_django_would(settings):
    settings.STREAM_ALLOWED_HOSTS = ["md.example.com"]
    forwarded = _scope(host="10.0.0.5:8000", x_forwarded_host="md.example.com")
    settings.USE_X_FORWARDED_HOST = False
    assert refusal(forwarded) == (400, "Invalid Host header")
    settings.USE_X_FORWARDED_HOST = True
    assert refusal(forwarded) is None


def test_origins_the_own_named_or_none(settings):
    settings.STREAM_ALLOWED_ORIGINS = []
    settings.CORS_ALLOWED_ORIGINS = []
    assert origin_allowed(None, "localhost:8000")  # not a browser
    assert origin_allowed("http://localhost:8000", "localhost:8000")  # its own pages
    assert origin_allowed("https://LOCALHOST:8000", "localhost:8000")
    for origin in ("http://evil.example", "null", "http://localhost:8001", "file://",
                   "http://localhost:8000.evil.example", "javascript:alert(1)"):
        assert not origin_allowed(origin, "localhost:8000"), origin
    settings.CORS_ALLOWED_ORIGINS = ["https://dash.example"]  # the API's named pages
    assert origin_allowed("https://dash.example", "localhost:8000")
    settings.STREAM_ALLOWED_ORIGINS = ["https://app.example/"]  # replaces them
    assert origin_allowed("https://app.example", "localhost:8000")
    assert not origin_allowed("https://dash.example", "localhost:8000")
    settings.STREAM_ALLOWED_ORIGINS = ["*"]
    assert origin_allowed("null", "localhost:8000")


def test_a_refusal_quotes_a_bounded_part_of_the_origin(settings):
    settings.STREAM_ALLOWED_ORIGINS = []
    settings.CORS_ALLOWED_ORIGINS = []
    status, detail = refusal(_scope(host="localhost", origin="http://" + "e" * 10_000))
    assert status == 403 and len(detail) < 120
