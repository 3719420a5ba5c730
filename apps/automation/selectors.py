"""Reads of automation: what a recommendation's automation is (available or why not, the
plan, the next actions), its actions' history, and each week's promised and realised saving.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal

from django.db.models import QuerySet

from apps.accounts.models import Organization
from apps.automation import planner
from apps.automation import reasons as r
from apps.automation.models import (
    ActionKind,
    ActionStatus,
    AutomationAction,
    AutomationPlan,
    AutomationSettings,
    PlanKind,
    PlanStatus,
)
from apps.cloud.models import ChargeType, Instance
from apps.costs.spend import runtime_billed
from apps.recommendations.evidence import organization_rule_settings
from apps.recommendations.models import Recommendation, Status

CENT = Decimal("0.01")
HOUR = dt.timedelta(hours=1)
#: The hours before a plan began whose bills price an hour of runtime (its baseline).
PRICE_BASELINE = dt.timedelta(days=7)


class AutomationRefused(Exception):
    """A write refused for a reason a person can act on; ``code`` is one of ``reasons``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def automation_settings(organization: Organization) -> AutomationSettings:
    """The organization's switch, read only: an organization that never turned it has an
    unsaved default row (not paused); only ``services.automation_settings_update`` writes one."""
    row = AutomationSettings.objects.filter(organization=organization).first()
    return row or AutomationSettings(organization=organization, paused=False)


def automation_kind(recommendation: Recommendation) -> str | None:
    """The plan kind that carries the recommendation out, None when GPU Ledger cannot."""
    kind, parameters = recommendation.kind, recommendation.parameters or {}
    if kind == "schedule" and recommendation.instance_id is not None:
        return PlanKind.SCHEDULE
    if kind == "night_downshift" and parameters.get("variant") == "fewer_instances":
        return PlanKind.FEWER_INSTANCES
    if kind in ("stop_idle", "idle_held") and recommendation.instance_id is not None:
        if parameters.get("variant"):
            return None  # a stopped subscription: stopping saves nothing
        instance = recommendation.instance
        if instance is not None and instance.charge_type == ChargeType.PREPAID:
            return None  # a subscription bills while stopped
        return PlanKind.STOP_IDLE
    return None


def recommendation_instances(recommendation: Recommendation) -> list[Instance]:
    """The instances automation stops and starts: the target, or for fewer instances at night
    only the surplus ones (the action's ``stop`` members), never the ones kept."""
    if recommendation.instance_id is not None:
        assert recommendation.instance is not None
        return [recommendation.instance]
    members = (recommendation.action or {}).get("members") or []
    ids = [m["instance_id"] for m in members if m.get("role") == "stop" and m.get("instance_id")]
    return list(
        Instance.objects.filter(organization_id=recommendation.organization_id, pk__in=ids)
        .select_related("account", "project")
        .order_by("provider_id")
    )


def plan_instances(plan: AutomationPlan) -> list[Instance]:
    return recommendation_instances(plan.recommendation)


def unavailable_reason(recommendation: Recommendation) -> str:
    """Why the recommendation cannot be automated now ("" when it can)."""
    from apps.automation.guards import account_refusal

    if recommendation.status != Status.ACCEPTED:
        return r.NOT_ACCEPTED
    if automation_kind(recommendation) is None:
        return r.KIND_NOT_AUTOMATABLE
    instances = recommendation_instances(recommendation)
    if not instances:
        return r.NO_CLOUD_ACCOUNT
    for instance in instances:
        refusal = account_refusal(instance)
        if refusal:
            return refusal
    if AutomationSettings.objects.filter(
        organization_id=recommendation.organization_id, paused=True
    ).exists():
        return r.AUTOMATION_PAUSED
    return ""


def live_plan(recommendation: Recommendation) -> AutomationPlan | None:
    """The recommendation's plan that has not ended, else its latest ended one."""
    plans = AutomationPlan.objects.filter(recommendation=recommendation).select_related(
        "created_by", "recommendation", "organization"
    )
    return plans.exclude(status=PlanStatus.ENDED).first() or plans.first()


@dataclasses.dataclass(frozen=True)
class NextAction:
    at: dt.datetime
    kind: str
    instance_id: int
    instance_name: str


def next_actions(
    recommendation: Recommendation,
    plan: AutomationPlan | None,
    *,
    now: dt.datetime,
    count: int = 10,
) -> list[NextAction]:
    """A plan's pending actions (retries included), soonest first; without a plan, what one
    would do (the planner's preview)."""
    if plan is not None:
        rows = (
            AutomationAction.objects.filter(plan=plan, status=ActionStatus.PENDING)
            .select_related("instance")
            .order_by("next_attempt_at", "id")[:count]
        )
        return [
            NextAction(
                row.next_attempt_at,
                row.kind,
                row.instance_id,
                row.instance.name or row.instance.provider_id,
            )
            for row in rows
        ]
    kind = automation_kind(recommendation)
    if kind is None or kind == PlanKind.STOP_IDLE:
        return []
    window = (recommendation.action or {}).get("window") or {}
    runs = planner.runs_from_window(window)
    tz = window.get("tz") or recommendation.organization.timezone
    moments = planner.next_actions(runs, tz, now=now, count=count)
    out = [
        NextAction(m.at, m.kind, i.pk, i.name or i.provider_id)
        for m in moments
        for i in recommendation_instances(recommendation)
    ]
    return out[:count]


