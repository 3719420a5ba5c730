#!/usr/bin/env sh
# Starts the one Celery beat. Run exactly one per deployment.
set -eu
mkdir -p "${VAR_DIR:-var}"
exec celery -A workers beat --loglevel="${LOG_LEVEL:-INFO}" \
  --schedule="${VAR_DIR:-var}/celerybeat-schedule" "$@"
