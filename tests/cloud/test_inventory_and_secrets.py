"""Vanished instances are kept as terminated; secrets survive a key rotation."""

from __future__ import annotations

from io import StringIO

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command

from apps.cloud.models import CloudAccount, Instance, SyncKind
from apps.cloud.providers.tencent.simulator import DEFAULT_SECRET_KEY
from apps.cloud.services import cloud_account_client
from apps.cloud.sync import runner
from apps.core.crypto import decrypt_str
from tests.cloud.conftest import SIM_NOW

pytestmark = pytest.mark.django_db


@pytest.mark.integration
def test_it_marks_a_vanished_instance_terminated_and_keeps_it(account: CloudAccount) -> None:
    gone = Instance.objects.create(
        organization=account.organization,
        account=account,
        provider_id="ins-gone0001",
        name="old",
        region="ap-guangzhou",
        instance_type="GN7.2XLARGE32",
        state="RUNNING",
    )
    result = runner.run_kind(account, SyncKind.INVENTORY, now=SIM_NOW)
    gone.refresh_from_db()
    assert gone.state == "TERMINATED"
    assert gone.terminated_at == SIM_NOW
    assert result.terminated == 1
    runner.run_kind(account, SyncKind.INVENTORY, now=SIM_NOW)
    gone.refresh_from_db()
    assert gone.terminated_at == SIM_NOW, "a second sync must not move the termination time"


def test_it_rotates_the_encryption_key_of_stored_secrets(account: CloudAccount, settings) -> None:
    old_key = settings.FIELD_ENCRYPTION_KEY
    new_key = Fernet.generate_key().decode()
    settings.FIELD_ENCRYPTION_KEY = f"{new_key},{old_key}"
    call_command("rotate_secrets", stdout=StringIO())
    settings.FIELD_ENCRYPTION_KEY = new_key
    account.refresh_from_db()
    assert decrypt_str(account.secret_key_encrypted) == DEFAULT_SECRET_KEY
    assert cloud_account_client(account).config.secret_key == DEFAULT_SECRET_KEY
