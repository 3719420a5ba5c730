"""An automated night schedule carried out on the Tencent Cloud simulator, through the SDK.

Two weeks of the simulation clock (Tuesday 8 to Monday 21 December 2026, Asia/Shanghai): the
executor ticks at every window edge, the simulator stops and starts the instance
(STOPPING/STARTING over seconds), the bills the product syncs afterwards show the runtime
components gone from the stopped hours while the system disk keeps billing, and the realised
saving of the one whole local week inside (14-21 December) is recomputed here from the raw bill
lines and the promise from the price those lines show.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from apps.accounts.audit import actions as audit_actions
from apps.accounts.audit.models import AuditEntry
from apps.accounts.models import Organization, User
from apps.alerts.models import AlertEvent
from apps.automation import executor, services
from apps.automation.models import ActionStatus, AutomationAction
from apps.automation.selectors import plan_weeks
from apps.billing.models import BillLine
from apps.billing.sync import sync_bills
from apps.cloud.models import Instance
from apps.cloud.providers.tencent.simulator import (
    WRITE_SECRET_ID,
    WRITE_SECRET_KEY,
    SimulatorServer,
)
from apps.cloud.providers.tencent.simulator.fleet import IDLE, POSTPAID, TRAINING
from apps.cloud.services import cloud_account_client
from apps.cloud.sync.inventory import sync_inventory
from apps.cloud.write_credentials import (
    cloud_account_set_automation,
    cloud_account_set_write_credential,
)
from apps.recommendations.models import RecommendationEvent
from tests.automation.world import WEEKNIGHTS, accepted_schedule
from tests.cloud.conftest import connect, make_simulator  # noqa: F401  (fixture)

pytestmark = [pytest.mark.django_db(transaction=False), pytest.mark.stack]

SHANGHAI = ZoneInfo("Asia/Shanghai")
START = dt.datetime(2026, 12, 8, 12, tzinfo=SHANGHAI)  # a Tuesday noon
END = dt.datetime(2026, 12, 21, 12, tzinfo=SHANGHAI)  # the Monday after next, noon
SKIPPED = dt.date(2026, 12, 9)  # a holiday: no stop on Wednesday night, so no start Thursday
FULL_WEEK = (dt.datetime(2026, 12, 14, tzinfo=SHANGHAI), dt.datetime(2026, 12, 21, tzinfo=SHANGHAI))
WEEKLY_OFF_HOURS = 118  # four week nights of 14 h and a weekend of 62 h
# The bill's own words for the parts that stop billing with STOP_CHARGING (DOMAIN.md).
RUNTIME_PARTS = {"运算组件", "GPU"}


def expected_edges() -> list[tuple[dt.datetime, str]]:
    """The window edges between START and END, worked out here from the calendar: a stop at
    19:00 Monday to Friday and a start at 09:00 the next working morning, none for SKIPPED."""
    edges: list[tuple[dt.datetime, str]] = []
    day = START.date()
    while day <= END.date():
        at = dt.datetime.combine(day, dt.time(19), tzinfo=SHANGHAI)
        if day.weekday() < 5 and day != SKIPPED:
            morning = day + dt.timedelta(days=3 if day.weekday() == 4 else 1)
            edges.append((at, "StopInstances"))
            start = dt.datetime.combine(morning, dt.time(9), tzinfo=SHANGHAI)
            edges.append((start, "StartInstances"))
        day += dt.timedelta(days=1)
    return sorted((at, action) for at, action in edges if START < at < END)


class Clock:
    def __init__(self, now: dt.datetime) -> None:
        self.now = now.astimezone(dt.UTC)

    def __call__(self) -> dt.datetime:
        return self.now


def _hour_lines(instance: Instance, hour: dt.datetime) -> list[BillLine]:
    return list(BillLine.objects.filter(instance=instance, fee_begin_at=hour))


def _runtime_cost(lines: list[BillLine]) -> Decimal:
    return sum((line.cost for line in lines if line.component_name in RUNTIME_PARTS), Decimal(0))


@pytest.fixture
def world(
    acme: Organization,
    alice: User,
    make_simulator: Callable[..., SimulatorServer],  # noqa: F811
) -> dict:
    clock = Clock(START - dt.timedelta(minutes=5))
    simulator = make_simulator(now=clock)
    account = connect(acme, simulator)
    cloud_account_set_write_credential(
        account=account, secret_id=WRITE_SECRET_ID, secret_key=WRITE_SECRET_KEY, actor=alice
    )
    cloud_account_set_automation(account=account, enabled=True, actor=alice)
    sync_inventory(account, cloud_account_client(account), now=clock.now)

    def pick(pattern: str, number: int = 0) -> Instance:
        """The ``number``-th running pay-as-you-go instance of a pattern."""
        simulated = [
            inst
            for inst in simulator.cloud.fleet.find(pattern=pattern, charge_type=POSTPAID)
            if inst.stopped_at is None and inst.terminated_at is None
        ][number]
        return Instance.objects.get(organization=acme, provider_id=simulated.instance_id)

    return {"clock": clock, "simulator": simulator, "account": account, "pick": pick}


def _price_from_the_bill(instance: Instance) -> Decimal:
    """The runtime price an hour, from the raw lines of the last whole hour before START."""
    hour = (START - dt.timedelta(hours=2)).astimezone(dt.UTC)
    lines = _hour_lines(instance, hour)
    assert lines, "no bill lines for the hour before the plan"
    return _runtime_cost(lines)


def _tick(clock: Clock, at: dt.datetime) -> None:
    clock.now = at.astimezone(dt.UTC)
    services.actions_materialise_all(now=clock.now)
    executor.executor_run(now=clock.now)


def test_it_runs_a_night_schedule_for_two_weeks_and_the_bills_show_the_saving(
    acme: Organization, alice: User, world: dict
) -> None:
    clock, simulator, account = world["clock"], world["simulator"], world["account"]
    instance = world["pick"](IDLE)
    sync_bills(account, cloud_account_client(account), "2026-12")
    price = _price_from_the_bill(instance)
    assert price > 0
    days_per_month = 30
    monthly = (price * WEEKLY_OFF_HOURS * days_per_month / 7).quantize(Decimal("0.01"))
    recommendation = accepted_schedule(
        acme, instance, runs=WEEKNIGHTS, monthly_saving=monthly, fingerprint="sim-schedule"
    )
    clock.now = START.astimezone(dt.UTC)
    plan = services.automation_plan_create(
        recommendation=recommendation, actor=alice, now=clock.now, skip_dates=[SKIPPED]
    )

    calls: list[tuple[dt.datetime, str]] = []
    seen = 0
    for at, _action in expected_edges():
        _tick(clock, at)
        # A duplicate beat tick at the same moment calls nothing more.
        _tick(clock, at)
        # A minute later the instance is STOPPED / RUNNING: read back and confirmed.
        _tick(clock, at + dt.timedelta(minutes=2))
        made = sorted(
            (
                record
                for action in ("StopInstances", "StartInstances")
                for record in simulator.requests(action, instance_id=instance.provider_id)
            ),
            key=lambda record: record.monotonic,
        )
        calls.extend((at, record.action) for record in made[seen:])
        seen = len(made)
    _tick(clock, END)

    # One call per edge, at that edge, in the organization's timezone; the holiday skipped.
    assert sorted(calls) == expected_edges()
    assert simulator.requests("StopInstances", instance_id=instance.provider_id)
    for record in simulator.requests("StopInstances", instance_id=instance.provider_id):
        assert record.params is not None
        assert record.params["StoppedMode"] == "STOP_CHARGING"
    # Every call is in the audit log with the RequestId the cloud answered.
    audited = {
        entry.details["request_id"]
        for entry in AuditEntry.objects.filter(
            organization=acme, action=audit_actions.AUTOMATION_ACTION
        )
    }
    for action in ("StopInstances", "StartInstances"):
        for record in simulator.requests(action, instance_id=instance.provider_id):
            assert record.request_id in audited
    statuses = set(AutomationAction.objects.filter(plan=plan).values_list("status", flat=True))
    assert ActionStatus.FAILED not in statuses
    assert not AutomationAction.objects.filter(
        plan=plan, status=ActionStatus.SENT, due_at__lt=END - dt.timedelta(hours=1)
    ).exists()

    # The bills, synced the way the product syncs them, as the simulator serves them.
    sync_bills(account, cloud_account_client(account), "2026-12")
    stopped: list[dt.datetime] = []
    edges = expected_edges()
    for (stop_at, stop), (start_at, start) in itertools.pairwise(edges):
        if stop != "StopInstances" or start != "StartInstances":
            continue
        hour = stop_at.astimezone(dt.UTC) + dt.timedelta(hours=1)
        while hour < start_at.astimezone(dt.UTC):
            stopped.append(hour)
            hour += dt.timedelta(hours=1)
    assert stopped
    for hour in stopped:
        lines = _hour_lines(instance, hour)
        assert _runtime_cost(lines) == 0, hour  # compute and GPU stopped billing
        assert any(line.component_name == "系统盘" and line.cost > 0 for line in lines), hour

    # The whole local week inside the run: promised and realised, both from the bill lines.
    week_start, week_end = (moment.astimezone(dt.UTC) for moment in FULL_WEEK)
    spans = [
        (max(stop_at.astimezone(dt.UTC), week_start), min(start_at.astimezone(dt.UTC), week_end))
        for (stop_at, stop), (start_at, start) in itertools.pairwise(edges)
        if stop == "StopInstances" and start == "StartInstances"
    ]
    # (The weekend before it counts from Monday 00:00: stopped Friday 11, started Monday 14.)
    recomputed = Decimal(0)
    hours = 0
    for begin, end in spans:
        hour = begin
        while hour < end:
            recomputed += price - _runtime_cost(_hour_lines(instance, hour))
            hours += 1
            hour += dt.timedelta(hours=1)
    assert hours == WEEKLY_OFF_HOURS
    promised = (monthly * 7 / days_per_month).quantize(Decimal("0.01"))
    weeks = {week.week_start: week for week in plan_weeks(plan, now=END.astimezone(dt.UTC))}
    week = weeks[FULL_WEEK[0].date()]
    assert week.stopped_hours == WEEKLY_OFF_HOURS
    assert week.promised == promised
    assert week.realised == recomputed.quantize(Decimal("0.01"))
    assert abs(week.realised - promised) <= promised * Decimal("0.05")


def test_it_skips_a_busy_instance_and_never_touches_an_opted_out_one(
    acme: Organization, alice: User, world: dict
) -> None:
    clock, simulator = world["clock"], world["simulator"]
    busy = world["pick"](TRAINING)
    opted = world["pick"](IDLE, 1)
    Instance.objects.filter(pk=opted.pk).update(tags={**opted.tags, "gpu-ledger:automation": "off"})
    clock.now = START.astimezone(dt.UTC)
    plans = [
        services.automation_plan_create(
            recommendation=accepted_schedule(
                acme, instance, runs=WEEKNIGHTS, fingerprint=f"sim-{instance.pk}"
            ),
            actor=alice,
            now=clock.now,
        )
        for instance in (busy, opted)
    ]
    first_stop = expected_edges()[0][0]
    _tick(clock, first_stop)
    _tick(clock, first_stop + dt.timedelta(minutes=2))

    for instance in (busy, opted):
        assert simulator.requests("StopInstances", instance_id=instance.provider_id) == []
    assert simulator.cloud.state_at(busy.provider_id) == "RUNNING"
    busy_stop = AutomationAction.objects.get(plan=plans[0], due_at=first_stop.astimezone(dt.UTC))
    assert (busy_stop.status, busy_stop.reason) == (ActionStatus.SKIPPED, "busy_gpu_util")
    assert busy_stop.reason_params["gpu_util_pct"] > 20
    opted_stop = AutomationAction.objects.get(plan=plans[1], due_at=first_stop.astimezone(dt.UTC))
    assert (opted_stop.status, opted_stop.reason) == (ActionStatus.SKIPPED, "opted_out")
    # Both skips are in the audit log and the recommendations' history.
    skipped = AuditEntry.objects.filter(organization=acme, action=audit_actions.AUTOMATION_ACTION)
    assert {entry.details["reason"] for entry in skipped} == {"busy_gpu_util", "opted_out"}
    for plan in plans:
        assert RecommendationEvent.objects.filter(recommendation=plan.recommendation).count() >= 2
    # The busy instance's owners were told (an alert to its project's recipients); the
    # opted-out one's were not: nothing happened to it.
    told = AlertEvent.objects.filter(organization=acme, kind="automation")
    assert told.filter(instance=busy).exists()
    assert not told.filter(instance=opted).exists()


def test_it_retries_a_sold_out_start_with_back_off_and_alerts_at_once(
    acme: Organization, alice: User, world: dict
) -> None:
    clock, simulator = world["clock"], world["simulator"]
    instance = world["pick"](IDLE)
    clock.now = START.astimezone(dt.UTC)
    plan = services.automation_plan_create(
        recommendation=accepted_schedule(acme, instance, runs=WEEKNIGHTS, fingerprint="sold"),
        actor=alice,
        now=clock.now,
    )
    (stop_at, _), (start_at, _) = expected_edges()[:2]
    _tick(clock, stop_at)
    _tick(clock, stop_at + dt.timedelta(minutes=2))
    assert simulator.cloud.state_at(instance.provider_id) == "STOPPED"

    simulator.cloud.operations.configure(sold_out_zones={instance.zone})
    for minutes in (0, 1, 2, 3, 6):  # the first try, then the back-off's 2 and 4 minutes
        _tick(clock, start_at + dt.timedelta(minutes=minutes))
    refused = simulator.requests("StartInstances", instance_id=instance.provider_id)
    assert [record.outcome for record in refused] == [
        "ResourceInsufficient.AvailabilityZoneSoldOut"
    ] * 3
    # Told at once, and once: a machine that does not come back in the morning is an outage.
    alerts = AlertEvent.objects.filter(organization=acme, kind="automation", instance=instance)
    assert [(alert.severity, alert.evidence["event"]) for alert in alerts] == [
        ("critical", "start_failed")
    ]

    simulator.cloud.operations.configure(sold_out_zones=())
    _tick(clock, start_at + dt.timedelta(minutes=14))  # the next try, 8 minutes on
    _tick(clock, start_at + dt.timedelta(minutes=16))
    assert simulator.cloud.state_at(instance.provider_id) == "RUNNING"
    start = AutomationAction.objects.get(plan=plan, due_at=start_at.astimezone(dt.UTC))
    assert start.status == ActionStatus.CONFIRMED
    assert start.attempts == 4
