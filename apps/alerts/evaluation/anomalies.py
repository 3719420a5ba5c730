"""Cost anomalies: a day of a project or instance far above its own trailing baseline.

Two daily series are watched, per project and per instance, in the organization's timezone:
spend (the bill lines' real cost) and idle GPU-hours (the analysis' idle minutes x cards / 60).
A day is anomalous when its value exceeds ``median + k x 1.4826 x MAD`` of the 30 days before it
(the median absolute deviation, scaled to match a standard deviation on normal data: a spread
that a few spikes in the baseline do not inflate) *and* exceeds the median by at least the
organization's minimum (money, or idle GPU-hours), so a cheap, flat series never alerts on noise.
Days without data count as zero; a subject needs data on at least ``MIN_BASELINE_DAYS`` of the
30 to be judged at all.

Yesterday (complete) and today (so far) are judged: today alerts as soon as its partial value
is already above the line. Each (metric, subject, day) alerts once (``AlertEvent.dedup_key``).
A project's alert names the instance whose own rise explains most of it; that instance's own
alert for the same day and metric is then not raised as well.
"""

from __future__ import annotations

import datetime as dt
import statistics
import zoneinfo
from collections import defaultdict
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.db.models.functions import TruncDate

from apps.accounts.models import Organization
from apps.alerts.models import AlertEvent, AlertKind, Severity
from apps.alerts.services import alert_event_raise, alert_settings_get
from apps.alerts.wording import GPU_HOURS_UNIT
from apps.analysis.selectors import phase_minutes_daily
from apps.billing.models import BillLine
from apps.cloud.models import Instance, Project

BASELINE_DAYS = 30
MIN_BASELINE_DAYS = 7
#: Scales the MAD to a standard deviation's size for normally distributed data.
MAD_TO_SIGMA = 1.4826
SPEND = "spend"
IDLE_GPU_HOURS = "idle_gpu_hours"

Series = dict[dt.date, float]


@dataclass(frozen=True)
class Verdict:
    value: float
    median: float
    mad: float
    line: float  # median + k x 1.4826 x MAD
    minimum: float
    baseline: list[float]

    @property
    def anomalous(self) -> bool:
        return self.value > self.line and self.value - self.median >= self.minimum


def judge(series: Series, day: dt.date, *, k: float, minimum: float) -> Verdict | None:
    """The verdict on ``day`` against the 30 days before it; None without enough history."""
    baseline_days = [day - dt.timedelta(days=n) for n in range(BASELINE_DAYS, 0, -1)]
    if sum(1 for d in baseline_days if d in series) < MIN_BASELINE_DAYS:
        return None
    baseline = [series.get(d, 0.0) for d in baseline_days]
    median = statistics.median(baseline)
    mad = statistics.median(abs(v - median) for v in baseline)
    return Verdict(
        value=series.get(day, 0.0),
        median=median,
        mad=mad,
        line=median + k * MAD_TO_SIGMA * mad,
        minimum=minimum,
        baseline=baseline,
    )


def _local_day_bounds(
    tz: zoneinfo.ZoneInfo, first: dt.date, last: dt.date
) -> tuple[dt.datetime, dt.datetime]:
    return (
        dt.datetime.combine(first, dt.time(), tzinfo=tz),
        dt.datetime.combine(last + dt.timedelta(days=1), dt.time(), tzinfo=tz),
    )


def spend_series(
    organization: Organization, first: dt.date, last: dt.date
) -> tuple[dict[int, Series], dict[int, Series], dict[int, int | None]]:
    """Daily spend per project and per instance (local days ``first..last``), and each
    instance's project as the bills allocated it."""
    tz = zoneinfo.ZoneInfo(organization.timezone)
    start, end = _local_day_bounds(tz, first, last)
    rows = (
        BillLine.objects.for_organization(organization)
        .filter(fee_begin_at__gte=start, fee_begin_at__lt=end, currency=organization.currency)
        .annotate(local_day=TruncDate("fee_begin_at", tzinfo=tz))
        .values("local_day", "project_id", "instance_id")
        .annotate(total=Sum("cost"))
        .order_by()
    )
    projects: dict[int, Series] = defaultdict(dict)
    instances: dict[int, Series] = defaultdict(dict)
    project_of: dict[int, int | None] = {}
    for row in rows:
        total = float(row["total"] or 0)
        day = row["local_day"]
        if row["project_id"] is not None:
            series = projects[row["project_id"]]
            series[day] = series.get(day, 0.0) + total
        if row["instance_id"] is not None:
            series = instances[row["instance_id"]]
            series[day] = series.get(day, 0.0) + total
            project_of[row["instance_id"]] = row["project_id"]
    return projects, instances, project_of


