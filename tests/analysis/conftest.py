"""Fixtures of the analysis backend tests: a small Acme fleet with synthetic metrics.

Data comes from ``tests.fleet_generator`` through the real metric store, so the analysis reads
exactly what production reads. Times are fixed (``AS_OF``), never the wall clock.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal

import pytest

from apps.accounts.models import Organization
from apps.cloud.models import CloudAccount, Instance, Project
from tests.cloud.conftest import make_simulator  # noqa: F401  (simulator fixture, reused)
from tests.fleet_generator import fleet_generate

# Days of synthetic data ending at the UTC midnight before AS_OF's day.
DATA_START = dt.date(2026, 10, 26)
DATA_DAYS = 3
AS_OF = dt.datetime(2026, 10, 29, 0, 0, tzinfo=dt.UTC)
START = dt.datetime(2026, 10, 26, tzinfo=dt.UTC)


@pytest.fixture
def acme_account(acme: Organization) -> CloudAccount:
    return CloudAccount.objects.create(
        organization=acme,
        name="Tencent",
        secret_id="AKID-test",
        secret_key_encrypted="not-used",
        regions=["ap-shanghai"],
    )


@pytest.fixture
def make_instance(acme_account: CloudAccount) -> Callable[..., Instance]:
    def make(
        name: str,
        *,
        organization: Organization | None = None,
        project: Project | None = None,
        gpu_count: float = 1,
        charge_type: str = "POSTPAID_BY_HOUR",
    ) -> Instance:
        organization = organization or acme_account.organization
        return Instance.objects.create(
            organization=organization,
            account=acme_account if organization == acme_account.organization else None,
            provider_id=f"ins-{name}",
            name=name,
            region="ap-shanghai",
            zone="ap-shanghai-2",
            instance_type="GN7.2XLARGE32",
            gpu_count=gpu_count,
            charge_type=charge_type,
            project=project,
        )

    return make


@pytest.fixture
def vision(acme: Organization) -> Project:
    return Project.objects.create(organization=acme, name="vision", slug="vision")


@pytest.fixture
def fleet(make_instance: Callable[..., Instance], vision: Project) -> list[Instance]:
    """Four Acme instances (training, idle, inference, data-bound) with 3 days of metrics."""
    instances = [
        make_instance("train", project=vision),
        make_instance("idle", project=vision),
        make_instance("serve", gpu_count=2),
        make_instance("data"),
    ]
    fleet_generate(
        instance_ids=[i.pk for i in instances],
        start_day=DATA_START,
        days=DATA_DAYS,
        patterns=["training", "idle", "inference", "data_bound"],
        metrics=["gpu_util_pct", "gpu_mem_used_pct", "cpu_util_pct"],
    )
    return instances


def hourly_price() -> Decimal:
    return Decimal("8.68")