def actions_list(
    organization: Organization, recommendation_id: int | None
) -> QuerySet[AutomationAction]:
    """The organization's actions, newest first, with what each row shows (no query per row)."""
    rows = AutomationAction.objects.for_organization(organization).select_related(
        "instance", "plan"
    )
    if recommendation_id is not None:
        rows = rows.filter(plan__recommendation_id=recommendation_id)
    return rows.order_by("-due_at", "-id")


# --- the realised saving ------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Week:
    week_start: dt.date
    promised: Decimal | None
    realised: Decimal | None
    currency: str
    stopped_hours: int


def _ceil_hour(moment: dt.datetime) -> dt.datetime:
    floor = moment.replace(minute=0, second=0, microsecond=0)
    return floor if floor == moment else floor + HOUR


def _floor_hour(moment: dt.datetime) -> dt.datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def stopped_spans(
    plan: AutomationPlan, instance: Instance, *, now: dt.datetime
) -> list[tuple[dt.datetime, dt.datetime]]:
    """The whole UTC hours automation kept ``instance`` stopped: from each confirmed stop
    (the moment it was sent) to the next start sent after it (or ``now``), rounded inwards to
    whole hours (the hour the stop was sent in, and the one the start was, still bill)."""
    rows = list(
        AutomationAction.objects.filter(plan=plan, instance=instance, sent_at__isnull=False)
        .filter(status__in=[ActionStatus.SENT, ActionStatus.CONFIRMED])
        .order_by("sent_at", "id")
        .values_list("kind", "sent_at")
    )
    spans: list[tuple[dt.datetime, dt.datetime]] = []
    stopped_at: dt.datetime | None = None
    for kind, sent_at in rows:
        assert sent_at is not None  # filtered above
        if kind == ActionKind.STOP and stopped_at is None:
            stopped_at = sent_at
        elif kind == ActionKind.START and stopped_at is not None:
            spans.append((stopped_at, sent_at))
            stopped_at = None
    if stopped_at is not None:
        spans.append((stopped_at, now))
    out = []
    for begin, end in spans:
        lo, hi = _ceil_hour(begin), _floor_hour(end)
        if lo < hi:
            out.append((lo, hi))
    return out


def runtime_price_per_hour(instance: Instance, before: dt.datetime) -> Decimal | None:
    """The instance's runtime price an hour (``costs.spend.runtime_billed``: its runtime
    components, compute and GPU, of the usage lines whose fee began in the ``PRICE_BASELINE``
    before ``before``, over the distinct seconds they bill, x 3,600); None without such lines."""
    billed = runtime_billed([instance.pk], before - PRICE_BASELINE, before).get(instance.pk)
    if billed is None or billed.seconds <= 0:
        return None
    return billed.cost * 3600 / billed.seconds


def plan_weeks(plan: AutomationPlan, *, now: dt.datetime) -> list[Week]:
    """Each local week (Monday 00:00 in the organization's timezone) from the plan's start
    to ``now``: the saving promised and the one realised, in the recommendation's currency.

    - promised = the recommendation's ``monthly_saving`` x 7 / ``days_per_month`` (the rules'
      days in a month, 30 unless overridden: the schedule's formula turns its weekly hours
      into a month with the same figure), to the cent;
    - realised = sum over the instances automated and the whole hours they were kept stopped
      in the week (``stopped_spans``) of (hours x ``runtime_price_per_hour`` as of the plan's
      ``started_at``) - the runtime billed for those hours (the runtime lines whose fee begins in
      them, ``runtime_billed``), to the cent. What keeps billing while stopped (disks, IPs) is
      neither price nor saving. None where an instance has no runtime price.
    """
    tz = plan.organization.timezone
    currency = plan.recommendation.currency
    thresholds, _reserved = organization_rule_settings(plan.organization)
    monthly = plan.recommendation.monthly_saving
    promised = (
        (monthly * 7 / Decimal(thresholds.days_per_month)).quantize(CENT)
        if monthly is not None
        else None
    )
    end = plan.ended_at or now
    instances = plan_instances(plan)
    prices = {i.pk: runtime_price_per_hour(i, plan.started_at) for i in instances}
    spans = {i.pk: stopped_spans(plan, i, now=end) for i in instances}
    weeks: list[Week] = []
    monday = planner.week_start(plan.started_at, tz)
    last = planner.week_start(end, tz)
    while monday <= last:
        lo, hi = planner.week_bounds(monday, tz)
        realised: Decimal | None = Decimal(0)
        hours_total = 0
        for instance in instances:
            price = prices[instance.pk]
            for begin, stop in spans[instance.pk]:
                begin, stop = max(begin, lo), min(stop, hi)
                if begin >= stop:
                    continue
                hours = int((stop - begin) / HOUR)
                hours_total += hours
                if price is None or realised is None:
                    realised = None
                    continue
                billed = runtime_billed([instance.pk], begin, stop).get(instance.pk)
                realised += price * hours - (billed.cost if billed else Decimal(0))
        weeks.append(
            Week(
                week_start=monday,
                promised=promised,
                realised=realised.quantize(CENT) if realised is not None else None,
                currency=currency,
                stopped_hours=hours_total,
            )
        )
        monday += dt.timedelta(days=7)
    return weeks
