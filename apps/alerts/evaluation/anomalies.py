"""Cost anomalies: a day of a project or instance far above its own trailing baseline.

Two daily series are watched, per project and per instance, in the organization's timezone.
A series holds a value only on the days that have data for it; a day without data is missing,
never a zero:

- **spend**: the bill lines' real cost per day, read through ``daily_spend`` (the one reader
  of spend here). A subject's series starts on its first billed day among the days read and
  has a value on each later day whose bills the organization has (a day with any bill line):
  0 when the subject had none that day (it existed, the bills were synced, it cost nothing). A
  day before the subject's first bill (it did not exist yet, or its bills were not synced) or
  a day without a single bill line in the organization (not synced) is missing;
- **idle GPU-hours**: the analysis' idle minutes x cards / 60 of the days the analysis has
  minutes of (``phase_minutes_daily``): a day never analysed, or without metrics, is missing.

The baseline of day D is the values of the days with data among the ``BASELINE_DAYS`` (30)
before it; a subject with data on fewer than ``MIN_BASELINE_DAYS`` of them is not judged. With
m the median of those values and MAD their median absolute deviation from m, the spread used
is the MAD with a floor under it, and the alert line is::

    spread = max(MAD, floor_pct / 100 x m, floor_min)
    line   = m + k x 1.4826 x spread

and D is anomalous when ``value > line`` *and* ``value - m >= minimum``. 1.4826 scales a MAD
to a standard deviation's size on normal data (a spread a few spikes in the baseline do not
inflate); k, the minimum rise and the floor are the organization's alert settings:
``anomaly_k``, ``anomaly_min_amount`` / ``anomaly_min_idle_gpu_hours``, and
``anomaly_mad_floor_pct`` with ``anomaly_mad_floor_amount`` / ``anomaly_mad_floor_idle_gpu_hours``.
The floor keeps a flat series (MAD 0) from making every rise an anomaly: with the defaults
(k 4, 10 %, 10.00) a project spending a flat 1,000.00 a day alerts above
1,000 + 4 x 1.4826 x 100 = 1,593.04, not at 1,100. The alert's evidence carries every figure
(the baseline's days and values, median, MAD, the floor's terms, the spread and the line), so
a reader recomputes the line from it.

Yesterday (complete) and today (so far) are judged: today alerts as soon as its partial value
is already above the line. Each (metric, subject, day) alerts once (``AlertEvent.dedup_key``).
A project's alert names the instance whose own rise explains most of it; that instance's own
alert for the same day and metric is then not raised as well.

A day is *imported history* (``apps.alerts.evaluation.history``) when the part of it a
backfill imported (the data before the boundary) is anomalous on its own: the anomaly is then
recorded but not sent, and the history summary reports it. A day the live data made anomalous
alerts as usual.
"""

from __future__ import annotations

import datetime as dt
import statistics
import zoneinfo
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction

from apps.accounts.models import Organization
from apps.alerts.evaluation.history import history_boundary
from apps.alerts.models import AlertEvent, AlertKind, AlertSettings, Severity
from apps.alerts.services import alert_event_raise, alert_settings_get
from apps.alerts.wording import GPU_HOURS_UNIT
from apps.analysis.selectors import phase_minutes_daily
from apps.cloud.models import Instance, Project
from apps.costs.spend import spend_by

BASELINE_DAYS = 30
#: Days *with data* among the baseline's 30 that a subject needs to be judged.
MIN_BASELINE_DAYS = 7
#: Scales the MAD to a standard deviation's size for normally distributed data.
MAD_TO_SIGMA = 1.4826
SPEND = "spend"
IDLE_GPU_HOURS = "idle_gpu_hours"
FORMULA = (
    "alert_line = baseline_median + k x 1.4826 x spread; "
    "spread = max(baseline_mad, mad_floor_pct / 100 x baseline_median, mad_floor_min)"
)

Series = dict[dt.date, float]


@dataclass(frozen=True)
class Baseline:
    """The days with data before a judged day, and the line they draw."""

    days: list[dt.date]
    values: list[float]
    median: float
    mad: float
    floor_pct: float
    floor_min: float
    spread: float  # max(mad, floor_pct % of the median, floor_min)
    line: float  # median + k x 1.4826 x spread
    minimum: float

    def anomalous(self, value: float) -> bool:
        return value > self.line and value - self.median >= self.minimum


@dataclass(frozen=True)
class Verdict:
    value: float
    baseline: Baseline

    @property
    def anomalous(self) -> bool:
        return self.baseline.anomalous(self.value)


@dataclass(frozen=True)
class Sensitivity:
    """The settings that draw one metric's line."""

    k: float
    minimum: float
    floor_pct: float
    floor_min: float


