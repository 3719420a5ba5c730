"""The runner maps a kind to the function its owning app registered, and nothing else."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from apps.accounts.models import Organization
from apps.cloud.models import CloudAccount, SyncKind, SyncState
from apps.cloud.services import cloud_account_create
from apps.cloud.sync import registry, runner
from apps.cloud.sync.registry import SyncJob

NOW = datetime(2026, 11, 3, 4, 30, tzinfo=UTC)


@pytest.fixture
def account(acme: Organization) -> CloudAccount:
    return cloud_account_create(
        organization=acme,
        name="a",
        secret_id="AKID",
        secret_key="secret",
        regions=["ap-guangzhou"],
    )


@pytest.fixture
def spare_kind() -> Iterator[str]:
    """A kind no app registers, removed again so other tests see the real registry."""
    yield "test-kind"
    registry._functions.pop("test-kind", None)


def test_it_has_every_kind_registered_by_the_app_that_owns_its_data() -> None:
    owners = {
        kind: registry.sync_function(kind).__module__.split(".")[1] for kind in SyncKind.values
    }
    assert owners == {
        SyncKind.INVENTORY: "cloud",
        SyncKind.PRICES: "cloud",
        SyncKind.METRICS: "metrics",
        SyncKind.BILLS: "billing",
        SyncKind.BALANCE: "billing",
    }


def test_it_refuses_a_second_function_for_a_kind_but_tolerates_the_same_one_again(
    spare_kind: str,
) -> None:
    def first(job: SyncJob) -> str:
        return "first"

    registry.register(spare_kind, first)
    registry.register(spare_kind, first)
    with pytest.raises(ValueError, match="already registered"):
        registry.register(spare_kind, lambda job: "second")
    assert registry.sync_function(spare_kind) is first


@pytest.mark.django_db
def test_it_rejects_an_unregistered_kind(account: CloudAccount) -> None:
    with pytest.raises(ValueError, match="unknown sync kind 'nope'"):
        runner.run_kind(account, "nope", now=NOW, client=object())  # type: ignore[arg-type]


@pytest.mark.django_db
def test_it_hands_the_registered_function_a_job_whose_progress_extends_the_lease(
    account: CloudAccount, spare_kind: str
) -> None:
    SyncState.objects.create(account=account, kind=spare_kind, next_run_at=NOW)
    seen: dict[str, Any] = {}
    reported: list[tuple[int, int]] = []

    def fake_sync(job: SyncJob) -> str:
        seen.update(account=job.account, now=job.now, days=job.backfill_days, client=job.client)
        job.progress(1, 3)
        return "done"

    registry.register(spare_kind, fake_sync)
    client = object()
    result = runner.run_kind(
        account,
        spare_kind,
        now=NOW,
        client=client,  # type: ignore[arg-type]
        backfill_days=7,
        progress=lambda done, planned: reported.append((done, planned)),
    )
    assert result == "done"
    assert seen == {"account": account, "now": NOW, "days": 7, "client": client}
    assert reported == [(1, 3)]
    lease = SyncState.objects.get(account=account, kind=spare_kind).leased_until
    assert lease is not None
    assert lease > datetime.now(UTC)
