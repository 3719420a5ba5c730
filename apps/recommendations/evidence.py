"""Reading one organization's rule inputs: everything ``rules.evaluate`` needs, per instance.

A handful of queries for the whole fleet, whatever its size: hour rollups (the hourly GPU
summaries), the analysis' per-hour phase minutes and hour-of-week profiles, the billed runtime
and its components (billing's instance-day rollups and the lines of the partial days at the
window's edges), the
price catalog and the instance types. Nothing is computed per instance in SQL.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict
from decimal import Decimal, InvalidOperation

import numpy as np
from django.db import connection
from django.db.models import F, Sum, Value
from django.db.models.functions import Greatest, Least

from apps.accounts.models import Organization
from apps.analysis.engine import Evidence, missing_metrics
from apps.analysis.models import (
    PHASE_DAY_SHAPE,
    PHASE_KEYS,
    InstanceProfile,
    PhaseDay,
    PhaseSegment,
    phase_key,
)
from apps.billing.selectors import BilledRuntime, amortized_runtime, billed_runtime
from apps.cloud.models import ChargeType, Instance, InstancePrice, InstanceType
from apps.core.timegrid import (
    MINUTES_PER_HOUR,
    date_to_epoch_day,
    datetime_to_epoch_minute,
    epoch_day_hour_starts,
    floor_hour,
)
from apps.metrics.models import InstanceHourRollup
from apps.recommendations.models import RecommendationSettings
from apps.recommendations.rules import (
    DEFAULT_RULE_THRESHOLDS,
    BilledComponent,
    InstanceEvidence,
    Profile,
    ReservedPrice,
    RuleThresholds,
    TypeOffer,
)

logger = logging.getLogger(__name__)

_HOUR = dt.timedelta(hours=1)


def organization_rule_settings(
    organization: Organization,
) -> tuple[RuleThresholds, list[ReservedPrice]]:
    """The organization's effective thresholds and reserved-instance prices."""
    row = RecommendationSettings.objects.filter(organization=organization).first()
    if row is None:
        return DEFAULT_RULE_THRESHOLDS, []
    try:
        thresholds = DEFAULT_RULE_THRESHOLDS.with_overrides(row.thresholds or {})
    except ValueError:
        # Validated on write; an override a newer rule set rejects must not stop the run.
        logger.warning("recommendations: invalid thresholds of %s ignored", organization.pk)
        thresholds = DEFAULT_RULE_THRESHOLDS
    return thresholds, parse_reserved_prices(row.reserved_prices or [], organization.currency)


def parse_reserved_prices(raw: object, currency: str) -> list[ReservedPrice]:
    """Validate the organization's RI price table; ValueError naming the bad entry."""
    if not isinstance(raw, list):
        raise ValueError("reserved_prices: expected a list")
    out = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise ValueError(f"reserved_prices[{index}]: expected an object")
        try:
            hourly = Decimal(str(item["hourly"]))
            out.append(
                ReservedPrice(
                    region=str(item["region"]),
                    instance_type=str(item["instance_type"]),
                    hourly=hourly,
                    term_years=int(item.get("term_years", 1)),
                    currency=str(item.get("currency", currency)),
                )
            )
        except (KeyError, InvalidOperation, TypeError, ValueError) as error:
            raise ValueError(f"reserved_prices[{index}]: {error!s} missing or invalid") from None
        if hourly <= 0:
            raise ValueError(f"reserved_prices[{index}].hourly: must be positive")
    return out