def baseline_of(series: Series, day: dt.date, sensitivity: Sensitivity) -> Baseline | None:
    """The baseline of ``day``: its days with data among the 30 before it; None with fewer
    than ``MIN_BASELINE_DAYS`` of them."""
    days = [
        day - dt.timedelta(days=n)
        for n in range(BASELINE_DAYS, 0, -1)
        if day - dt.timedelta(days=n) in series
    ]
    if len(days) < MIN_BASELINE_DAYS:
        return None
    values = [series[d] for d in days]
    median = statistics.median(values)
    mad = statistics.median(abs(v - median) for v in values)
    spread = max(mad, sensitivity.floor_pct / 100 * median, sensitivity.floor_min)
    return Baseline(
        days=days,
        values=values,
        median=median,
        mad=mad,
        floor_pct=sensitivity.floor_pct,
        floor_min=sensitivity.floor_min,
        spread=spread,
        line=median + sensitivity.k * MAD_TO_SIGMA * spread,
        minimum=sensitivity.minimum,
    )


def judge(series: Series, day: dt.date, sensitivity: Sensitivity) -> Verdict | None:
    """The verdict on ``day`` against its baseline; None without enough days with data."""
    baseline = baseline_of(series, day, sensitivity)
    if baseline is None:
        return None
    return Verdict(value=series.get(day, 0.0), baseline=baseline)


def _local_day_bounds(
    tz: zoneinfo.ZoneInfo, first: dt.date, last: dt.date
) -> tuple[dt.datetime, dt.datetime]:
    return (
        dt.datetime.combine(first, dt.time(), tzinfo=tz),
        dt.datetime.combine(last + dt.timedelta(days=1), dt.time(), tzinfo=tz),
    )


def daily_spend(
    organization: Organization,
    first: dt.date,
    last: dt.date,
    *,
    until: dt.datetime | None = None,
) -> list[tuple[dt.date, int | None, int | None, float]]:
    """The organization's spend per (local day, project id, instance id) of days
    ``first..last``, in its currency: the one place the anomalies read spend.

    The bill lines' real cost (``costs.spend.spend_by``), summed by the day their hour began;
    with ``until``, only the lines that began before it (the part of those days known then).
    """
    tz = zoneinfo.ZoneInfo(organization.timezone)
    start, end = _local_day_bounds(tz, first, last)
    if until is not None:
        end = min(end, until)
    cells = spend_by(
        organization,
        start,
        end,
        ("day", "project", "instance"),
        tz=tz,
        currency=organization.currency,
    )
    return [
        (day, project_id, instance_id, float(total))
        for (day, project_id, instance_id), total in cells.items()
    ]


SeriesSet = tuple[dict[int, Series], dict[int, Series], dict[int, int | None]]


def spend_series(
    organization: Organization, first: dt.date, last: dt.date, until: dt.datetime | None = None
) -> SeriesSet:
    """Daily spend per project and per instance (local days ``first..last``), each from its
    first billed day on (see the module), and each instance's project as the bills allocated
    it."""
    rows = daily_spend(organization, first, last, until=until)
    projects: dict[int, Series] = defaultdict(dict)
    instances: dict[int, Series] = defaultdict(dict)
    project_of: dict[int, int | None] = {}
    billed_days = {day for day, _, _, _ in rows}
    for day, project_id, instance_id, total in rows:
        if project_id is not None:
            projects[project_id][day] = projects[project_id].get(day, 0.0) + total
        if instance_id is not None:
            instances[instance_id][day] = instances[instance_id].get(day, 0.0) + total
            project_of[instance_id] = project_id
    # A day of the organization's bills without a line of the subject, after its first: 0.
    for series in (*projects.values(), *instances.values()):
        since = min(series)
        for day in billed_days:
            if day > since:
                series.setdefault(day, 0.0)
    return projects, instances, project_of


def idle_series(
    organization: Organization, first: dt.date, last: dt.date, until: dt.datetime | None = None
) -> SeriesSet:
    """Daily idle GPU-hours per project and per instance (local days ``first..last``) on the
    days the analysis has minutes of."""
    minutes = phase_minutes_daily(
        organization=organization, start=first, end=last + dt.timedelta(days=1), until=until
    )
    instance_ids = {instance_id for instance_id, _ in minutes if instance_id is not None}
    rows = (
        Instance.objects.for_organization(organization)
        .filter(pk__in=instance_ids)
        .values_list("pk", "gpu_count", "project_id")
    )
    cards = {pk: gpu_count for pk, gpu_count, _ in rows}
    project_of: dict[int, int | None] = {pk: project_id for pk, _, project_id in rows}
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


def _sensitivities(settings: AlertSettings) -> dict[str, Sensitivity]:
    return {
        SPEND: Sensitivity(
            k=settings.anomaly_k,
            minimum=float(settings.anomaly_min_amount),
            floor_pct=settings.anomaly_mad_floor_pct,
            floor_min=float(settings.anomaly_mad_floor_amount),
        ),
        IDLE_GPU_HOURS: Sensitivity(
            k=settings.anomaly_k,
            minimum=settings.anomaly_min_idle_gpu_hours,
            floor_pct=settings.anomaly_mad_floor_pct,
            floor_min=settings.anomaly_mad_floor_idle_gpu_hours,
        ),
    }


