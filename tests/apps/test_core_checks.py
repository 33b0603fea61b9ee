"""apps.core.checks: the start-up warning about a generated SECRET_KEY in a fleet."""

from __future__ import annotations

from apps.core.checks import generated_secret_key_with_shared_state


def test_a_generated_key_with_shared_redis_or_database_warns(settings):
    settings.SECRET_KEY_GENERATED = True
    settings.REDIS_URL = "redis://cache:6379/0"
    settings.DATABASE_URL = ""
    [warning] = generated_secret_key_with_shared_state()
    assert warning.id == "marketdata.W001"
    assert "Redis may be shared" in warning.msg and "SECRET_KEY" in warning.hint
    settings.DATABASE_URL = "postgres://db/md"
    assert "DATABASE_URL and Redis" in generated_secret_key_with_shared_state()[0].msg


def test_no_warning_with_a_key_from_the_environment_or_nothing_shared(settings):
    settings.SECRET_KEY_GENERATED = False
    settings.REDIS_URL = "redis://cache:6379/0"
    assert generated_secret_key_with_shared_state() == []
    settings.SECRET_KEY_GENERATED = True
    settings.REDIS_URL = ""
    settings.DATABASE_URL = ""
    assert generated_secret_key_with_shared_state() == []