def organization_evidence(
    *,
    organization: Organization,
    as_of: dt.datetime,
    thresholds: RuleThresholds,
    reserved: list[ReservedPrice] | None = None,
    days: int | None = None,
) -> list[InstanceEvidence]:
    """Rule inputs of every live GPU instance of the organization over the ``days`` (default:
    ``thresholds.lookback_days``) before ``as_of`` (floored to the hour)."""
    end = floor_hour(as_of)
    start = end - dt.timedelta(days=days or thresholds.lookback_days)
    instances = list(
        Instance.objects.for_organization(organization)
        .filter(gpu_count__gt=0)
        .exclude(terminated_at__lte=end)
        .exclude(launched_at__gte=end)
        .order_by("pk")
    )
    if not instances:
        return []
    ids = [instance.pk for instance in instances]
    hours = int((end - start) / _HOUR)
    hourly = _hourly_arrays(ids, start, end, hours)
    phases = _phase_minutes(organization, ids, start, end)
    phases_missing = _phase_minutes_missing(organization, ids, start, end)
    profiles = _profiles(ids)
    prepaid = [i.pk for i in instances if i.charge_type == ChargeType.PREPAID]
    billed = _billed([i.pk for i in instances if i.charge_type != ChargeType.PREPAID], start, end)
    # A subscription's price is its purchases' runtime amortized over the hours they cover.
    billed.update(amortized_runtime(prepaid, start, end))
    offers = _offers(instances)
    families = {offer.instance_type: offer.family for group in offers.values() for offer in group}
    out = []
    for row, instance in enumerate(instances):
        lo = max(start, instance.launched_at or start)
        bill = billed.get(instance.pk)
        out.append(
            InstanceEvidence(
                instance_id=instance.pk,
                provider_id=instance.provider_id,
                name=instance.name,
                region=instance.region,
                zone=instance.zone,
                instance_type=instance.instance_type,
                family=families.get(instance.instance_type) or instance.instance_type.split(".")[0],
                gpu_model=instance.gpu_model,
                gpu_count=instance.gpu_count,
                gpu_memory_gb=instance.gpu_memory_gb,
                charge_type=instance.charge_type,
                project_id=instance.project_id,
                start=start,
                end=end,
                existed_hours=max((end - lo) / _HOUR, 0.0),
                gpu_util_p95=hourly["gpu_util_pct_p95"][row],
                gpu_util_avg=hourly["gpu_util_pct_avg"][row],
                gpu_mem_avg=hourly["gpu_mem_used_pct_avg"][row],
                gpu_mem_p95=hourly["gpu_mem_used_pct_p95"][row],
                gpu_temp_p95=hourly["gpu_temp_c_p95"][row],
                observed_minutes=hourly["gpu_util_pct_minutes"][row],
                phase_minutes=phases.get(instance.pk, {}),
                phase_minutes_missing=phases_missing.get(instance.pk, {}),
                billed_runtime_cost=bill.cost if bill else Decimal(0),
                billed_hours=_hours(bill.seconds) if bill else Decimal(0),
                billed_components=_components(bill),
                currency=(bill.currency if bill else "") or organization.currency,
                offers=offers.get((instance.account_id, instance.zone), ()),
                reserved_prices=tuple(reserved or ()),
                profile=profiles.get(instance.pk),
                tags={str(k): str(v) for k, v in (instance.tags or {}).items()},
                state=instance.state,
                stop_charging_mode=instance.stop_charging_mode,
            )
        )
    return out


_HOURLY_COLUMNS = (
    "gpu_util_pct_p95",
    "gpu_util_pct_avg",
    "gpu_mem_used_pct_avg",
    "gpu_mem_used_pct_p95",
    "gpu_temp_c_p95",
    "gpu_util_pct_minutes",
)


def _hourly_arrays(
    ids: list[int], start: dt.datetime, end: dt.datetime, hours: int
) -> dict[str, np.ndarray]:
    """(instances, hours) arrays of the hour rollups; NaN (0 observed minutes) where absent."""
    row_of = {instance_id: row for row, instance_id in enumerate(ids)}
    arrays = {name: np.full((len(ids), hours), np.nan) for name in _HOURLY_COLUMNS}
    arrays["gpu_util_pct_minutes"][:] = 0.0
    if connection.vendor == "postgresql":
        _hourly_arrays_postgresql(arrays, row_of, start, end)
        return arrays
    rows = InstanceHourRollup.objects.filter(
        instance_id__in=ids, hour_start__gte=start, hour_start__lt=end
    ).values_list("instance_id", "hour_start", *_HOURLY_COLUMNS)
    first = datetime_to_epoch_minute(start)
    for instance_id, hour_start, *values in rows.iterator(chunk_size=10000):
        column = (datetime_to_epoch_minute(hour_start) - first) // MINUTES_PER_HOUR
        row = row_of[instance_id]
        for name, value in zip(_HOURLY_COLUMNS, values, strict=True):
            if value is not None:
                arrays[name][row, column] = value
    return arrays