class _ImportedPart:
    """Whether a verdict of a day is about imported history: the part of the day before the
    boundary, read once per day that straddles it, is anomalous on its own."""

    def __init__(
        self,
        organization: Organization,
        read: Callable[..., SeriesSet],
        boundary: dt.datetime | None,
    ) -> None:
        self.organization = organization
        self.read = read
        self.boundary = boundary
        self.tz = zoneinfo.ZoneInfo(organization.timezone)
        self._parts: dict[dt.date, SeriesSet] = {}

    def __call__(self, verdict: Verdict, day: dt.date, subject: str, subject_id: int) -> bool:
        if self.boundary is None:
            return False
        start, end = _local_day_bounds(self.tz, day, day)
        if self.boundary >= end:
            return True
        if self.boundary <= start:
            return False
        if day not in self._parts:
            self._parts[day] = self.read(self.organization, day, day, until=self.boundary)
        projects, instances, _ = self._parts[day]
        series = projects if subject == "project" else instances
        return verdict.baseline.anomalous(series.get(subject_id, {}).get(day, 0.0))


def anomalies_evaluate(*, organization: Organization, as_of: dt.datetime) -> list[AlertEvent]:
    """Raise the anomalies of yesterday and today (local) not raised before; returns them."""
    settings = alert_settings_get(organization)
    sensitivities = _sensitivities(settings)
    boundary = history_boundary(organization, as_of=as_of)
    tz = zoneinfo.ZoneInfo(organization.timezone)
    today = as_of.astimezone(tz).date()
    days = [today - dt.timedelta(days=1), today]
    first = days[0] - dt.timedelta(days=BASELINE_DAYS)
    raised: list[AlertEvent] = []
    readers: tuple[tuple[str, Callable[..., SeriesSet], dt.datetime | None], ...] = (
        (SPEND, spend_series, boundary.bills),
        (IDLE_GPU_HOURS, idle_series, boundary.metrics),
    )
    for metric, read, metric_boundary in readers:
        sensitivity = sensitivities[metric]
        projects, instances, project_of = read(organization, first, today)
        imported = _ImportedPart(organization, read, metric_boundary)
        for day in days:
            named: set[int] = set()
            for project_id, series in projects.items():
                verdict = judge(series, day, sensitivity)
                if verdict is None or not verdict.anomalous:
                    continue
                cause = _cause(instances, project_of, project_id, day)
                if cause is not None:
                    named.add(cause)
                event = _raise(
                    organization,
                    metric,
                    day,
                    verdict,
                    sensitivity,
                    as_of,
                    project_id=project_id,
                    instance_id=cause,
                    imported=imported(verdict, day, "project", project_id),
                )
                if event is not None:
                    raised.append(event)
            for instance_id, series in instances.items():
                if instance_id in named:
                    continue
                verdict = judge(series, day, sensitivity)
                if verdict is None or not verdict.anomalous:
                    continue
                event = _raise(
                    organization,
                    metric,
                    day,
                    verdict,
                    sensitivity,
                    as_of,
                    project_id=project_of.get(instance_id),
                    instance_id=instance_id,
                    subject="instance",
                    imported=imported(verdict, day, "instance", instance_id),
                )
                if event is not None:
                    raised.append(event)
    return raised


def _cause(
    instances: dict[int, Series],
    project_of: dict[int, int | None],
    project_id: int,
    day: dt.date,
) -> int | None:
    """The project's instance whose day rose most above the median of its own days with data
    in the baseline (an instance new that day rose from nothing)."""
    best, best_rise = None, 0.0
    for instance_id, series in instances.items():
        if project_of.get(instance_id) != project_id:
            continue
        baseline = [
            series[d]
            for d in (day - dt.timedelta(days=n) for n in range(1, BASELINE_DAYS + 1))
            if d in series
        ]
        rise = series.get(day, 0.0) - (statistics.median(baseline) if baseline else 0.0)
        if rise > best_rise:
            best, best_rise = instance_id, rise
    return best


def _evidence(
    metric: str, day: dt.date, verdict: Verdict, sensitivity: Sensitivity, unit: str
) -> dict[str, Any]:
    baseline = verdict.baseline
    return {
        "metric": metric,
        "day": day.isoformat(),
        "value": round(verdict.value, 2),
        "baseline_days_with_data": len(baseline.days),
        "baseline_first_day": baseline.days[0].isoformat(),
        "baseline_last_day": baseline.days[-1].isoformat(),
        "baseline_values": [round(v, 4) for v in baseline.values],
        "baseline_median": round(baseline.median, 4),
        "baseline_mad": round(baseline.mad, 4),
        "mad_floor_pct": baseline.floor_pct,
        "mad_floor_min": baseline.floor_min,
        "spread": round(baseline.spread, 4),
        "k": sensitivity.k,
        "alert_line": round(baseline.line, 4),
        "minimum_rise": sensitivity.minimum,
        "formula": FORMULA,
        "unit": unit,
    }


def _raise(
    organization: Organization,
    metric: str,
    day: dt.date,
    verdict: Verdict,
    sensitivity: Sensitivity,
    as_of: dt.datetime,
    *,
    project_id: int | None,
    instance_id: int | None,
    subject: str = "project",
    imported: bool = False,
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
                imported=imported,
                evidence=_evidence(metric, day, verdict, sensitivity, unit),
            )
    except IntegrityError:
        return None  # raised by a concurrent run
