"""Admin login security: the failure throttle (10 failures in 15 minutes per client, then
refused even with the right password until the window passes; logged) and logins over
plain HTTP and behind an HTTPS-terminating proxy (CSRF_TRUSTED_ORIGINS,
TRUST_X_FORWARDED_PROTO)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from apps.ratelimit import login_throttle

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"
LOGIN = "/admin/login/"


class Clock:
    """Stands in for ``time`` inside the throttle module."""

    def __init__(self) -> None:
        import time

        self.now = time.time()

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(login_throttle, "time", fake)
    return fake


@pytest.fixture(autouse=True)
def _fast_hashing(settings):
    """A cheap hasher: these tests log in about a hundred times."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def admin_user(django_user_model):
    return django_user_model.objects.create_superuser("ops", "ops@example.com", PASSWORD)


def login(client: Client, password: str, **extra):
    return client.post(LOGIN, {"username": "ops", "password": password, "next": "/admin/"},
                       **extra)


def logged_in(client: Client) -> bool:
    return client.get("/admin/").status_code == 200


def test_the_right_password_logs_in(api, admin_user, clock):
    response = login(api, PASSWORD)
    assert response.status_code == 302
    assert response["Location"] == "/admin/"
    assert logged_in(api)


def test_ten_failures_lock_the_client_out_even_with_the_right_password(api, admin_user,
                                                                       clock, logs):
    for attempt in range(1, 11):
        response = login(api, f"wrong-{attempt}")
        assert response.status_code == 200, attempt  # the form again, with its error
        assert "Please enter the correct username and password" in response.content.decode()
    clock.now += 60
    response = login(api, PASSWORD)
    assert response.status_code == 429
    assert int(response["Retry-After"]) == 15 * 60 - 60
    html = response.content.decode()
    assert "Too many failed login attempts from your address. Try again in 14 minutes." in html
    assert 'name="password"' in html  # the form stays, for after the window
    assert not logged_in(api)

    records = logs.records()
    failed = [r for r in records if r["message"] == "admin login failed"]
    assert [r["failures"] for r in failed] == list(range(1, 11))
    assert all(r["client"] == "127.0.0.1" for r in failed)
    assert any(r["message"] == "admin login locked for this client" for r in records)
    assert any(r["message"] == "admin login refused: too many failures"
               and r["retry_in_seconds"] == 840 for r in records)
    assert PASSWORD not in logs.text()
    assert "wrong-1" not in logs.text()


def test_refused_until_the_window_passes_then_the_right_password_works(api, admin_user,
                                                                     clock):
    for attempt in range(10):
        login(api, f"wrong-{attempt}")
    clock.now += 15 * 60 - 1
    assert login(api, PASSWORD).status_code == 429
    clock.now += 1
    response = login(api, PASSWORD)
    assert response.status_code == 302
    assert logged_in(api)


def test_a_refused_attempt_does_not_check_or_extend_anything(api, admin_user, clock):
    for attempt in range(10):
        login(api, f"wrong-{attempt}")
    for _ in range(30):  # keeps guessing while locked: 40 attempts in all
        assert login(api, "still-guessing").status_code == 429
    window = login_throttle.current_window("127.0.0.1", clock.now)
    assert window.failures == 10
    clock.now += 15 * 60
    assert login(api, PASSWORD).status_code == 302


def test_nine_failures_do_not_lock(api, admin_user, clock):
    for attempt in range(9):
        login(api, f"wrong-{attempt}")
    assert login(api, PASSWORD).status_code == 302


def test_failures_spread_over_more_than_the_window_do_not_lock(api, admin_user, clock):
    for attempt in range(9):
        login(api, f"wrong-{attempt}")
    clock.now += 15 * 60  # the first window has passed: a new one starts
    login(api, "wrong-again")
    assert login_throttle.current_window("127.0.0.1", clock.now).failures == 1
    assert login(api, PASSWORD).status_code == 302


def test_the_lock_is_per_client(admin_user, clock):
    attacker, operator = Client(REMOTE_ADDR="198.51.100.7"), Client(REMOTE_ADDR="203.0.113.9")
    for attempt in range(10):
        login(attacker, f"wrong-{attempt}")
    assert login(attacker, PASSWORD).status_code == 429
    assert login(operator, PASSWORD).status_code == 302