def _hourly_arrays_postgresql(
    arrays: dict[str, np.ndarray], row_of: dict[int, int], start: dt.datetime, end: dt.datetime
) -> None:
    # One row per instance with its hours packed as big-endian records (hour index int4, then
    # each column as float8): 1,000 rows for a fleet instead of 336,000, decoded by numpy (a
    # Python loop over the rollup rows costs ten times the analysis' own reads). One aggregate
    # of the concatenated record, not one per column: a fifth less server time. ``date_part``
    # (double precision), not ``extract`` (numeric since PostgreSQL 14). No ORDER BY: the hour
    # index travels inside each record.
    record = " || ".join(
        ["int4send(((date_part('epoch', hour_start) - %s) / 3600)::int)"]
        + [f"float8send(coalesce({column}::float8, 'NaN'))" for column in _HOURLY_COLUMNS]
    )
    sql = (
        f"SELECT instance_id, string_agg({record}, '') FROM {InstanceHourRollup._meta.db_table} "
        "WHERE instance_id = ANY(%s) AND hour_start >= %s AND hour_start < %s GROUP BY instance_id"
    )
    layout = np.dtype([("hour", ">i4"), *((column, ">f8") for column in _HOURLY_COLUMNS)])
    with connection.cursor() as cursor:
        cursor.execute(sql, [start.timestamp(), list(row_of), start, end])
        for instance_id, packed in cursor.fetchall():
            row = row_of[instance_id]
            records = np.frombuffer(bytes(packed), dtype=layout)
            for name in _HOURLY_COLUMNS:
                arrays[name][row, records["hour"]] = records[name]
    minutes = arrays["gpu_util_pct_minutes"]
    minutes[np.isnan(minutes)] = 0.0


def _phase_minutes(
    organization: Organization, ids: list[int], start: dt.datetime, end: dt.datetime
) -> dict[int, dict[str, int]]:
    """Instance id -> minutes per phase key over the UTC hours of ``[start, end)``."""
    rows = list(
        PhaseDay.objects.for_organization(organization)
        .filter(instance_id__in=ids, day__gte=start.date(), day__lte=(end - _HOUR).date())
        .values_list("instance_id", "day", "minutes")
    )
    if not rows:
        return {}
    minutes = np.frombuffer(b"".join(bytes(row[2]) for row in rows), dtype=np.uint8)
    minutes = minutes.reshape(len(rows), *PHASE_DAY_SHAPE).astype(np.int64)
    hour_start = epoch_day_hour_starts(np.array([date_to_epoch_day(row[1]) for row in rows]))
    inside = (hour_start >= datetime_to_epoch_minute(start)) & (
        hour_start < datetime_to_epoch_minute(end)
    )
    sums = (minutes * inside[:, :, None]).sum(axis=1)
    out: dict[int, np.ndarray] = {}
    for (instance_id, _day, _raw), counts in zip(rows, sums, strict=True):
        out[instance_id] = out[instance_id] + counts if instance_id in out else counts
    return {
        instance_id: dict(zip(PHASE_KEYS, counts.tolist(), strict=True))
        for instance_id, counts in out.items()
    }


