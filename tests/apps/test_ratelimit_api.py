"""The rate limits through HTTP (Django's test client): the v1 daily quota and its headers,
the /v1/health cooldown, the admin key, client IPs behind proxies, the v2 token bucket."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from tests.apps.conftest import ADMIN_KEY

# The limits in front of /v1/health are tested here, not its checks.
pytestmark = pytest.mark.usefixtures("instant_health_checks")

ORIGIN = "https://dashboard.example"
QUOTES = "/v1/simple-quotes?symbols=AAPL"


@pytest.fixture
def limited(limited):
    """The shared fixture (tests/apps/conftest.py) with a quota of 3."""
    limited.APP_RATE_LIMIT_PER_DAY = 3
    return limited


def _seconds_to_utc_midnight() -> float:
    now = datetime.now(UTC)
    midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), UTC)
    return (midnight - now).total_seconds()


def _quota_headers(response) -> tuple[str | None, str | None, str | None]:
    return (response.get("X-RateLimit-Limit"), response.get("X-RateLimit-Remaining"),
            response.get("X-RateLimit-Reset"))


# -- v1 daily quota ---------------------------------------------------------------------------
def test_off_by_default_no_headers_no_counting(api, sandbox_upstream, settings):
    assert settings.USE_SECURITY is False
    for _ in range(5):
        response = api.get(QUOTES)
        assert response.status_code == 200
        assert _quota_headers(response) == (None, None, None)


def test_quota_headers_then_429_with_the_spec_body(api, limited):
    remaining = []
    for _ in range(3):
        response = api.get(QUOTES)
        assert response.status_code == 200
        limit, left, reset = _quota_headers(response)
        assert limit == "3"
        remaining.append(left)
        assert abs(int(reset) - _seconds_to_utc_midnight()) <= 2
    assert remaining == ["2", "1", "0"]

    response = api.get(QUOTES, HTTP_ORIGIN=ORIGIN)
    assert response.status_code == 429
    body = response.json()
    reset_in = body["rate_limit_info"]["reset_in"]
    assert body == {"detail": "Rate limit exceeded",
                    "rate_limit_info": {"count": 3, "remaining": 0, "reset_in": reset_in,
                                        "limit": 3}}
    assert isinstance(reset_in, int) and abs(reset_in - _seconds_to_utc_midnight()) <= 2
    assert _quota_headers(response) == ("3", "0", str(reset_in))
    assert response["Retry-After"] == str(reset_in)
    assert len(response["X-Correlation-ID"]) == 16
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "X-RateLimit-Remaining" in response["Access-Control-Expose-Headers"]


def test_rejected_requests_are_not_counted(api, limited):
    from apps.ratelimit import limits

    for _ in range(10):
        api.get(QUOTES)
    [row] = limits.today_counters()
    assert (row.client, row.count, row.remaining) == ("127.0.0.1", 3, 0)
    assert api.get(QUOTES).json()["rate_limit_info"]["count"] == 3


def test_errors_and_unknown_routes_under_v1_are_counted(api, limited):
    assert api.get("/v1/simple-quotes").status_code == 422
    assert api.get("/v1/no-such-route")["X-RateLimit-Remaining"] == "1"
    assert api.post("/v1/quotes").status_code == 405
    assert api.get(QUOTES).status_code == 429


@pytest.mark.parametrize("path", ["/v1/ping", "/docs", "/openapi.json", "/redoc",
                                  "/admin/login/"])
def test_open_paths_are_never_limited(api, limited, path):
    for _ in range(5):
        response = api.get(path)
        assert response.status_code == 200, path
        assert response.get("X-RateLimit-Limit") is None
    assert api.get(QUOTES)["X-RateLimit-Remaining"] == "2"


def test_cors_preflight_is_answered_and_not_counted(api, limited):
    for _ in range(5):
        response = api.options("/v1/quotes", HTTP_ORIGIN=ORIGIN,
                               HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
                               HTTP_ACCESS_CONTROL_REQUEST_HEADERS="x-api-key")
        assert response.status_code == 200
        assert response["Access-Control-Allow-Origin"] == "*"
        assert "x-api-key" in response["Access-Control-Allow-Headers"]
    assert api.get(QUOTES)["X-RateLimit-Remaining"] == "2"


@pytest.mark.parametrize("path", ["/v2/backtest/AAPL", "/v2/screeners/custom"])
def test_cors_preflight_allows_the_post_computations(api, path):
    """A browser app on another origin may POST a backtest or a custom screen."""
    response = api.options(path, HTTP_ORIGIN=ORIGIN,
                           HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
                           HTTP_ACCESS_CONTROL_REQUEST_HEADERS="content-type")
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "POST" in response["Access-Control-Allow-Methods"]
    assert "content-type" in response["Access-Control-Allow-Headers"]


def test_cached_answers_are_counted_too(api, limited):
    first = api.get(QUOTES)
    second = api.get(QUOTES)
    assert second["X-Cache"] == "HIT"
    assert (first["X-RateLimit-Remaining"], second["X-RateLimit-Remaining"]) == ("2", "1")


def test_admin_key_is_not_counted_and_gets_no_headers(api, limited, monkeypatch):
    from apps.ratelimit import limits

    compared = []
    real = limits.hmac.compare_digest

    def spy(a, b):
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(limits.hmac, "compare_digest", spy)
    for _ in range(6):
        response = api.get(QUOTES, HTTP_X_API_KEY=ADMIN_KEY)
        assert response.status_code == 200
        assert _quota_headers(response) == (None, None, None)
    assert compared, "the admin key is compared in constant time"
    assert limits.today_counters() == []


@pytest.mark.parametrize("key", ["wrong", "s3cret-admin-ke", "s3cret-admin-key ", ""])
def test_other_keys_are_ordinary_limited_requests(api, limited, key):
    for expected in ("2", "1", "0"):
        response = api.get(QUOTES, HTTP_X_API_KEY=key)
        assert response["X-RateLimit-Remaining"] == expected
    assert api.get(QUOTES, HTTP_X_API_KEY=key).status_code == 429


def test_no_admin_key_configured_means_no_bypass(api, limited):
    limited.ADMIN_API_KEY = ""
    assert api.get(QUOTES, HTTP_X_API_KEY="")["X-RateLimit-Remaining"] == "2"


def test_each_client_ip_has_its_own_quota(api, limited):
    for _ in range(3):
        api.get(QUOTES, REMOTE_ADDR="198.51.100.1")
    assert api.get(QUOTES, REMOTE_ADDR="198.51.100.1").status_code == 429
    assert api.get(QUOTES, REMOTE_ADDR="198.51.100.2")["X-RateLimit-Remaining"] == "2"


def test_forwarded_for_is_ignored_without_trusted_proxies(api, limited):
    for n in range(3):
        api.get(QUOTES, HTTP_X_FORWARDED_FOR=f"10.0.0.{n}")
    assert api.get(QUOTES, HTTP_X_FORWARDED_FOR="10.0.0.99").status_code == 429


def test_trusted_proxy_counts_the_forwarded_client(api, limited):
    limited.TRUSTED_PROXIES = "127.0.0.1,10.1.0.0/16"
    # Client 203.0.113.9 behind two trusted hops; the left-most entry is client-written.
    chain = "1.2.3.4, 203.0.113.9, 10.1.2.3"
    for _ in range(3):
        assert api.get(QUOTES, HTTP_X_FORWARDED_FOR=chain).status_code == 200
    assert api.get(QUOTES, HTTP_X_FORWARDED_FOR=chain).status_code == 429
    # A different spoofed left-most entry does not escape the limit.
    assert api.get(QUOTES, HTTP_X_FORWARDED_FOR="9.9.9.9, 203.0.113.9").status_code == 429
    assert api.get(QUOTES, HTTP_X_FORWARDED_FOR="203.0.113.10").status_code == 200


@pytest.mark.parametrize(("meta", "trusted", "expected"), [
    ({"REMOTE_ADDR": "203.0.113.5"}, "", "203.0.113.5"),
    ({"REMOTE_ADDR": "203.0.113.5", "HTTP_X_FORWARDED_FOR": "1.1.1.1"}, "", "203.0.113.5"),
    ({"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "1.1.1.1"}, "10.0.0.0/8", "1.1.1.1"),
    ({"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "1.1.1.1, 10.0.0.7"}, "10.0.0.0/8",
     "1.1.1.1"),
    ({"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "10.0.0.9"}, "10.0.0.0/8",
     "10.0.0.9"),  # only proxies: the left-most hop
    ({"REMOTE_ADDR": "10.0.0.2"}, "10.0.0.0/8", "10.0.0.2"),
    ({"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "1.1.1.1, garbage, 10.0.0.7"},
     "10.0.0.0/8", "10.0.0.7"),  # malformed hop: stop at the last vouched-for address
    ({"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "198.51.100.4:5123"}, "10.0.0.2",
     "198.51.100.4"),
    ({"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "[2001:db8:1:2::9]:443"}, "10.0.0.2",
     "2001:db8:1:2::/64"),
    ({"REMOTE_ADDR": "2001:db8:1:2:aaaa::1"}, "", "2001:db8:1:2::/64"),
    ({"REMOTE_ADDR": "::ffff:198.51.100.7"}, "", "198.51.100.7"),
    ({"REMOTE_ADDR": ""}, "", "unknown"),
])
def test_client_ip(settings, meta, trusted, expected):
    from apps.ratelimit.limits import client_ip

    settings.TRUSTED_PROXIES = trusted
    assert client_ip(meta) == expected


def test_ipv6_clients_are_counted_per_64(api, limited):
    for n in range(3):
        api.get(QUOTES, REMOTE_ADDR=f"2001:db8:5:6::{n + 1}")
    assert api.get(QUOTES, REMOTE_ADDR="2001:db8:5:6:ffff::1").status_code == 429
    assert api.get(QUOTES, REMOTE_ADDR="2001:db8:5:7::1").status_code == 200


def test_the_window_is_the_utc_calendar_day(limited):
    from apps.ratelimit import limits

    before = datetime(2026, 11, 22, 23, 59, 59, 500000, UTC).timestamp()
    after = datetime(2026, 11, 23, 0, 0, 0, 500000, UTC).timestamp()
    for _ in range(3):
        assert limits.take_daily("192.0.2.1", now=before)[0]
    allowed, state = limits.take_daily("192.0.2.1", now=before)
    assert not allowed
    assert state.reset_in == 1  # whole seconds, rounded up
    allowed, state = limits.take_daily("192.0.2.1", now=after)
    assert allowed and state.count == 1
    assert state.reset_in == 86400


# -- /v1/health cooldown ----------------------------------------------------------------------
def test_health_has_its_own_cooldown_outside_the_quota(api, limited):
    limited.HEALTH_COOLDOWN_SECONDS = 1800
    # Warm the checks' data (the admin key bypasses the cooldown): a cold check under a
    # loaded test machine can take seconds, which would eat into the reset_in window.
    assert api.get("/v1/health", HTTP_X_API_KEY=ADMIN_KEY).status_code == 200
    first = api.get("/v1/health")
    assert first.status_code == 200
    assert _quota_headers(first) == ("1", "0", "1800")
    second = api.get("/v1/health", HTTP_ORIGIN=ORIGIN)
    assert second.status_code == 429
    body = second.json()
    assert body["detail"] == "Health check rate limit exceeded. Try again later."
    assert 1795 <= body["rate_limit_info"]["reset_in"] <= 1800
    assert second["Retry-After"] == str(body["rate_limit_info"]["reset_in"])
    assert second["Access-Control-Allow-Origin"] == "*"
    assert second["X-Correlation-ID"]
    # Not counted in the daily quota.
    assert api.get(QUOTES)["X-RateLimit-Remaining"] == "2"
    # Another client is not affected; the admin key bypasses the cooldown.
    assert api.get("/v1/health", REMOTE_ADDR="198.51.100.3").status_code == 200
    assert api.get("/v1/health", HTTP_X_API_KEY=ADMIN_KEY).status_code == 200


@pytest.mark.slow("waits out the cooldown in the cache's own expiry (Redis's clock in CI)")
def test_health_cooldown_expires(api, limited):
    limited.HEALTH_COOLDOWN_SECONDS = 2
    # Warm the checks' data first (the admin key bypasses the cooldown), so the timed part
    # does not depend on how long a cold health check takes.
    assert api.get("/v1/health", HTTP_X_API_KEY=ADMIN_KEY).status_code == 200
    assert api.get("/v1/health").status_code == 200
    refused = api.get("/v1/health")
    assert refused.status_code == 429
    time.sleep(int(refused["Retry-After"]) + 0.05)
    assert api.get("/v1/health").status_code == 200


def test_no_health_cooldown_when_limiting_is_off(api, sandbox_upstream):
    assert [api.get("/v1/health").status_code for _ in range(3)] == [200, 200, 200]


def test_reset_clears_quota_and_cooldown(api, limited):
    from apps.ratelimit import limits

    for _ in range(3):
        api.get(QUOTES)
    api.get("/v1/health")
    limits.reset_counters(["127.0.0.1"])
    assert limits.today_counters() == []
    assert api.get(QUOTES)["X-RateLimit-Remaining"] == "2"
    assert api.get("/v1/health").status_code == 200


# -- v2 token bucket --------------------------------------------------------------------------
@pytest.fixture
def bucket(settings):
    settings.V2_RATE_LIMIT_CAPACITY = 10
    settings.V2_RATE_LIMIT_REFILL_PER_SECOND = 1.0
    settings.V2_RATE_LIMIT_SCOPE = "global"
    settings.ADMIN_API_KEY = ADMIN_KEY
    return settings


V2_PATH = "/v2/no-such-route"  # cheap: every /v2 request takes a token, a 404 too


def test_bucket_burst_then_an_honest_retry(api, bucket):
    statuses = [api.get(V2_PATH, HTTP_ORIGIN=ORIGIN) for _ in range(30)]
    ok = [r for r in statuses if r.status_code == 404]
    limited = [r for r in statuses if r.status_code == 429]
    assert (len(ok), len(limited)) == (10, 20)
    for response in limited:
        body = response.json()
        seconds = body["retryAfterSeconds"]
        assert isinstance(seconds, int) and seconds >= 1
        assert body == {"error": "Rate limit exceeded",
                        "message": f"Too many requests. Please retry after {seconds} second"
                                   f"{'' if seconds == 1 else 's'}.",
                        "retryAfterSeconds": seconds}
        assert response["Retry-After"] == str(seconds)
        assert response["Access-Control-Allow-Origin"] == "*"
        assert response["X-Correlation-ID"]
    time.sleep(limited[-1].json()["retryAfterSeconds"])
    assert api.get(V2_PATH).status_code == 404


def test_bucket_is_global_by_default(api, bucket):
    # A refill too slow to matter, however long the 11 requests take on a loaded machine.
    bucket.V2_RATE_LIMIT_REFILL_PER_SECOND = 0.01
    for n in range(10):
        api.get(V2_PATH, REMOTE_ADDR=f"198.51.100.{n}")
    assert api.get(V2_PATH, REMOTE_ADDR="192.0.2.200").status_code == 429


def test_bucket_per_client_ip_when_configured(api, bucket):
    bucket.V2_RATE_LIMIT_SCOPE = "ip"
    for _ in range(10):
        api.get(V2_PATH, REMOTE_ADDR="198.51.100.1")
    assert api.get(V2_PATH, REMOTE_ADDR="198.51.100.1").status_code == 429
    assert api.get(V2_PATH, REMOTE_ADDR="198.51.100.2").status_code == 404


def test_bucket_admin_key_bypasses(api, bucket):
    for _ in range(15):
        assert api.get(V2_PATH, HTTP_X_API_KEY=ADMIN_KEY).status_code == 404


def test_bucket_disabled_with_zero_capacity(api, bucket):
    bucket.V2_RATE_LIMIT_CAPACITY = 0
    assert {api.get(V2_PATH).status_code for _ in range(20)} == {404}


def test_v1_and_v2_limits_are_independent(api, bucket, limited):
    for _ in range(10):
        api.get(V2_PATH)
    assert api.get(V2_PATH).status_code == 429
    assert api.get(QUOTES)["X-RateLimit-Remaining"] == "2"
    assert api.get(V2_PATH).get("X-RateLimit-Limit") is None


# -- OpenAPI ----------------------------------------------------------------------------------
def test_openapi_documents_the_limits(api):
    schema = api.get("/openapi.json").json()
    quotes = schema["paths"]["/v1/quotes"]["get"]
    assert any(p["name"] == "x-api-key" and p["in"] == "header" and not p["required"]
               for p in quotes["parameters"])
    refs = [s["$ref"] for s in
            quotes["responses"]["429"]["content"]["application/json"]["schema"]["oneOf"]]
    assert "#/components/schemas/RateLimitExceeded" in refs
    assert set(quotes["responses"]["200"]["headers"]) == {
        "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
        "RateLimit-Policy", "RateLimit", "ETag", "Cache-Control"}
    ping = schema["paths"]["/v1/ping"]["get"]
    assert "429" not in ping["responses"] and "headers" not in ping["responses"]["200"]
    health = schema["paths"]["/v1/health"]["get"]
    assert not any(p["name"] == "x-api-key" for p in health.get("parameters", []))
    assert "429" in health["responses"]
    v2 = schema["paths"]["/v2/indicators"]["get"]["responses"]["429"]
    v2_refs = str(v2["content"]["application/json"]["schema"])
    assert "RateLimitError" in v2_refs and "Retry-After" in v2["headers"]
    assert {"RateLimit-Policy", "RateLimit"} <= set(v2["headers"])
    assert {"RateLimit-Policy", "RateLimit"} <= set(
        schema["paths"]["/v2/indicators"]["get"]["responses"]["200"]["headers"])
    assert set(schema["components"]["schemas"]["RateLimitError"]["required"]) == {
        "error", "message", "retryAfterSeconds"}


# -- counters unavailable -------------------------------------------------------------------
@pytest.mark.parametrize("path", [QUOTES, "/v1/health", V2_PATH])
def test_a_counter_outage_lets_requests_through_and_is_logged(api, limited, bucket, path,
                                                              monkeypatch, logs):
    from apps.ratelimit import limits

    class Down:
        def __getattr__(self, name):
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379")

    monkeypatch.setattr(limits, "get_store", Down)
    monkeypatch.setattr(limits, "caches", {"default": Down()})
    for _ in range(3):
        response = api.get(path)
        assert response.status_code in (200, 404)
        assert response.get("X-RateLimit-Limit") is None
    # Logged once for the outage (marketdata.outages), not once per request.
    [warning] = [r for r in logs.records() if r.get("operation") == "rate-limit counters"]
    assert warning["outage"] == "started"
    assert warning["error"] == "ConnectionError: Error 111 connecting to 127.0.0.1:6379"


# -- the IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers) -------------------------
def _ietf(response) -> tuple[str | None, str | None]:
    return response.get("RateLimit-Policy"), response.get("RateLimit")


def test_v1_answers_carry_the_ietf_pair_for_the_daily_quota(api, limited):
    for expected in ("2", "1", "0"):
        response = api.get(QUOTES)
        policy, state = _ietf(response)
        assert policy == '"daily";q=3;w=86400'
        assert state == f'"daily";r={expected};t={response["X-RateLimit-Reset"]}'
    refused = api.get(QUOTES)
    assert refused.status_code == 429 and refused["Cache-Control"] == "no-store"
    assert _ietf(refused) == ('"daily";q=3;w=86400',
                              f'"daily";r=0;t={refused["Retry-After"]}')
    assert _ietf(api.get(QUOTES, HTTP_X_API_KEY=ADMIN_KEY)) == (None, None)


def test_the_health_cooldown_has_its_own_policy(api, limited):
    limited.HEALTH_COOLDOWN_SECONDS = 1800
    # Warm the checks' data first (the admin key bypasses the cooldown), as the cooldown
    # tests above do: a cold check on a loaded machine can leave the counters' connection
    # pool busy for the next request, which the limits then let through.
    assert api.get("/v1/health", HTTP_X_API_KEY=ADMIN_KEY).status_code == 200
    first = api.get("/v1/health")
    cooldown = limited.HEALTH_COOLDOWN_SECONDS
    assert _ietf(first) == (f'"health";q=1;w={cooldown}', f'"health";r=0;t={cooldown}')
    second = api.get("/v1/health")
    assert second.status_code == 429
    assert second["RateLimit"] == f'"health";r=0;t={second["Retry-After"]}'


def test_v2_answers_carry_the_ietf_pair_for_the_bucket(api, bucket):
    seen = [api.get(V2_PATH) for _ in range(12)]
    policies = {r["RateLimit-Policy"] for r in seen}
    assert policies == {'"bucket";q=10;w=10'}  # 10 tokens, refilled in 10 s at 1/s
    states = [r["RateLimit"] for r in seen]
    remaining = [int(s.split(";r=")[1].split(";")[0]) for s in states]
    assert remaining[:10] == sorted(remaining[:10], reverse=True) and remaining[0] == 9
    for response, state in zip(seen, states, strict=True):
        reset = int(state.rsplit(";t=", 1)[1])
        if response.status_code == 429:
            assert state.startswith('"bucket";r=0;') and reset == int(response["Retry-After"])
            assert response["Cache-Control"] == "no-store"
        else:
            assert 1 <= reset <= 1  # the next token in under a second at 1/s
    assert any(r.status_code == 429 for r in seen)
    assert _ietf(api.get(V2_PATH, HTTP_X_API_KEY=ADMIN_KEY)) == (None, None)
    assert api.get(V2_PATH).get("X-RateLimit-Limit") is None  # the spec gives v2 none


def test_no_ietf_headers_when_the_limits_are_off(api, sandbox_upstream, settings):
    settings.V2_RATE_LIMIT_CAPACITY = 0
    assert _ietf(api.get(QUOTES)) == (None, None)
    assert _ietf(api.get(V2_PATH)) == (None, None)
