#!/usr/bin/env sh
# Starts a Celery worker on every queue (or the comma-separated QUEUES given).
set -eu
exec celery -A workers worker --loglevel="${LOG_LEVEL:-INFO}" \
  --queues="${QUEUES:-default,sync,analysis,email}" --concurrency="${WORKER_CONCURRENCY:-2}" "$@"