def test_behind_a_trusted_proxy_the_forwarded_client_is_counted(admin_user, clock, settings):
    settings.TRUSTED_PROXIES = "10.0.0.0/8"
    proxy = Client(REMOTE_ADDR="10.0.0.2")
    for attempt in range(10):
        login(proxy, f"wrong-{attempt}", HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert login(proxy, PASSWORD, HTTP_X_FORWARDED_FOR="198.51.100.7").status_code == 429
    # Another client behind the same proxy is not locked out.
    assert login(proxy, PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.9").status_code == 302


def test_the_limit_and_window_are_settings(api, admin_user, clock, settings):
    settings.ADMIN_LOGIN_MAX_FAILURES = 2
    settings.ADMIN_LOGIN_WINDOW_SECONDS = 60
    login(api, "wrong-1")
    login(api, "wrong-2")
    response = login(api, PASSWORD)
    assert response.status_code == 429
    assert "Try again in 1 minute." in response.content.decode()


def test_a_cache_outage_does_not_lock_the_operators_out(api, admin_user, monkeypatch, logs):
    def down(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(login_throttle, "current_window", down)
    assert login(api, PASSWORD).status_code == 302
    assert any(r["message"] == "admin login throttle unavailable; login not throttled"
               for r in logs.records())


def test_get_shows_the_ordinary_login_page(api, clock):
    response = api.get(LOGIN)
    assert response.status_code == 200
    assert 'name="password"' in response.content.decode()


# -- logins over plain HTTP and behind an HTTPS-terminating proxy ---------------------------
def _csrf_login(client: Client, origin: str, **extra):
    page = client.get(LOGIN, **extra)
    assert page.status_code == 200
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"',
                      page.content.decode()).group(1)
    return client.post(LOGIN, {"username": "ops", "password": PASSWORD, "next": "/admin/",
                               "csrfmiddlewaretoken": token},
                       HTTP_ORIGIN=origin, **extra), page


def test_login_behind_an_https_proxy_needs_the_trusted_origin(admin_user, settings, clock):
    """The proxy terminates TLS and forwards plain HTTP with the public Host; the browser
    sends ``Origin: https://md.example.com``. Without the settings Django sees an http
    request and refuses the origin (403); with them the login works."""
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    proxied = {"HTTP_HOST": "md.example.com", "HTTP_X_FORWARDED_PROTO": "https"}

    refused, _ = _csrf_login(Client(enforce_csrf_checks=True), "https://md.example.com",
                             **proxied)
    assert refused.status_code == 403

    settings.CSRF_TRUSTED_ORIGINS = ["https://md.example.com"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    client = Client(enforce_csrf_checks=True)
    response, page = _csrf_login(client, "https://md.example.com", **proxied)
    assert response.status_code == 302
    assert "Secure" in page.cookies["csrftoken"].output()
    assert "Secure" in response.cookies["sessionid"].output()
    assert client.get("/admin/", **proxied).status_code == 200


def test_login_over_plain_http_with_secure_cookies_off(admin_user, settings, clock):
    """SESSION_COOKIE_SECURE=0: the cookies have no Secure flag, so a browser keeps them
    over http:// and the login works."""
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    client = Client(enforce_csrf_checks=True)
    response, page = _csrf_login(client, "http://testserver")
    assert response.status_code == 302
    assert "Secure" not in page.cookies["csrftoken"].output()
    assert "Secure" not in response.cookies["sessionid"].output()
    assert logged_in(client)


# -- the counter and cache pages' layout (screenshots in the issue 18 report) --------------
@pytest.mark.parametrize("path", ["/admin/ratelimit/ratelimitcounter/",
                                  "/admin/ratelimit/cachestatistic/"])
def test_admin_pages_do_not_use_the_flex_changelist_wrapper(api, admin_user, path):
    """Django's changelists.css lays out ``#changelist`` as a flex row (for its filter
    sidebar): the module captions shrank into boxes beside their tables and the header
    cells lost their padding. The pages keep the stylesheet (search toolbar) but never the
    id."""
    api.force_login(admin_user)
    response = api.get(path)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="changelist"' not in html
    assert "admin/css/changelists.css" in html
    assert 'id="result_list"' in html
