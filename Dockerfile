# The service image: gunicorn (uvicorn workers, config.asgi) serving the API, the quote
# stream, /readyz and /metrics on $PORT. Only what runs is copied in (no tests, bench or
# docs, nor the upstream simulator: .dockerignore leaves marketdata/sandbox out, and
# config.production refuses sandbox mode); migrations are not run at start (docker-compose.yml runs them once, as their own
# service, before the app starts; with plain `docker run`, see README "Docker").
FROM python:3.11.14-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=config.production HOST=0.0.0.0 PORT=8000 MARKETDATA_VAR_DIR=/app/var

# jemalloc: a worker's memory levels off within a minute under load, where glibc's
# per-thread arenas keep freed memory for minutes (bench/README.md, issue 23).
RUN apt-get update && apt-get install -y --no-install-recommends libjemalloc2 \
    && rm -rf /var/lib/apt/lists/* \
    && ln -s "$(find /usr/lib -name libjemalloc.so.2 | head -n 1)" /usr/local/lib/libjemalloc.so.2
ENV LD_PRELOAD=/usr/local/lib/libjemalloc.so.2 \
    MALLOC_CONF=background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0

WORKDIR /app
# Every runtime dependency, transitive ones included, pinned with hashes.
COPY requirements/base.lock requirements/
RUN pip install --no-cache-dir --require-hashes -r requirements/base.lock

COPY manage.py pyproject.toml ./
COPY bin/healthcheck bin/
COPY config/ config/
COPY marketdata/ marketdata/
COPY apps/ apps/
# The build's commands load config.production, which refuses a weak SECRET_KEY: a random
# one, for these two commands only (a RUN's variables are not kept in the image).
RUN useradd --create-home --uid 10001 app && mkdir -p /app/var \
    && export METRICS_TOKEN=build-only \
        SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(50))')" \
    && python manage.py collectstatic --noinput -v 0 \
    && python manage.py compress_explorer_assets \
    && chown -R app /app/var
USER app
EXPOSE 8000
# Ready = the database and the cache answer (GET /readyz; no upstream call).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "bin/healthcheck"]
CMD ["gunicorn", "-c", "config/gunicorn.conf.py", "config.asgi:application"]
