"""A request enqueues a task; a real Celery worker process runs it; the database shows it."""

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from apps.accounts import services
from apps.accounts.models import Invitation, User
from tests.integration.conftest import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("celery-worker")]


def test_it_sends_an_invitation_through_a_real_worker(celery_worker_process, smtp_server) -> None:
    inbox, _ = smtp_server
    owner = User.objects.create_user(email="owner@acme.test", password=None)
    organization = services.organization_create(name="Acme", owner=owner)
    client = APIClient()
    client.force_login(owner)

    response = client.post(
        "/api/v1/invitations", {"email": "new@acme.test", "role": "lead"}, format="json"
    )
    assert response.status_code == 201, response.content
    invitation_id = response.json()["id"]
    assert response.json()["sent_at"] is None, "the request itself must not send the e-mail"

    sent = wait_for(lambda: Invitation.objects.get(pk=invitation_id).sent_at is not None)
    if not sent:
        celery_worker_process.terminate()
        output = celery_worker_process.communicate(timeout=20)[0]
        pytest.fail(
            f"the worker did not send the invitation (broker {settings.CELERY_BROKER_URL}):\n{output[-4000:]}"
        )

    assert wait_for(lambda: len(inbox.messages) == 1, timeout=10)
    message = inbox.messages[0]
    assert message["To"] == "new@acme.test"
    assert organization.name in message["Subject"]
    assert "token=" in message.get_payload()
