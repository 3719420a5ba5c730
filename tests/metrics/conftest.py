"""Fixtures of the metric tests: GPU instances in the Alice/Bob organizations."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest

from apps.accounts.models import Organization
from apps.cloud.models import Instance, Project

DAY = dt.date(2024, 3, 4)  # a Monday
MIDNIGHT = dt.datetime(2024, 3, 4, tzinfo=dt.UTC)

MakeInstances = Callable[..., list[Instance]]


@pytest.fixture
def make_instances() -> MakeInstances:
    def make(
        organization: Organization,
        count: int = 1,
        *,
        project: Project | None = None,
        gpu_count: float = 1.0,
        prefix: str = "ins",
    ) -> list[Instance]:
        start = Instance.objects.filter(organization=organization).count()
        return [
            Instance.objects.create(
                organization=organization,
                provider_id=f"{prefix}-{start + i:06d}",
                region="ap-shanghai",
                instance_type="GN7.2XLARGE32",
                gpu_count=gpu_count,
                project=project,
            )
            for i in range(count)
        ]

    return make


@pytest.fixture
def acme_gpu(acme: Organization, make_instances: MakeInstances) -> Instance:
    return make_instances(acme, 1, gpu_count=2.0)[0]
