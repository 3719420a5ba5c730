"""A small organization with three weeks of bills, phases, recommendations, a budget and a
failing cloud account: what a digest is made of, with figures simple enough to recompute.

Acme (Asia/Shanghai, CNY) has two projects and three GPU instances, billed every hour from
``DATA_START`` to ``DATA_END`` (UTC):

- ``train-a`` (project "research"): 5.00 CNY an hour, every week;
- ``serve-b`` (project "serving"): 3.00, then 4.00, then 6.50 CNY an hour, one rate per week
  counted from Monday 9 November 00:00 Shanghai, so it is the top mover;
- ``stray-c`` (no project): 1.25 CNY an hour, plus a disk line of 0.10 an hour (not compute).

Every UTC day of every instance is idle 00:00-08:00, training 08:00-20:00 and data-bound
20:00-24:00 (stored phase segments), with hour rollups at 40 % GPU utilization.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import zoneinfo
from decimal import Decimal

import numpy as np

from apps.accounts.models import Organization, User
from apps.alerts.models import Budget
from apps.analysis.engine import Phase
from apps.analysis.models import PHASE_DAY_SHAPE, PhaseDay, PhaseSegment, phase_day_encode
from apps.billing.models import BillLine
from apps.billing.signals import bill_lines_changed
from apps.cloud.models import CloudAccount, Instance, Project
from apps.metrics.models import InstanceHourRollup
from apps.recommendations.models import Recommendation

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
WEEK_STARTS = [dt.datetime(2026, 11, d, tzinfo=SHANGHAI) for d in (9, 16, 23, 30)]
DATA_START = dt.datetime(2026, 11, 8, tzinfo=dt.UTC)
DATA_END = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
SERVE_RATES = [Decimal("3.00"), Decimal("4.00"), Decimal("6.50")]


@dataclasses.dataclass(frozen=True)
class World:
    organization: Organization
    account: CloudAccount
    research: Project
    serving: Project
    instances: dict[str, Instance]


def _rate(name: str, hour: dt.datetime) -> Decimal:
    if name == "train-a":
        return Decimal("5.00")
    if name == "stray-c":
        return Decimal("1.25")
    for index in range(3):
        if WEEK_STARTS[index] <= hour < WEEK_STARTS[index + 1]:
            return SERVE_RATES[index]
    return Decimal("2.00")  # outside the three weeks


def build_world(organization: Organization) -> World:
    account = CloudAccount.objects.create(
        organization=organization,
        name="Acme Tencent",
        secret_id="AKID-test",
        secret_key_encrypted="not-used",
        regions=["ap-shanghai"],
        status=CloudAccount.Status.FAILING,
        last_error="AuthFailure.SecretIdNotFound: the SecretId was deleted.",
    )
    research = Project.objects.create(organization=organization, name="research", slug="research")
    serving = Project.objects.create(organization=organization, name="serving", slug="serving")
    instances = {}
    for name, project in (("train-a", research), ("serve-b", serving), ("stray-c", None)):
        instances[name] = Instance.objects.create(
            organization=organization,
            account=account,
            provider_id=f"ins-{name}",
            name=name,
            region="ap-shanghai",
            zone="ap-shanghai-2",
            instance_type="GN7.2XLARGE32",
            gpu_model="NVIDIA T4",
            gpu_count=1,
            gpu_memory_gb=16,
            project=project,
            launched_at=DATA_START - dt.timedelta(days=30),
        )
    hours = int((DATA_END - DATA_START).total_seconds() // 3600)
    lines, rollups, segments, phase_days = [], [], [], []
    for name, instance in instances.items():
        for index in range(hours):
            hour = DATA_START + dt.timedelta(hours=index)
            common = {
                "organization": organization,
                "account": account,
                "month": hour.astimezone(SHANGHAI).strftime("%Y-%m"),
                "instance": instance,
                "project": instance.project,
                "resource_id": instance.provider_id,
                "fee_begin_at": hour,
                "fee_end_at": hour + dt.timedelta(minutes=59, seconds=59),
            }
            cost = _rate(name, hour)
            lines.append(
                BillLine(
                    bill_id=f"{name}-{hour:%Y%m%d%H}",
                    component_code="v_cvm_compute",
                    component_class="runtime",
                    item_code="cvm",
                    list_cost=cost,
                    cost=cost,
                    **common,
                )
            )
            if name == "stray-c":
                lines.append(
                    BillLine(
                        bill_id=f"{name}-{hour:%Y%m%d%H}",
                        component_code="v_cvm_disk",
                        component_class="storage",
                        item_code="cbs",
                        list_cost=Decimal("0.10"),
                        cost=Decimal("0.10"),
                        **common,
                    )
                )
            rollups.append(
                InstanceHourRollup(
                    organization=organization,
                    instance=instance,
                    hour_start=hour,
                    gpu_count=1,
                    gpu_util_pct_avg=40.0,
                    gpu_util_pct_minutes=60,
                )
            )
        day = DATA_START
        while day < DATA_END:
            # The analysis stores each day twice: as segments and as minutes per hour and phase.
            minutes = np.zeros(PHASE_DAY_SHAPE, dtype=np.int64)
            for phase, a, b in (
                (Phase.IDLE, 0, 8),
                (Phase.TRAINING, 8, 20),
                (Phase.DATA_PROCESSING, 20, 24),
            ):
                minutes[a:b, phase] = 60
                segments.append(
                    PhaseSegment(
                        organization=organization,
                        instance=instance,
                        phase=phase,
                        start_at=day + dt.timedelta(hours=a),
                        end_at=day + dt.timedelta(hours=b),
                        mean_gpu_util_pct=40.0,
                    )
                )
            phase_days.append(
                PhaseDay(
                    organization=organization,
                    instance=instance,
                    day=day.date(),
                    minutes=phase_day_encode(minutes),
                )
            )
            day += dt.timedelta(days=1)
    BillLine.objects.bulk_create(lines)
    PhaseDay.objects.bulk_create(phase_days)
    InstanceHourRollup.objects.bulk_create(rollups)
    PhaseSegment.objects.bulk_create(segments)
    # As billing's sync does after writing lines (and after the analysis wrote the days it
    # reads): the cost and billed-hours rollups follow, never on a GET.
    bill_lines_changed.send(
        sender=BillLine, organization=organization, months=sorted({line.month for line in lines})
    )
    for rank, (saving, title) in enumerate(
        [
            ("900.00", "Stop idle train-a at night"),
            ("120.50", "Move serve-b to spot"),
            ("3000.00", "Switch train-a to a monthly subscription"),
            ("45.00", "Downsize stray-c"),
            ("310.00", "Fix the data pipeline of serve-b"),
            ("10.00", "Thermal check of stray-c"),
        ]
    ):
        Recommendation.objects.create(
            organization=organization,
            kind="stop_idle",
            fingerprint=f"fp-{rank}",
            instance=instances["train-a"],
            project=research,
            title=title,
            explanation="Because.",
            monthly_saving=Decimal(saving),
            currency="CNY",
            saving_formula="x",
            price_source="bills",
            confidence="high",
            evidence_days=14.0,
            coverage_pct=100.0,
            risk_level=1,
            risk_reason="Low.",
            first_seen_at=DATA_START,
            last_seen_at=DATA_END,
        )
    Budget.objects.create(organization=organization, name="GPU budget", amount=Decimal("5000.00"))
    return World(organization, account, research, serving, instances)


def hand_spend(organization: Organization, start: dt.datetime, end: dt.datetime) -> Decimal:
    """The spend of ``[start, end)`` recomputed line by line (every component)."""
    return sum(
        (
            line.cost
            for line in BillLine.objects.filter(organization=organization)
            if start <= line.fee_begin_at < end
        ),
        Decimal(0),
    )


def make_user(email: str, language: str = "en") -> User:
    return User.objects.create_user(email=email, password="pw-123456789", language=language)