def _phase_minutes_missing(
    organization: Organization, ids: list[int], start: dt.datetime, end: dt.datetime
) -> dict[int, dict[str, dict[str, int]]]:
    """Instance id -> phase key -> metric -> minutes in ``[start, end)`` that were classified
    without that metric (the segments' evidence bits; unknown segments have none to miss).

    Summed in the database over the segments that lacked one: a fleet whose sources report
    every metric returns no rows."""
    rows = (
        PhaseSegment.objects.for_organization(organization)
        .filter(instance_id__in=ids, start_at__lt=end, end_at__gt=start)
        .exclude(evidence__in=[int(Evidence.FULL), int(Evidence.NONE)])
        .values("instance_id", "phase", "evidence")
        .annotate(span=Sum(Least(F("end_at"), Value(end)) - Greatest(F("start_at"), Value(start))))
    )
    out: dict[int, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(dict))
    for row in rows:
        minutes = int(row["span"].total_seconds() // 60)
        by_metric = out[row["instance_id"]][phase_key(row["phase"])]
        for metric in missing_metrics(row["evidence"]):
            by_metric[metric] = by_metric.get(metric, 0) + minutes
    return {
        instance_id: {key: dict(metrics) for key, metrics in by_phase.items()}
        for instance_id, by_phase in out.items()
    }


def _profiles(ids: list[int]) -> dict[int, Profile]:
    # Only the fields the rules read: decoding the unused JSON (medians, the off window's
    # runs) and building model instances is most of the cost for a large fleet.
    rows = InstanceProfile.objects.filter(instance_id__in=ids).values_list(
        "instance_id", "tz", "p95_pct", "coverage", "start_at", "end_at",
        "off_window_supporting_weeks",
    )  # fmt: skip
    return {
        instance_id: Profile(
            tz=tz,
            p95_pct=np.array(p95, dtype=np.float64),
            coverage=np.array(coverage, dtype=np.float64),
            start_at=start_at,
            end_at=end_at,
            supporting_weeks=weeks or 0,
        )
        for instance_id, tz, p95, coverage, start_at, end_at, weeks in rows
    }


def _billed(ids: list[int], start: dt.datetime, end: dt.datetime) -> dict[int, BilledRuntime]:
    """Instance id -> its runtime lines in the range, with every usage component.

    Summed by billing from its instance-day rollups (whole days) and the lines of the partial
    days at the edges: the same figures as over every line, which a test recomputes.
    """
    return billed_runtime(ids, start, end)


def _hours(seconds: int) -> Decimal:
    return (Decimal(seconds) / 3600).quantize(Decimal("0.001"))


def _components(bill: BilledRuntime | None) -> tuple[BilledComponent, ...]:
    if bill is None:
        return ()
    return tuple(
        BilledComponent(
            component_class=c.component_class,
            code=c.code,
            name=c.name,
            cost=c.cost,
            hours=_hours(c.seconds),
            runtime=c.is_runtime,
        )
        for c in bill.components
    )


def _offers(instances: list[Instance]) -> dict[tuple[int | None, str], tuple[TypeOffer, ...]]:
    """(account, zone) -> the types sold there with the account's prices."""
    accounts = {i.account_id for i in instances if i.account_id is not None}
    zones = {i.zone for i in instances}
    prices: dict[tuple[int, str, str], dict[str, InstancePrice]] = defaultdict(dict)
    for price in InstancePrice.objects.filter(account_id__in=accounts, zone__in=zones):
        prices[(price.account_id, price.zone, price.instance_type)][price.charge_type] = price
    types = {t.instance_type: t for t in InstanceType.objects.all()}
    out: dict[tuple[int | None, str], list[TypeOffer]] = defaultdict(list)
    for (account_id, zone, type_name), by_charge in prices.items():
        spec = types.get(type_name)
        if spec is None:
            continue
        payg = by_charge.get(ChargeType.POSTPAID_BY_HOUR)
        prepaid = by_charge.get(ChargeType.PREPAID)
        spot = by_charge.get(ChargeType.SPOTPAID)
        any_price = payg or prepaid or spot
        out[(account_id, zone)].append(
            TypeOffer(
                instance_type=type_name,
                family=spec.family,
                gpu_model=spec.gpu_model,
                gpu_count=spec.gpu_count,
                gpu_memory_gb=spec.gpu_memory_gb,
                hourly_postpaid=(payg.hourly or payg.hourly_list) if payg else None,
                monthly_prepaid=(prepaid.monthly or prepaid.monthly_list) if prepaid else None,
                hourly_spot=(spot.hourly or spot.hourly_list) if spot else None,
                currency=any_price.currency if any_price else "CNY",
            )
        )
    return {key: tuple(sorted(v, key=lambda o: o.instance_type)) for key, v in out.items()}
