"""Gunicorn settings every GPU Ledger web server uses (Dockerfile, docker-compose.yml, make
demo's workers/demo-services.sh: ``gunicorn config.wsgi --config config/gunicorn.conf.py``).

The access log names each request's URL and Referer; one-time links (set-password, e-mail
confirmation, invitations, digest unsubscribe) carry their secret there, so the access log is
written by a logger that redacts them (apps/core/logging.py).
"""

logger_class = "apps.core.logging.TokenSafeAccessLogger"
