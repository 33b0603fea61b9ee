"""The admin pages for the rate-limit counters and the cache statistics.

Counters and statistics are made for real (API requests through the middleware and the
sandbox upstream), then read through Django's test client as an admin would. The module
runs on the local-memory cache and, with ``REDIS_URL`` set, on Redis.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from apps.ratelimit import cachestats, limits
from marketdata.cache import stats
from tests.conftest import REDIS_URL

# The limits in front of /v1/health are tested here, not its checks.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("instant_health_checks")]

COUNTERS = "/admin/ratelimit/ratelimitcounter/"
RESET = "/admin/ratelimit/ratelimitcounter/reset/"
STATS = "/admin/ratelimit/cachestatistic/"
IP = "203.0.113.7"
OTHER_IP = "198.51.100.20"
QUOTE = "/v1/simple-quotes?symbols=AAPL"


# -- helpers --------------------------------------------------------------------------------
class _Tables(HTMLParser):
    """Rows (cell texts) of every <table id=...> of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and dict(attrs).get("id"):
            self._table = dict(attrs)["id"]
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def tables(response) -> dict[str, list[list[str]]]:
    parser = _Tables()
    parser.feed(response.content.decode())
    return parser.tables


def counter_rows(response) -> dict[str, list[str]]:
    """{client: [client, count, remaining, resets]} of the counters table (body rows)."""
    rows = tables(response)["result_list"][1:]
    out = {}
    for row in rows:
        cells = [c for c in row if c]  # the checkbox cell is empty
        if len(cells) == 4:
            out[cells[0]] = cells
    return out


def api_get(api: Client, path: str, ip: str = IP):
    return api.get(path, REMOTE_ADDR=ip)


def staff_client(django_user_model, *perms: str, superuser: bool = False) -> Client:
    if superuser:
        user = django_user_model.objects.create_superuser("root", "root@example.com", "pw")
    else:
        user = django_user_model.objects.create_user("staff", "staff@example.com", "pw",
                                                     is_staff=True)
        user.user_permissions.add(*Permission.objects.filter(
            content_type__app_label="ratelimit", codename__in=perms))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def admin(django_user_model) -> Client:
    return staff_client(django_user_model, superuser=True)


