"""A task retries a transient error through a real Celery worker process, and only once succeeds.

The mail server refuses the first attempt of the invitation e-mail with a 451 ("try again
later"); the task releases its claim, Celery publishes the retry after a backoff, and the
second attempt delivers the e-mail: exactly one message arrives.
"""

import time

import pytest
from rest_framework.test import APIClient

from apps.accounts import services
from apps.accounts.models import Invitation, User
from tests.integration.conftest import RefusingInbox, start_celery_worker, stop_worker, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("celery-worker")]


def test_it_retries_an_invitation_the_mail_server_refused_and_sends_it_once(
    transactional_db: None,
    publish_to_broker: None,
    refusing_smtp_server: tuple[RefusingInbox, int],
) -> None:
    inbox, smtp_port = refusing_smtp_server
    owner = User.objects.create_user(email="owner@acme.test", password=None)
    services.organization_create(name="Acme", owner=owner)
    client = APIClient()
    client.force_login(owner)
    worker = start_celery_worker("default,email", EMAIL_URL=f"smtp://127.0.0.1:{smtp_port}")
    try:
        response = client.post(
            "/api/v1/invitations", {"email": "new@acme.test", "role": "viewer"}, format="json"
        )
        assert response.status_code == 201, response.content
        invitation_id = response.json()["id"]

        # The first retry waits a random 0-5 s (backoff 5 s, full jitter).
        delivered = wait_for(lambda: len(inbox.messages) == 1, timeout=60)
        time.sleep(2)  # long enough for a duplicate delivery to show up
    finally:
        output = stop_worker(worker)

    assert delivered, f"the invitation never arrived:\n{output[-4000:]}"
    assert inbox.attempts == 2, "one refused attempt, one delivered"
    assert len(inbox.messages) == 1
    assert inbox.messages[0]["To"] == "new@acme.test"
    assert Invitation.objects.get(pk=invitation_id).sent_at is not None
    assert "retry: Retry in" in output, "the second attempt must be Celery's retry"
