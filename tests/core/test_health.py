import pytest
from django.test import Client

from apps.core import health

pytestmark = pytest.mark.django_db


def test_it_answers_healthz_while_the_process_is_up(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_it_reports_each_readiness_check(client: Client) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "broker"}
    assert all(check["ok"] for check in body["checks"].values())


def test_it_is_not_ready_when_the_broker_is_down(client: Client, settings, monkeypatch) -> None:
    # Port 9 (discard) has no broker: the check must fail fast and say which dependency is down.
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "failing"
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["broker"]["ok"] is False
    assert body["checks"]["broker"]["error"]


def test_it_lists_the_checks_it_runs() -> None:
    assert list(health.READINESS_CHECKS) == ["database", "broker"]
