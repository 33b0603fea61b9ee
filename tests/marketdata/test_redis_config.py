"""marketdata.redis_config: REDIS_URL alone, or the Sentinel variables."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from marketdata.redis_config import RedisConfigError, from_environment, parse_sentinels


def test_no_variables_no_redis():
    assert from_environment({}) is None
    assert from_environment({"REDIS_URL": "  "}) is None


def test_a_plain_url_is_used_as_given():
    target = from_environment({"REDIS_URL": "redis://cache:6379/2"})
    assert target is not None and not target.uses_sentinel
    assert target.url == "redis://cache:6379/2"
    assert target.channel_layer_host() == "redis://cache:6379/2"


@pytest.mark.parametrize(("text", "expected"), [
    ("a:1,b:2", (("a", 1), ("b", 2))),
    (" s1 , s2:26380 ,", (("s1", 26379), ("s2", 26380))),
    ("[::1]:26381,[fe80::1]", (("::1", 26381), ("fe80::1", 26379))),
    ("::1", (("::1", 26379),)),
])
def test_sentinel_lists(text, expected):
    assert parse_sentinels(text) == expected


@pytest.mark.parametrize("text", ["a:x", "a:0", "a:70000", ":26379", "[]:1"])
def test_bad_sentinel_entries_are_refused_with_the_variable_named(text):
    with pytest.raises(RedisConfigError, match="REDIS_SENTINELS"):
        parse_sentinels(text)


def test_sentinels_without_a_url_use_database_zero_of_the_default_service():
    target = from_environment({"REDIS_SENTINELS": "10.0.0.1,10.0.0.2"})
    assert target is not None and target.uses_sentinel
    assert target.service == "mymaster"
    assert target.url == "redis://mymaster/0"
    assert target.primary_kwargs() == {"db": 0}


def test_the_url_gives_database_and_credentials_and_keeps_them():
    target = from_environment({"REDIS_SENTINELS": "s1:26379", "REDIS_SENTINEL_SERVICE": "md",
                               "REDIS_URL": "rediss://user:p%40ss@md/4",
                               "REDIS_SENTINEL_PASSWORD": "sentinel-secret"})
    assert target is not None
    assert target.url == "rediss://user:p%40ss@md/4"
    assert target.primary_kwargs() == {"db": 4, "username": "user", "password": "p@ss",
                                       "ssl": True}
    host = target.channel_layer_host()
    assert isinstance(host, dict)
    assert host["master_name"] == "md" and host["sentinels"] == [("s1", 26379)]
    assert host["sentinel_kwargs"]["password"] == "sentinel-secret"
    assert "sentinel-secret" not in repr(target)


@pytest.mark.parametrize(("env", "message"), [
    ({"REDIS_URL": "redis://10.0.0.5:6379/0"}, "names the Sentinel service"),
    ({"REDIS_URL": "redis://mymaster:6379/0"}, "names the Sentinel service"),
    ({"REDIS_URL": "http://mymaster/0"}, "redis:// or rediss://"),
    ({"REDIS_URL": "redis://mymaster/cache"}, "database number"),
    ({"REDIS_SENTINEL_SERVICE": "MyMaster"}, "lower-case"),
])
def test_sentinel_settings_that_would_be_silently_changed_are_refused(env, message):
    with pytest.raises(RedisConfigError, match=message):
        from_environment({"REDIS_SENTINELS": "s1", **env})


def _settings_with(env: dict[str, str]) -> subprocess.CompletedProcess:
    script = ("import django; django.setup(); from django.conf import settings as s; "
              "o = s.CACHES['default']['OPTIONS']; "
              "print(s.CACHES['default']['LOCATION'], o.get('CONNECTION_FACTORY'), "
              "o.get('SENTINELS'), s.CHANNEL_LAYERS['default']['CONFIG']['hosts'][0])")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("REDIS_")}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
                          timeout=60)


@pytest.mark.process
def test_settings_build_the_cache_and_the_channel_layer_on_the_sentinels():
    done = _settings_with({"REDIS_SENTINELS": "127.0.0.1:26379", "REDIS_SENTINEL_SERVICE": "md"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("redis://md/0 django_redis.pool.SentinelConnectionFactory "
                                  "[('127.0.0.1', 26379)] {'sentinels'")


@pytest.mark.process
def test_settings_refuse_a_bad_sentinel_variable_at_start():
    done = _settings_with({"REDIS_SENTINELS": "127.0.0.1:port"})
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr and "REDIS_SENTINELS" in done.stderr
