"""Vanished instances are kept as terminated; secrets survive a key rotation."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command

from apps.cloud.models import CloudAccount, Instance, SyncKind
from apps.cloud.providers.tencent.simulator import DEFAULT_SECRET_KEY
from apps.cloud.services import cloud_account_client
from apps.cloud.sync import runner
from apps.core.crypto import decrypt_str
from tests.cloud.conftest import SIM_NOW, connect

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


@pytest.mark.integration
def test_it_records_how_a_stopped_instance_is_charged(acme, make_simulator) -> None:
    """At 23:30 in Shanghai the day-only instances are stopped with STOP_CHARGING, the one
    stopped for good keeps charging, the rest run (StopChargingMode of DescribeInstances)."""
    night = SIM_NOW + timedelta(hours=11)
    simulator = make_simulator(now=lambda: night)
    account = connect(acme, simulator)
    runner.run_kind(account, SyncKind.INVENTORY, now=night)
    fleet = simulator.cloud.fleet
    moment = int(night.timestamp())
    live = [i for i in fleet.all_instances if i.exists_at(moment) and i.region in account.regions]
    stored = {
        i.provider_id: (i.state, i.stop_charging_mode)
        for i in Instance.objects.filter(account=account)
    }
    expected = {i.instance_id: (i.state_at(moment), i.stop_charging_mode_at(moment)) for i in live}
    assert {pid: stored[pid] for pid in expected} == expected
    modes = {mode for _, mode in expected.values()}
    assert {"STOP_CHARGING", "KEEP_CHARGING", "NOT_APPLICABLE"} <= modes
