"""A small world for automation's tests: an accepted schedule on one instance, a fake cloud
(no simulator) and helpers that write the instance's recent GPU metrics."""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal
from typing import Any

from apps.accounts.models import Organization, User
from apps.automation import cloud
from apps.cloud.models import Instance
from apps.metrics.constants import Metric
from apps.metrics.services import metrics_write
from apps.recommendations.models import Recommendation, Status
from tests.recommendations.factories import make_instance

# A Monday, 12:00 in Shanghai (04:00 UTC).
MONDAY_NOON = dt.datetime(2026, 11, 16, 4, tzinfo=dt.UTC)
WEEKNIGHTS = [
    {"start_weekday": d, "start_hour": 19, "end_weekday": d + 1, "end_hour": 9, "hours": 14}
    for d in range(4)
] + [{"start_weekday": 4, "start_hour": 19, "end_weekday": 0, "end_hour": 9, "hours": 62}]


def accepted_schedule(
    organization: Organization,
    instance: Instance,
    *,
    runs: list[dict[str, Any]] | None = None,
    monthly_saving: Decimal = Decimal("1200.00"),
    kind: str = "schedule",
    status: str = Status.ACCEPTED,
    parameters: dict[str, Any] | None = None,
    action: dict[str, Any] | None = None,
    fingerprint: str = "",
) -> Recommendation:
    return Recommendation.objects.create(
        organization=organization,
        kind=kind,
        fingerprint=fingerprint or f"{kind}-{instance.pk}",
        instance=instance,
        project=instance.project,
        parameters=parameters or {},
        title=f"{kind} {instance.name}",
        explanation="",
        monthly_saving=monthly_saving,
        currency="CNY",
        saving_formula="",
        price_source="bills",
        confidence="high",
        evidence_days=14,
        coverage_pct=100,
        risk_level=2,
        risk_reason="",
        evidence={},
        action=action
        if action is not None
        else {"window": {"tz": "Asia/Shanghai", "runs": runs or WEEKNIGHTS, "weekly_hours": 118}},
        status=status,
        accepted_at=MONDAY_NOON - dt.timedelta(days=1) if status == Status.ACCEPTED else None,
        first_seen_at=MONDAY_NOON - dt.timedelta(days=2),
        last_seen_at=MONDAY_NOON - dt.timedelta(days=2),
    )


def write_gpu(
    instance: Instance, *, end: dt.datetime, util: float, mem: float, minutes: int = 30
) -> None:
    """``minutes`` per-minute points of GPU utilization and memory before ``end``."""
    stamps = [end - dt.timedelta(minutes=m + 1) for m in range(minutes)][::-1]
    metrics_write(
        instance_id=instance.pk,
        metric=Metric.GPU_UTIL_PCT,
        timestamps=stamps,
        values=[util] * minutes,
    )
    metrics_write(
        instance_id=instance.pk,
        metric=Metric.GPU_MEM_USED_PCT,
        timestamps=stamps,
        values=[mem] * minutes,
    )


@dataclasses.dataclass
class FakeCloud:
    """Stands in for the connector's write client: states, and a log of every call."""

    states: dict[str, str] = dataclasses.field(default_factory=dict)
    calls: list[tuple[str, tuple[str, ...]]] = dataclasses.field(default_factory=list)
    sold_out: bool = False
    write_credential: bool = True
    enabled: bool = True

    def stop(self, account: Any, region: str, ids: list[str]) -> str:
        self.calls.append(("StopInstances", tuple(ids)))
        for pid in ids:
            self.states[pid] = "STOPPED"
        return f"req-stop-{len(self.calls)}"

    def start(self, account: Any, region: str, ids: list[str]) -> str:
        self.calls.append(("StartInstances", tuple(ids)))
        if self.sold_out:
            raise cloud.SoldOut("ResourceInsufficient.SpecifiedInstanceType", "req-sold-out")
        for pid in ids:
            self.states[pid] = "RUNNING"
        return f"req-start-{len(self.calls)}"

    def read_states(self, account: Any, region: str, ids: list[str]) -> dict[str, str]:
        self.calls.append(("DescribeInstances", tuple(ids)))
        return {pid: self.states.get(pid, "RUNNING") for pid in ids}

    def count(self, name: str) -> int:
        return sum(1 for call, _ids in self.calls if call == name)


def install(monkeypatch: Any, fake: FakeCloud) -> FakeCloud:
    monkeypatch.setattr(cloud, "stop", fake.stop)
    monkeypatch.setattr(cloud, "start", fake.start)
    monkeypatch.setattr(cloud, "states", fake.read_states)
    monkeypatch.setattr(cloud, "has_write_credential", lambda account: fake.write_credential)
    monkeypatch.setattr(cloud, "automation_enabled", lambda account: fake.enabled)
    return fake


def schedule_world(
    organization: Organization, name: str = "gn7-idle-14"
) -> tuple[Instance, Recommendation]:
    instance = make_instance(organization, name)
    return instance, accepted_schedule(organization, instance)


def owner(organization: Organization) -> User:
    from apps.accounts.models import Membership

    return Membership.objects.get(organization=organization, role="owner").user
