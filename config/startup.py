"""Start-up refusals in one sentence saying what to set, never a traceback.

A setting the service cannot start with is refused while the settings module is imported:
``config.settings`` raises ``ImproperlyConfigured``; ``config.production`` refuses through
:func:`refuse`, and turns config.settings' refusals into the same one line, under any
command (``manage.py``, gunicorn's workers). Before the server starts, the settings are
loaded once by ``python -m config.startup`` (bin/serve runs it before ``manage.py prepare``,
gunicorn's master from ``config/gunicorn.conf.py`` before it binds or starts a worker), so
a refusal of the development settings is one line as well.

The exit status is 3, gunicorn's "worker failed to boot": a worker that refuses stops the
server instead of being restarted in a loop.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

EXIT_STATUS = 3
# A value a person can paste: what the sentences about SECRET_KEY suggest.
MAKE_A_KEY = "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"


def refuse(sentence: str) -> NoReturn:
    """Print ``sentence`` (what to set) on stderr as one line and exit."""
    print(f"marketdata: cannot start: {sentence}", file=sys.stderr, flush=True)
    raise SystemExit(EXIT_STATUS)


def secret_key_problem(key: str | None) -> str | None:
    """Why ``key`` is no production SECRET_KEY, by Django's own deploy check (security.W009:
    fewer than 50 characters, fewer than 5 distinct ones, or the ``django-insecure-``
    prefix of a generated development key), as a sentence saying what to set; or None."""
    from django.core.checks.security.base import (
        SECRET_KEY_INSECURE_PREFIX,
        SECRET_KEY_MIN_LENGTH,
        SECRET_KEY_MIN_UNIQUE_CHARACTERS,
    )

    if not key:
        return (f"SECRET_KEY is not set; set it to a long random value (at least "
                f"{SECRET_KEY_MIN_LENGTH} characters), e.g. the output of: {MAKE_A_KEY}")
    if (len(key) < SECRET_KEY_MIN_LENGTH or len(set(key)) < SECRET_KEY_MIN_UNIQUE_CHARACTERS
            or key.startswith(SECRET_KEY_INSECURE_PREFIX)):
        return (f"SECRET_KEY is too weak for production (Django's deploy check wants at least "
                f"{SECRET_KEY_MIN_LENGTH} characters, {SECRET_KEY_MIN_UNIQUE_CHARACTERS} of "
                f"them distinct, and no '{SECRET_KEY_INSECURE_PREFIX}' prefix); set it to a "
                f"long random value, e.g. the output of: {MAKE_A_KEY}")
    return None


def main() -> int:
    """Load the settings (``DJANGO_SETTINGS_MODULE``, as manage.py does): 0 when they load,
    else the refusal's one line and :data:`EXIT_STATUS`."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured

    try:
        settings.INSTALLED_APPS  # noqa: B018 (imports and checks the settings module)
    except ImproperlyConfigured as exc:
        refuse(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
