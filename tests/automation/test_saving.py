"""The realised saving of an automated schedule, recomputed here from the raw bill lines.

Two weeks of the week-night schedule run through the executor (fake cloud); the bills say what
a STOP_CHARGING stop does: the hours the instance is stopped bill its disk only, the others
its compute and its disk. The realised saving of a full week is the hours kept stopped x the
runtime price (from the week before the plan) - the runtime billed in those hours, and it
comes within 5 % of the promised one.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from apps.accounts.models import Organization
from apps.automation import executor, selectors, services
from apps.automation.models import ActionKind, AutomationAction
from apps.billing.models import BillLine
from apps.billing.rollups import bill_days_refresh
from apps.cloud.models import Instance
from tests.automation.world import (
    MONDAY_NOON,
    FakeCloud,
    accepted_schedule,
    install,
    owner,
    write_gpu,
)
from tests.recommendations.factories import make_instance

pytestmark = pytest.mark.django_db

COMPUTE = Decimal("5.00")
DISK = Decimal("0.20")
# 118 off hours a week x 5.00 an hour = 590.00 a week, 590 x 30 / 7 a month.
MONTHLY = (Decimal(590) * 30 / 7).quantize(Decimal("0.01"))


def _line(instance: Instance, hour: dt.datetime, code: str, cls: str, cost: Decimal) -> BillLine:
    return BillLine(
        organization_id=instance.organization_id,
        account=instance.account,
        bill_id=f"{code}-{hour:%Y%m%d%H}",
        component_code=code,
        component_class=cls,
        item_code="cvm",
        month=f"{hour:%Y-%m}",
        instance=instance,
        fee_begin_at=hour,
        fee_end_at=hour + dt.timedelta(minutes=59, seconds=59),
        list_cost=cost,
        cost=cost,
    )


def _bill(
    instance: Instance, start: dt.datetime, end: dt.datetime, stopped: set[dt.datetime]
) -> None:
    lines = []
    hour = start
    while hour < end:
        lines.append(_line(instance, hour, "v_cvm_disk", "storage", DISK))
        if hour not in stopped:
            lines.append(_line(instance, hour, "v_cvm_compute", "runtime", COMPUTE))
        hour += dt.timedelta(hours=1)
    BillLine.objects.bulk_create(lines)
    assert instance.account is not None
    bill_days_refresh(account=instance.account, months=sorted({ln.month for ln in lines}))


def test_the_realised_saving_of_a_week_is_recomputed_from_the_bill_lines(
    acme: Organization, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = install(monkeypatch, FakeCloud())
    instance = make_instance(acme, "gn7-idle-14")
    recommendation = accepted_schedule(acme, instance, monthly_saving=MONTHLY)
    # The week before the plan: running every hour (its runtime price: 5.00 an hour).
    _bill(instance, MONDAY_NOON - dt.timedelta(days=7), MONDAY_NOON, set())
    plan = services.automation_plan_create(
        recommendation=recommendation, actor=owner(acme), now=MONDAY_NOON
    )
    end = MONDAY_NOON + dt.timedelta(days=14)
    moment = MONDAY_NOON
    while moment < end:
        services.actions_materialise(plan=plan, now=moment)
        due = (
            AutomationAction.objects.filter(plan=plan, status="pending", due_at__gt=moment)
            .order_by("due_at")
            .first()
        )
        if due is None or due.due_at >= end:
            break
        moment = due.due_at
        write_gpu(instance, end=moment, util=0.5, mem=0.2)
        executor.executor_run(now=moment)
        executor.executor_run(now=moment + dt.timedelta(minutes=1))  # reads the state back
    assert fake.count("StopInstances") == 10
    assert fake.count("StartInstances") >= 9

    # The bills of those two weeks: the hours between a stop and the next start bill no runtime.
    sent = list(
        AutomationAction.objects.filter(plan=plan, status="confirmed")
        .order_by("sent_at")
        .values_list("kind", "sent_at")
    )
    stopped: set[dt.datetime] = set()
    began: dt.datetime | None = None
    for kind, at in sent:
        assert at is not None
        if kind == ActionKind.STOP:
            began = at
        elif began is not None:
            hour = began
            while hour < at:
                stopped.add(hour)
                hour += dt.timedelta(hours=1)
            began = None
    _bill(instance, MONDAY_NOON, end, stopped)

    weeks = selectors.plan_weeks(plan, now=end)
    second = weeks[1]
    assert second.week_start == dt.date(2026, 11, 23)
    # Recomputed from the raw lines: the week's bounds in Shanghai, its stopped whole hours.
    lo = dt.datetime(2026, 11, 22, 16, tzinfo=dt.UTC)
    hi = lo + dt.timedelta(days=7)
    stopped_hours = sorted(h for h in stopped if lo <= h < hi)
    baseline = BillLine.objects.filter(
        instance=instance,
        component_class="runtime",
        fee_begin_at__gte=MONDAY_NOON - dt.timedelta(days=7),
        fee_begin_at__lt=MONDAY_NOON,
    )
    price = Decimal(sum(b.cost for b in baseline)) / baseline.count()
    billed_while_stopped = Decimal(0) + sum(
        b.cost
        for b in BillLine.objects.filter(instance=instance, component_class="runtime")
        if b.fee_begin_at in set(stopped_hours)
    )
    realised = (price * len(stopped_hours) - billed_while_stopped).quantize(Decimal("0.01"))
    assert second.stopped_hours == len(stopped_hours) == 118
    assert second.realised == realised == Decimal("590.00")
    promised = (MONTHLY * 7 / 30).quantize(Decimal("0.01"))
    assert second.promised == promised
    assert abs(second.realised - promised) <= promised * Decimal("0.05")
    # The disks kept billing: no saving is claimed for them.
    assert (
        BillLine.objects.filter(
            instance=instance, component_class="storage", fee_begin_at__in=stopped_hours
        ).count()
        == 118
    )