# -- the admin index ------------------------------------------------------------------------
def test_admin_index_lists_both_pages_under_their_section(admin):
    page = admin.get("/admin/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "Rate limits and cache" in html
    assert f'href="{COUNTERS}"' in html and f'href="{STATS}"' in html
    # Read-model pages: nothing to add.
    assert f"{COUNTERS}add/" not in html and f"{STATS}add/" not in html
    app_page = admin.get("/admin/ratelimit/")
    assert app_page.status_code == 200
    assert f'href="{COUNTERS}"' in app_page.content.decode()


def test_no_object_urls(admin):
    assert admin.get(f"{COUNTERS}1/change/").status_code == 404
    assert admin.get(f"{STATS}add/").status_code == 404


# -- rate-limit counters --------------------------------------------------------------------
def test_counters_page_shows_todays_clients(admin, api, limited):
    for _ in range(3):
        assert api_get(api, QUOTE).status_code == 200
    assert api_get(api, QUOTE, OTHER_IP).status_code == 200

    page = admin.get(COUNTERS)
    assert page.status_code == 200
    html = page.content.decode()
    assert "<title>Rate-limit counters (today) |" in html
    assert 'class="breadcrumbs"' in html and "Rate limits and cache" in html
    rows = counter_rows(page)
    assert rows[IP][1:3] == ["3", "2"]
    assert rows[OTHER_IP][1:3] == ["1", "4"]
    # Busiest first; every counter resets at the next 00:00 UTC.
    assert list(rows) == [IP, OTHER_IP]
    _, reset_in = limits._window()
    seconds = int(re.search(r"in (\d+) s", rows[IP][3]).group(1))
    assert abs(seconds - reset_in) <= 2
    assert rows[IP][3].endswith("00:00:00 UTC)")
    assert "calendar day, UTC" in html
    assert "Rate limiting (USE_SECURITY)</th><td>on" in html
    assert "Daily limit per client</th><td>5<" in html
    assert "none: the socket peer is the client" in html


def test_counters_header_facts_follow_settings(admin, settings):
    settings.USE_SECURITY = False
    settings.APP_RATE_LIMIT_PER_DAY = 8000
    settings.TRUSTED_PROXIES = "10.0.0.0/8, 192.0.2.1"
    html = admin.get(COUNTERS).content.decode()
    assert "Rate limiting (USE_SECURITY)</th><td>off" in html
    assert "Daily limit per client</th><td>8000<" in html
    assert "10.0.0.0/8, 192.0.2.1/32" in html
    assert "No client counted today." in html


def test_counters_search_filters_clients(admin, api, limited):
    api_get(api, QUOTE)
    api_get(api, QUOTE, OTHER_IP)

    assert list(counter_rows(admin.get(COUNTERS, {"q": "203.0.113"}))) == [IP]
    assert list(counter_rows(admin.get(COUNTERS, {"q": "198.51"}))) == [OTHER_IP]
    page = admin.get(COUNTERS, {"q": "192.0.2."})
    assert counter_rows(page) == {}
    assert "No client counted today matching “192.0.2.”." in page.content.decode()
    assert 'value="192.0.2."' in page.content.decode()  # the search box keeps the query


def test_ipv6_clients_are_counted_per_64(admin, api, limited):
    api_get(api, QUOTE, "2001:db8:1:2::10")
    api_get(api, QUOTE, "2001:db8:1:2:ffff::1")
    rows = counter_rows(admin.get(COUNTERS, {"q": "2001:db8"}))
    assert rows["2001:db8:1:2::/64"][1:3] == ["2", "3"]


def test_reset_selected_clears_the_counter(admin, api, limited):
    for _ in range(5):
        api_get(api, QUOTE)
    assert api_get(api, QUOTE).status_code == 429  # quota used up
    api_get(api, QUOTE, OTHER_IP)

    response = admin.post(RESET, {"client": [IP], "q": "203"})
    assert response.status_code == 302
    assert response["Location"] == f"{COUNTERS}?q=203"

    page = admin.get(response["Location"])
    html = page.content.decode()
    assert f"Reset today&#x27;s counter of 1 client: {IP}." in html
    assert counter_rows(page) == {}
    assert list(counter_rows(admin.get(COUNTERS))) == [OTHER_IP]

    # The client starts over: its next request is the first of the day again.
    again = api_get(api, QUOTE)
    assert again.status_code == 200
    assert again["X-RateLimit-Remaining"] == "4"


def test_reset_without_selection_or_of_unknown_client(admin, api, limited):
    api_get(api, QUOTE)
    response = admin.post(RESET, {}, follow=True)
    assert "No clients selected: nothing was reset." in response.content.decode()

    response = admin.post(RESET, {"client": ["192.0.2.99"]}, follow=True)
    html = response.content.decode()
    assert "1 selected client had no counter today" in html
    assert list(counter_rows(response)) == [IP]


def test_reset_requires_post_and_csrf(django_user_model, api, limited):
    user = django_user_model.objects.create_superuser("root", "root@example.com", "pw")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    api_get(api, QUOTE)

    assert browser.get(RESET).status_code == 405
    assert browser.post(RESET, {"client": [IP]}).status_code == 403  # no CSRF token
    assert list(counter_rows(browser.get(COUNTERS))) == [IP]

    page = browser.get(COUNTERS)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"',
                      page.content.decode()).group(1)
    response = browser.post(RESET, {"client": [IP], "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert counter_rows(browser.get(COUNTERS)) == {}


def test_reset_also_ends_the_health_cooldown(admin, api, limited):
    api_get(api, QUOTE)
    assert api_get(api, "/v1/health").status_code != 429
    assert api_get(api, "/v1/health").status_code == 429
    admin.post(RESET, {"client": [IP]})
    assert api_get(api, "/v1/health").status_code != 429


def test_admin_pages_are_not_rate_limited(admin, limited):
    for _ in range(8):
        assert admin.get(COUNTERS, REMOTE_ADDR=IP).status_code == 200
        assert admin.get(STATS, REMOTE_ADDR=IP).status_code == 200
    assert limits.today_counters() == []


# -- v2 token bucket ------------------------------------------------------------------------
def test_bucket_section_shows_the_global_level(admin, api, settings):
    settings.V2_RATE_LIMIT_CAPACITY = 10
    settings.V2_RATE_LIMIT_REFILL_PER_SECOND = 0.0001  # no visible refill during the test
    settings.V2_RATE_LIMIT_SCOPE = "global"
    for _ in range(3):
        assert api_get(api, "/v2/no-such-route").status_code == 404  # still takes a token

    page = admin.get(COUNTERS)
    html = page.content.decode()
    assert "v2 token bucket" in html
    assert "Capacity</th><td>10 tokens" in html
    assert "Refill</th><td>0.0001 tokens/s" in html
    assert "global (one bucket for all clients)" in html
    assert tables(page)["bucket_levels"][1:] == [["global", "7.00", "10", "70.0%"]]


def test_bucket_section_per_client_with_search(admin, api, settings):
    settings.V2_RATE_LIMIT_CAPACITY = 10
    settings.V2_RATE_LIMIT_REFILL_PER_SECOND = 0.0001
    settings.V2_RATE_LIMIT_SCOPE = "ip"
    for _ in range(4):
        api_get(api, "/v2/no-such-route")
    api_get(api, "/v2/no-such-route", OTHER_IP)

    levels = tables(admin.get(COUNTERS))["bucket_levels"][1:]
    assert levels == [[IP, "6.00", "10", "60.0%"], [OTHER_IP, "9.00", "10", "90.0%"]]
    levels = tables(admin.get(COUNTERS, {"q": "198.51"}))["bucket_levels"][1:]
    assert levels == [[OTHER_IP, "9.00", "10", "90.0%"]]


def test_bucket_disabled(admin, settings):
    settings.V2_RATE_LIMIT_CAPACITY = 0
    html = admin.get(COUNTERS).content.decode()
    assert "no: v2 requests are not limited" in html


# -- cache statistics -----------------------------------------------------------------------
def stat_rows(response) -> list[list[str]]:
    return tables(response)["result_list"][1:]


def test_cache_stats_page_counts_hits_and_misses(admin, api, sandbox_upstream):
    assert api_get(api, QUOTE)["X-Cache"] == "MISS"  # AAPL: miss
    assert api_get(api, "/v1/simple-quotes?symbols=AAPL,MSFT")["X-Cache"] == "MISS"  # hit+miss
    api_get(api, "/v1/simple-quotes?symbols=MSFT,AAPL&x=1")  # both hits

    page = admin.get(STATS)
    assert page.status_code == 200
    html = page.content.decode()
    assert "<title>Cache statistics |" in html
    rows = stat_rows(page)
    assert ["yahoo", "quotes", "3", "2", "0", "0", "60.0%"] in rows
    assert ["yahoo", "total", "3", "2", "0", "0", "60.0%"] in rows
    assert rows[-1] == ["All providers", "3", "2", "0", "0", "60.0%"]
    assert "Hit ratio = hits / (hits + misses + stale)" in html


def test_cache_stats_totals_and_zero_ratio(admin):
    for provider, group, outcome, n in (("yahoo", "chart", "hit", 3),
                                        ("yahoo", "chart", "stale", 1),
                                        ("yahoo", "quotes", "miss", 4),
                                        ("fred", "series", "error", 2)):
        for _ in range(n):
            stats.record(provider, group, outcome)

    rows = stat_rows(admin.get(STATS))
    assert rows == [
        ["fred", "series", "0", "0", "0", "2", "—"],
        ["fred", "total", "0", "0", "0", "2", "—"],
        ["yahoo", "chart", "3", "0", "1", "0", "75.0%"],
        ["yahoo", "quotes", "0", "4", "0", "0", "0.0%"],
        ["yahoo", "total", "3", "4", "1", "0", "37.5%"],
        ["All providers", "3", "4", "1", "2", "37.5%"],
    ]


def test_cache_stats_empty(admin):
    page = admin.get(STATS)
    assert "Nothing counted yet." in page.content.decode()
    assert stat_rows(page)[-1] == ["All providers", "0", "0", "0", "0", "—"]


def breaker_rows(response) -> list[list[str]]:
    return tables(response)["breakers"][1:]


def test_cache_stats_breakers_empty_in_a_fresh_process(admin):
    page = admin.get(STATS)
    html = page.content.decode()
    assert "Circuit breakers (this process)" in html
    assert tables(page)["breakers"][0] == ["Provider", "Endpoint", "State",
                                           "Consecutive failures", "Retry in (s)"]
    assert breaker_rows(page) == [["No upstream endpoint called yet in this process."]]


def test_cache_stats_shows_an_open_breaker(admin, api, sandbox_upstream):
    from marketdata.http import get_client
    from marketdata.providers import yahoo

    api_get(api, QUOTE)  # a real call: the quote breaker, closed
    client = get_client()
    client.register(yahoo.PROVIDER)
    breaker = client.breaker("yahoo", "sector")
    for _ in range(breaker.fail_max):
        breaker.record(success=False)

    page = admin.get(STATS)
    html = page.content.decode()
    rows = {(row[0], row[1]): row for row in breaker_rows(page)}
    _, _, state, failures, retry = rows[("yahoo", "sector")]
    assert (state, failures) == ("open", "5")
    assert 0 < float(retry) <= breaker.reset_seconds
    closed = [row for key, row in rows.items() if key != ("yahoo", "sector")]
    assert closed and all(row[2:] == ["closed", "0", "—"] for row in closed)
    assert list(rows) == sorted(rows)
    # Open (and half-open) rows are highlighted.
    assert 'class="breaker-open" data-provider="yahoo" data-endpoint="sector"' in html
    assert "<strong>open</strong>" in html
    assert "No upstream endpoint called yet" not in html


def test_cache_stats_shows_a_half_open_breaker(admin, monkeypatch):
    from marketdata.http import get_client
    from marketdata.providers import yahoo

    client = get_client()
    client.register(yahoo.PROVIDER)
    breaker = client.breaker("yahoo", "chart")
    for _ in range(breaker.fail_max):
        breaker.record(success=False)
    monkeypatch.setattr(breaker, "reset_seconds", 0.0)  # the wait is over

    page = admin.get(STATS)
    assert breaker_rows(page) == [["yahoo", "chart", "half_open", "5", "—"]]
    assert 'class="breaker-half_open"' in page.content.decode()


def test_cache_stats_breaker_failure_is_shown_not_a_500(admin, monkeypatch):
    def broken():
        raise RuntimeError("no client")

    monkeypatch.setattr(cachestats, "get_client", broken)
    page = admin.get(STATS)
    assert page.status_code == 200
    assert "Could not read the circuit breakers: RuntimeError: no client" in \
        page.content.decode()


def test_cache_stats_shows_the_upstream_lanes(admin, api, sandbox_upstream):
    from marketdata.http import get_client

    page = admin.get(STATS)
    assert tables(page)["lanes"][1:] == [["No upstream endpoint called yet in this process."]]
    api_get(api, QUOTE)  # a real call: Yahoo's lanes
    lane = get_client().lanes_for("yahoo", "quoteSummary")[0]
    lane.admit()  # a thread in the lane now
    try:
        page = admin.get(STATS)
    finally:
        lane.leave()
    rows = {(row[0], row[1]): row for row in tables(page)["lanes"][1:]}
    assert tables(page)["lanes"][0] == ["Provider", "Endpoint", "Threads (share)",
                                        "In flight (capacity)", "Parked"]
    assert rows[("yahoo", "quoteSummary")][2:] == [f"1 ({lane.share})",
                                                    f"0 ({lane.capacity})", "0"]
    assert ("yahoo", "(all endpoints)") in rows


def test_hit_ratio():
    assert cachestats.StatRow("p", "g", hits=1, misses=1, stale=2).hit_ratio == 0.25
    assert cachestats.StatRow("p", "g", errors=5).hit_ratio is None
    assert cachestats.StatRow("p", "g", errors=5).hit_ratio_display == "—"
    assert cachestats.StatRow("p", "g", hits=2, misses=1).hit_ratio_display == "66.7%"


def test_cache_stats_backend_facts(admin):
    html = admin.get(STATS).content.decode()
    facts = dict(row for row in tables(admin.get(STATS))["backend_facts"])
    if REDIS_URL:
        assert facts["Backend"] == "django_redis.cache.RedisCache"
        assert re.fullmatch(r"\d+(\.\d+)*", facts["Redis version"])
        assert facts["Used memory"] and facts["Peak memory"]
        assert "Eviction policy (maxmemory-policy)" in facts
        assert re.fullmatch(r"[\d,]+", facts["Keys in the database (DBSIZE)"])
        deployment = next(k for k in facts if k.startswith("Keys of this deployment"))
        assert re.fullmatch(r"[\d,]+", facts[deployment])
        assert "Keyspace hits / misses (server, since start)" in facts
        assert "Shared by every process" in html
    else:
        assert facts["Backend"] == "marketdata.locmem.ByteBoundedLocMemCache"
        assert re.fullmatch(r"[\d,]+", facts["Entries (this process)"])
        assert re.fullmatch(r"[\d,]+ of [\d,]+", facts["Bytes (this process)"])
        assert re.fullmatch(r"[\d,]+", facts["Evicted to stay under the bytes"])
        assert "Local memory is per process" in html


def test_a_redis_failure_is_shown_not_a_500(admin, monkeypatch):
    import django_redis
    import redis

    class Broken:
        def info(self):
            raise redis.exceptions.ConnectionError("Connection refused")

    monkeypatch.setattr(cachestats, "is_redis", lambda cache: True)
    monkeypatch.setattr(django_redis, "get_redis_connection", lambda alias: Broken())
    page = admin.get(STATS)
    assert page.status_code == 200
    assert "Could not read the backend: ConnectionError: Connection refused" in \
        page.content.decode()


def test_a_counter_backend_failure_is_shown_not_a_500(admin, monkeypatch):
    def broken(*args, **kwargs):
        raise ConnectionError("Redis is down")

    monkeypatch.setattr(limits, "today_counters", broken)
    monkeypatch.setattr(limits, "bucket_levels", broken)
    page = admin.get(COUNTERS)
    assert page.status_code == 200
    html = page.content.decode()
    assert "Could not read the counters: ConnectionError: Redis is down" in html
    assert "Could not read the bucket: ConnectionError: Redis is down" in html
    response = admin.post(RESET, {"client": [IP]}, follow=True)
    assert "Reset failed: ConnectionError: Redis is down" in response.content.decode()


class FakeRedis:
    """SCAN over a fixed key list, 'count' keys per call (as Redis roughly does)."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys

    def scan(self, cursor=0, match=None, count=10):
        chunk = self.keys[cursor:cursor + count]
        found = [k for k in chunk if re.fullmatch(match.replace("*", ".*"), k)]
        following = cursor + count
        return (0 if following >= len(self.keys) else following), found


def test_count_keys_is_complete_or_a_lower_bound():
    keys = [f"app:1:{i}" for i in range(25)] + [f"other:{i}" for i in range(25)]
    assert cachestats.count_keys(FakeRedis(keys), "app:1:*", count=10) == (25, True)
    assert cachestats.count_keys(FakeRedis(keys), "app:1:*", limit=20, count=10) == (20, False)


def test_redis_facts_from_info():
    class Connection(FakeRedis):
        class connection_pool:  # noqa: N801 - stands in for redis-py's attribute
            connection_kwargs = {"db": 14, "password": "secret"}

        def info(self):
            return {"redis_version": "7.2.4", "used_memory_human": "1.50M",
                    "used_memory_peak_human": "2.00M", "maxmemory": 0,
                    "maxmemory_human": "0B", "maxmemory_policy": "allkeys-lru",
                    "keyspace_hits": 3000, "keyspace_misses": 1000}

        def dbsize(self):
            return len(self.keys)

    keys = [f"app:1:{i}" for i in range(3)] + ["other:1"]
    facts = dict(cachestats.redis_facts(Connection(keys), "app:1:*"))
    assert facts == {
        "Redis database": "14",
        "Keys in the database (DBSIZE)": "4",
        "Keys of this deployment (app:1:*)": "3",
        "Used memory": "1.50M",
        "Peak memory": "2.00M",
        "Max memory": "no limit",
        "Eviction policy (maxmemory-policy)": "allkeys-lru",
        "Redis version": "7.2.4",
        "Keyspace hits / misses (server, since start)": "3,000 / 1,000 (hit ratio 75.0%)",
    }
    assert "secret" not in str(facts)


def test_deployment_pattern_escapes_the_prefix():
    class Cache:
        def make_key(self, key):
            return f"my*app[1]:1:{key}"

    assert cachestats.deployment_pattern(Cache()) == r"my\*app\[1\]:1:*"


@pytest.mark.skipif(not REDIS_URL, reason="needs a real Redis (REDIS_URL)")
def test_redis_deployment_keys_are_counted(admin, api, sandbox_upstream):
    from django.core.cache import cache

    api_get(api, QUOTE)
    facts = dict(tables(admin.get(STATS))["backend_facts"])
    pattern = cachestats.deployment_pattern(cache)
    count = int(facts[f"Keys of this deployment ({pattern})"].replace(",", ""))
    assert count >= 2  # at least the quote entry and the response-cache entry


# -- access ---------------------------------------------------------------------------------
def test_anonymous_is_sent_to_login(client):
    for url in (COUNTERS, STATS):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(f"/admin/login/?next={url}")
    response = client.post(RESET, {"client": [IP]})
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_staff_without_permission_is_refused(django_user_model):
    staff = staff_client(django_user_model)
    assert staff.get(COUNTERS).status_code == 403
    assert staff.get(STATS).status_code == 403
    assert staff.post(RESET, {"client": [IP]}).status_code == 403
    assert "Rate limits and cache" not in staff.get("/admin/").content.decode()


def test_staff_with_view_permission_sees_but_cannot_reset(django_user_model, api, limited):
    staff = staff_client(django_user_model, "view_ratelimitcounter", "view_cachestatistic")
    api_get(api, QUOTE)

    page = staff.get(COUNTERS)
    assert page.status_code == 200
    html = page.content.decode()
    assert list(counter_rows(page)) == [IP]
    assert "Reset selected" not in html and 'name="client"' not in html
    assert staff.get(STATS).status_code == 200
    assert "Rate limits and cache" in staff.get("/admin/").content.decode()

    assert staff.post(RESET, {"client": [IP]}).status_code == 403
    assert list(counter_rows(staff.get(COUNTERS))) == [IP]


def test_staff_with_change_permission_can_reset(django_user_model, api, limited):
    staff = staff_client(django_user_model, "view_ratelimitcounter", "change_ratelimitcounter")
    api_get(api, QUOTE)
    assert "Reset selected" in staff.get(COUNTERS).content.decode()
    assert staff.post(RESET, {"client": [IP]}).status_code == 302
    assert counter_rows(staff.get(COUNTERS)) == {}
