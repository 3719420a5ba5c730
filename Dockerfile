# One image for web, worker and beat (docker-compose.yml picks the command).

FROM node:20-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VAR_DIR=/app/var
WORKDIR /app
COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
COPY --from=frontend /src/frontend/dist ./frontend/dist
# collectstatic needs settings that import; these throw-away values never reach a container.
RUN DEBUG=1 SECRET_KEY=build FIELD_ENCRYPTION_KEY= python manage.py collectstatic --noinput \
    && useradd --create-home --uid 1000 ledger && mkdir -p var && chown -R ledger var
USER ledger
EXPOSE 8000
CMD ["gunicorn", "config.wsgi", "--config", "config/gunicorn.conf.py", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "4", "--access-logfile", "-"]
