# The service image: gunicorn (uvicorn workers, config.asgi) serving the API and the quote
# stream on $PORT.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=config.production PORT=8000 MARKETDATA_VAR_DIR=/app/var

WORKDIR /app
COPY requirements/ requirements/
RUN pip install --no-cache-dir -r requirements/base.txt
COPY . .
RUN useradd --create-home app && mkdir -p /app/var && chown -R app /app/var \
    && SECRET_KEY=build-only python manage.py collectstatic --noinput -v 0
USER app
EXPOSE 8000
CMD ["sh", "-c", "python manage.py migrate --noinput && exec gunicorn -c config/gunicorn.conf.py config.asgi:application"]
