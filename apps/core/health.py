"""Liveness and readiness checks.

``/healthz`` answers as long as the process serves requests (for restarts); ``/readyz`` also
proves the database and the Celery broker answer (for load balancers and compose healthchecks),
reporting each check so an operator sees which dependency is down.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from kombu import Connection

BROKER_TIMEOUT_SECONDS = 2.0


def check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def check_broker() -> None:
    with Connection(
        settings.CELERY_BROKER_URL,
        transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS,
        connect_timeout=BROKER_TIMEOUT_SECONDS,
    ) as conn:
        conn.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_SECONDS)
        if conn.transport.driver_type == "redis":
            conn.default_channel.client.ping()


READINESS_CHECKS: dict[str, Callable[[], None]] = {
    "database": check_database,
    "broker": check_broker,
}


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    checks: dict[str, dict[str, object]] = {}
    for name, check in READINESS_CHECKS.items():
        started = time.perf_counter()
        try:
            check()
        except Exception as exc:  # any failure of a dependency means "not ready"
            checks[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
        else:
            checks[name] = {"ok": True}
        checks[name]["ms"] = round((time.perf_counter() - started) * 1000, 1)
    ready = all(result["ok"] for result in checks.values())
    return JsonResponse(
        {"status": "ok" if ready else "failing", "checks": checks}, status=200 if ready else 503
    )