def idle_series(
    organization: Organization, first: dt.date, last: dt.date
) -> tuple[dict[int, Series], dict[int, Series], dict[int, int | None]]:
    """Daily idle GPU-hours per project and per instance (local days ``first..last``)."""
    minutes = phase_minutes_daily(
        organization=organization, start=first, end=last + dt.timedelta(days=1)
    )
    instance_ids = {instance_id for instance_id, _ in minutes if instance_id is not None}
    cards = dict(
        Instance.objects.for_organization(organization)
        .filter(pk__in=instance_ids)
        .values_list("pk", "gpu_count")
    )
    project_of: dict[int, int | None] = dict(
        Instance.objects.for_organization(organization)
        .filter(pk__in=instance_ids)
        .values_list("pk", "project_id")
    )
    projects: dict[int, Series] = defaultdict(dict)
    instances: dict[int, Series] = defaultdict(dict)
    for (instance_id, day), phases in minutes.items():
        if instance_id is None:
            continue
        hours = phases.get("idle", 0) * cards.get(instance_id, 0) / 60
        instances[instance_id][day] = hours
        project_id = project_of.get(instance_id)
        if project_id is not None:
            projects[project_id][day] = projects[project_id].get(day, 0.0) + hours
    return projects, instances, project_of


def anomalies_evaluate(*, organization: Organization, as_of: dt.datetime) -> list[AlertEvent]:
    """Raise the anomalies of yesterday and today (local) not raised before; returns them."""
    settings = alert_settings_get(organization)
    tz = zoneinfo.ZoneInfo(organization.timezone)
    today = as_of.astimezone(tz).date()
    days = [today - dt.timedelta(days=1), today]
    first = days[0] - dt.timedelta(days=BASELINE_DAYS)
    raised: list[AlertEvent] = []
    for metric, read, minimum in (
        (SPEND, spend_series, float(settings.anomaly_min_amount)),
        (IDLE_GPU_HOURS, idle_series, settings.anomaly_min_idle_gpu_hours),
    ):
        projects, instances, project_of = read(organization, first, today)
        for day in days:
            named: set[int] = set()
            for project_id, series in projects.items():
                verdict = judge(series, day, k=settings.anomaly_k, minimum=minimum)
                if verdict is None or not verdict.anomalous:
                    continue
                cause = _cause(instances, project_of, project_id, day, settings.anomaly_k)
                if cause is not None:
                    named.add(cause)
                event = _raise(
                    organization,
                    metric,
                    day,
                    verdict,
                    as_of,
                    project_id=project_id,
                    instance_id=cause,
                )
                if event is not None:
                    raised.append(event)
            for instance_id, series in instances.items():
                if instance_id in named:
                    continue
                verdict = judge(series, day, k=settings.anomaly_k, minimum=minimum)
                if verdict is None or not verdict.anomalous:
                    continue
                event = _raise(
                    organization,
                    metric,
                    day,
                    verdict,
                    as_of,
                    project_id=project_of.get(instance_id),
                    instance_id=instance_id,
                    subject="instance",
                )
                if event is not None:
                    raised.append(event)
    return raised


def _cause(
    instances: dict[int, Series],
    project_of: dict[int, int | None],
    project_id: int,
    day: dt.date,
    k: float,
) -> int | None:
    """The project's instance whose day rose most above its own baseline median."""
    best, best_rise = None, 0.0
    for instance_id, series in instances.items():
        if project_of.get(instance_id) != project_id:
            continue
        baseline = [
            series.get(day - dt.timedelta(days=n), 0.0) for n in range(1, BASELINE_DAYS + 1)
        ]
        rise = series.get(day, 0.0) - statistics.median(baseline)
        if rise > best_rise:
            best, best_rise = instance_id, rise
    return best


def _raise(
    organization: Organization,
    metric: str,
    day: dt.date,
    verdict: Verdict,
    as_of: dt.datetime,
    *,
    project_id: int | None,
    instance_id: int | None,
    subject: str = "project",
) -> AlertEvent | None:
    subject_id = project_id if subject == "project" else instance_id
    dedup_key = f"anomaly:{metric}:{subject}:{subject_id}:{day.isoformat()}"
    if AlertEvent.objects.filter(dedup_key=dedup_key).exists():
        return None
    project = Project.objects.filter(pk=project_id).first() if project_id else None
    instance = Instance.objects.filter(pk=instance_id).first() if instance_id else None
    unit = organization.currency if metric == SPEND else GPU_HOURS_UNIT
    try:
        with transaction.atomic():
            return alert_event_raise(
                organization=organization,
                started_at=as_of,
                kind=AlertKind.ANOMALY,
                severity=Severity.WARNING,
                project=project,
                instance=instance,
                dedup_key=dedup_key,
                evidence={
                    "metric": metric,
                    "day": day.isoformat(),
                    "value": round(verdict.value, 2),
                    "baseline_median": round(verdict.median, 4),
                    "baseline_mad": round(verdict.mad, 4),
                    "k": alert_settings_get(organization).anomaly_k,
                    "alert_line": round(verdict.line, 4),
                    "minimum_rise": verdict.minimum,
                    "baseline_values": [round(v, 4) for v in verdict.baseline],
                    "unit": unit,
                },
            )
    except IntegrityError:
        return None  # raised by a concurrent run
