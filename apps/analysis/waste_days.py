"""The fleet summary's per-instance sums kept per UTC day (``models.WasteDay``): built here,
read by the summary (``rolled_fleet``) for periods of whole UTC days.

``fleet_pricing`` sums, per instance and period, the runtime lines' money and the phase
minutes of the hours they bill, the labelled minutes of an instance priced without hourly
bills, its purchases' amortized runtime and its minutes not analysed yet. Every one of those is
a sum over the period's minutes, so a period of whole UTC days is the sum of its days' figures,
which ``_day_figures`` computes with ``fleet_pricing``'s own functions, and which are kept as
running totals: a period is each instance's total at its last day less the one at the day
before its first, two rows per instance whatever the period's length, instead of ~30,000
instance-days recomputed per request (~100 ms for a 1,000-instance month). Pricing those sums
is ``fleet_pricing.priced``, as for the bills, so the figures are the same (the tests compare
them figure by figure).

Written on the events that change those figures, after the rollups they read:
- bill lines changed (``billed_hours.on_bill_lines_changed``, after ``BilledHoursDay``): the
  UTC days of the changed bill months, every instance;
- the analysis rewrote ``PhaseDay`` (``billed_hours_phases_refresh``): those days and instances.
Everything else the summary prices by (an instance's project, cards, state, launch and
termination, its list price) is read with the instance, so changing it needs no rebuild.
Minutes of GPU utilization that arrive before the analysis has run over them count as
``no_metrics`` here rather than ``not_analysed`` until it has (it runs after every metrics
sync: minutes). A period the rows do not cover (``WasteDayState``), or not of whole UTC days,
is read from the bills and phases. PostgreSQL only, like ``fleet_pricing``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import numpy as np
from django.db import connection
from django.db.models import Max, Min
from django.utils import timezone

from apps.analysis import fleet_pricing, no_data, pricing
from apps.analysis.engine import REAL_PHASES, Phase
from apps.analysis.fleet_waste import FleetWaste
from apps.analysis.models import PhaseDay, WasteDay, WasteDayState, phase_key
from apps.analysis.selectors import InstanceRow, PricedInstance
from apps.billing.models import BillLine
from apps.billing.months import bill_months_span
from apps.billing.selectors import BilledRuntime, amortized_runtime
from apps.cloud.models import ChargeType, Instance
from apps.core.timegrid import MINUTES_PER_DAY, datetime_to_epoch_minute

_PHASES = len(Phase)
# The integer columns, in the order of the arrays below: the billed lines (days with any),
# the billed minutes of each phase (Phase order), the labelled minutes of each known phase,
# the purchases' covered seconds and the minutes not analysed yet.
_BILLED_MINUTES = [f"billed_{phase_key(p)}_minutes" for p in Phase]
_KNOWN_MINUTES = [f"{phase_key(p)}_minutes" for p in REAL_PHASES]
_INT_COLUMNS = [
    "billed_lines",
    *_BILLED_MINUTES,
    *_KNOWN_MINUTES,
    "spread_seconds",
    "pending_minutes",
]
_LINES = 0
_BILLED = slice(1, 1 + _PHASES)
_KNOWN = slice(1 + _PHASES, 1 + _PHASES + len(REAL_PHASES))
_SECONDS = _INT_COLUMNS.index("spread_seconds")
_PENDING = _INT_COLUMNS.index("pending_minutes")
_MONEY_COLUMNS = ["billed_cost", "spread_cost"]
_TEXT_COLUMNS = ["billed_currency", "spread_currency"]
_COLUMNS = [*_INT_COLUMNS, *_MONEY_COLUMNS, *_TEXT_COLUMNS]
_TABLE = WasteDay._meta.db_table
_ZERO = Decimal(0)


@dataclasses.dataclass
class _Days:
    """Figures of ``instances`` x consecutive days: integers, money and currencies."""

    ints: np.ndarray  # (instances, days, len(_INT_COLUMNS)) int64
    money: list[list[list[Decimal]]]  # [instance][day] -> [billed_cost, spread_cost]
    text: list[list[list[str]]]  # [instance][day] -> [billed_currency, spread_currency]

    @classmethod
    def zeros(cls, instances: int, days: int) -> _Days:
        return cls(
            ints=np.zeros((instances, days, len(_INT_COLUMNS)), dtype=np.int64),
            money=[[[_ZERO, _ZERO] for _ in range(days)] for _ in range(instances)],
            text=[[["", ""] for _ in range(days)] for _ in range(instances)],
        )


# ---------------------------------------------------------------------------------------------
# Writing


def waste_days_rebuild(
    *,
    organization_id: int,
    day_from: dt.date,
    day_to: dt.date,
    instance_ids: Sequence[int] | None = None,
) -> None:
    """Compute again the figures of the UTC days ``[day_from, day_to]`` (of ``instance_ids``,
    default every GPU instance of the organization) and rewrite the running totals from
    ``day_from`` on, in the caller's transaction.

    Concurrent rebuilds of one organization wait for each other (a lock on its state row). A
    rebuild of some instances does nothing for an organization whose rows were never built
    (its summary reads the bills until a rebuild of every instance builds them). A rebuild of
    every instance that does not join the days covered (the first, or one after a gap)
    starts the running totals again from ``day_from``.
    """
    if connection.vendor != "postgresql":
        return
    today = timezone.now().astimezone(dt.UTC).date()
    day_to = min(day_to, today)
    every = instance_ids is None
    covered = _lock(organization_id, every_instance=every)
    if covered is None:
        return
    first, last = covered
    fresh = first > last or day_from > last + _DAY or day_from < first
    if fresh and not every:
        day_from = max(day_from, first)  # nothing before the running totals' start is read
        fresh = False
    if day_to < day_from:
        return
    # The rows run to the last day computed, or on to the last day covered (its figures kept).
    end = day_to if fresh else max(day_to, last)
    instances = _rebuilt_instances(organization_id, day_from, end, instance_ids)
    ids = [instance.pk for instance in instances]
    days = (end - day_from).days + 1
    figures = _Days.zeros(len(instances), days)
    base = _Days.zeros(len(instances), 1)
    if not fresh:
        _stored(base, organization_id, ids, day_from - _DAY, 1)
        if day_to < end:
            _stored(figures, organization_id, ids, day_from, days)
            _to_daily(figures, base)
    for offset in range((day_to - day_from).days + 1):
        _day_figures(figures, offset, instances, day_from + dt.timedelta(days=offset))
    with connection.cursor() as cursor:
        if fresh:
            cursor.execute(f"DELETE FROM {_TABLE} WHERE organization_id = %s", [organization_id])
        elif every:
            cursor.execute(
                f"DELETE FROM {_TABLE} WHERE organization_id = %s AND day >= %s",
                [organization_id, day_from],
            )
        else:
            cursor.execute(
                f"DELETE FROM {_TABLE} WHERE organization_id = %s AND day >= %s"
                " AND instance_id = ANY(%s)",
                [organization_id, day_from, ids],
            )
    _insert_running_totals(organization_id, day_from, ids, figures, base)
    if every:
        # Every row from the first day to ``end`` now holds what the data says (today's: so
        # far; every write of today's bills and phases rebuilds it again).
        WasteDayState.objects.filter(organization_id=organization_id).update(
            first_day=day_from if fresh else first, last_day=end
        )


_DAY = dt.timedelta(days=1)
# A rebuild of every instance computes at most this many days back from the last: the
# summary's longest period (93 days) and some. Older periods are read from the bills.
FULL_BUILD_DAYS = 100


def on_bill_lines_changed(*, organization_id: int, months: Sequence[str] | None) -> None:
    """Bill lines of ``months`` (None: any) changed: rebuild the days they bill or spread
    their purchases over (a yearly renewal reaches into the next year's days), up to the
    last day any of them reaches."""
    lines = BillLine.objects.filter(organization_id=organization_id)
    if months is not None:
        if not months:
            return
        lines = lines.filter(month__in=list(months))
    reach = lines.aggregate(first=Min("fee_begin_at"), last=Max("fee_end_at"))
    if reach["last"] is None:
        return
    today = timezone.now().astimezone(dt.UTC).date()
    day_to = min(reach["last"].astimezone(dt.UTC).date(), today)
    day_from = reach["first"].astimezone(dt.UTC).date()
    if months is not None:
        # Whole UTC days of the months: a day they share with a month not synced is rebuilt
        # from all of its lines.
        begin, _end = bill_months_span(organization_id, months)
        day_from = min(day_from, begin.astimezone(dt.UTC).date())
    waste_days_rebuild(
        organization_id=organization_id,
        day_from=max(day_from, day_to - dt.timedelta(days=FULL_BUILD_DAYS)),
        day_to=day_to,
    )


def _lock(organization_id: int, *, every_instance: bool) -> tuple[dt.date, dt.date] | None:
    """Lock the organization's state row; its (first, last) covered days, (max, min) when it
    was just created, None when a rebuild of some instances finds none."""
    with connection.cursor() as cursor:
        if every_instance:
            cursor.execute(
                f"""INSERT INTO {WasteDayState._meta.db_table}
                        (organization_id, first_day, last_day, rebuilt_at)
                    VALUES (%s, %s, %s, now())
                    ON CONFLICT (organization_id) DO UPDATE SET rebuilt_at = now()
                    RETURNING first_day, last_day""",
                [organization_id, dt.date.max, dt.date.min],
            )
        else:
            cursor.execute(
                f"SELECT first_day, last_day FROM {WasteDayState._meta.db_table}"
                " WHERE organization_id = %s FOR UPDATE",
                [organization_id],
            )
        row = cursor.fetchone()
    return None if row is None else (row[0], row[1])


def _rebuilt_instances(
    organization_id: int, day_from: dt.date, last: dt.date, instance_ids: Sequence[int] | None
) -> list[InstanceRow]:
    """The organization's GPU instances that get rows from ``day_from``: launched by ``last`` and
    not terminated more than ``FULL_BUILD_DAYS`` before ``day_from`` (an instance keeps its
    last running totals that long, so that any period it was part of finds its row)."""
    start = dt.datetime.combine(day_from - dt.timedelta(days=FULL_BUILD_DAYS), dt.time(), dt.UTC)
    end = dt.datetime.combine(last + _DAY, dt.time(), tzinfo=dt.UTC)
    rows = (
        Instance.objects.filter(organization_id=organization_id, gpu_count__gt=0)
        .exclude(terminated_at__lte=start)
        .exclude(launched_at__gte=end)
        .order_by("pk")
    )
    if instance_ids is not None:
        rows = rows.filter(pk__in=list(instance_ids))
    # Every field but ``tags`` (no pricing reads them), read in InstanceRow's order.
    fields = [f for f in InstanceRow._fields if f != "tags"]
    at = InstanceRow._fields.index("tags")
    return [InstanceRow._make((*row[:at], None, *row[at:])) for row in rows.values_list(*fields)]


def _stored(figures: _Days, organization_id: int, ids: list[int], day: dt.date, days: int) -> None:
    """Fill ``figures`` with the stored running totals of ``days`` days from ``day`` (a day
    without a row carries the one before it; none before: zeros)."""
    if not ids or not days:
        return
    position = {instance_id: row for row, instance_id in enumerate(ids)}
    rows = (
        WasteDay.objects.filter(
            organization_id=organization_id,
            instance_id__in=ids,
            day__gte=day,
            day__lt=day + dt.timedelta(days=days),
        )
        .order_by("instance_id", "day")
        .values_list("instance_id", "day", *_COLUMNS)
    )
    by_instance: dict[int, list[tuple[int, list[Any]]]] = {}
    for instance_id, on, *values in rows:
        by_instance.setdefault(instance_id, []).append(((on - day).days, values))
    width = len(_INT_COLUMNS)
    for instance_id, stored in by_instance.items():
        row = position[instance_id]
        ends = [offset for offset, _values in stored[1:]] + [days]
        for (offset, values), until in zip(stored, ends, strict=True):
            figures.ints[row, offset:until] = values[:width]
            for later in range(offset, until):
                figures.money[row][later] = list(values[width : width + 2])
                figures.text[row][later] = list(values[width + 2 :])


def _to_daily(figures: _Days, base: _Days) -> None:
    """Running totals (from ``base``'s) to each day's own figures."""
    before = base.ints[:, :1]
    figures.ints[:] = np.diff(figures.ints, axis=1, prepend=before)
    for row, days in enumerate(figures.money):
        previous = base.money[row][0]
        for day, money in enumerate(days):
            days[day] = [money[0] - previous[0], money[1] - previous[1]]
            previous = money


# The known phases' minutes of a day, from PhaseDay's generated day columns (analysis 0009).
_KNOWN_SQL = f"""
    SELECT instance_id, {", ".join(_KNOWN_MINUTES)} FROM {PhaseDay._meta.db_table}
    WHERE organization_id = %s AND day = %s
"""


def _day_figures(
    figures: _Days, offset: int, instances: Sequence[PricedInstance], day: dt.date
) -> None:
    """The day's figures of every instance, as ``fleet_pricing`` sums them for a period."""
    if not instances:
        return
    start = dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)
    end = start + _DAY
    first = datetime_to_epoch_minute(start)
    state = fleet_pricing.billed_state(instances, start, end)
    fleet_pricing.span_minutes(state, first, first + MINUTES_PER_DAY)
    position = {instance.pk: row for row, instance in enumerate(instances)}
    ids = list(position)
    spread = amortized_runtime(ids, start, end)
    pending = no_data._not_analysed_minutes(ids, start, end)
    with connection.cursor() as cursor:
        cursor.execute(_KNOWN_SQL, [instances[0].organization_id, day])
        known = cursor.fetchall()
    ints = figures.ints[:, offset]
    ints[:] = 0
    for row, instance in enumerate(instances):
        item = state[instance.pk]
        money, text = [_ZERO, _ZERO], ["", ""]
        if item.billed:
            ints[row, _LINES] = 1
            ints[row, _BILLED] = item.minutes
            money[0] = item.whole + pricing._to_decimal(item.partial)
            text[0] = item.currency
        bought = spread.get(instance.pk)
        if bought is not None:
            ints[row, _SECONDS] = bought.seconds
            money[1], text[1] = bought.cost, bought.currency
        ints[row, _PENDING] = pending.get(instance.pk, 0)
        figures.money[row][offset] = money
        figures.text[row][offset] = text
    for instance_id, *minutes in known:
        at = position.get(instance_id)
        if at is not None:
            ints[at, _KNOWN] = [int(m or 0) for m in minutes]


def _insert_running_totals(
    organization_id: int, day_from: dt.date, ids: list[int], figures: _Days, base: _Days
) -> None:
    """Insert the running totals (from ``base``'s, the day before ``day_from``) of every
    instance with anything in them, one row per day, day by day: a period reads the rows of
    two days, which then lie on a few blocks each instead of one block per instance."""
    if not ids:
        return
    days = figures.ints.shape[1]
    running = base.ints[:, :1] + np.cumsum(figures.ints, axis=1)
    columns: dict[str, list[Any]] = {name: [] for name in ["instance_id", "day", *_COLUMNS]}
    dates = [day_from + dt.timedelta(days=d) for d in range(days)]
    for row, instance_id in enumerate(ids):
        billed, bought = base.money[row][0]
        currencies = list(base.text[row][0])
        money = figures.money[row]
        text = figures.text[row]
        if not running[row, -1].any() and not (
            billed or bought or any(m[0] or m[1] for m in money)
        ):
            continue  # never anything: no rows (it reads as zeros)
        for day in range(days):
            billed += money[day][0]
            bought += money[day][1]
            currencies = [new or old for new, old in zip(text[day], currencies, strict=True)]
            columns["instance_id"].append(instance_id)
            columns["day"].append(dates[day])
            columns["billed_cost"].append(billed)
            columns["spread_cost"].append(bought)
            columns["billed_currency"].append(currencies[0])
            columns["spread_currency"].append(currencies[1])
        for index, name in enumerate(_INT_COLUMNS):
            columns[name].extend(running[row, :, index].tolist())
    if not columns["instance_id"]:
        return
    types = {"instance_id": "bigint", "day": "date"}
    types.update(dict.fromkeys(_INT_COLUMNS, "bigint"))
    types.update(dict.fromkeys(_MONEY_COLUMNS, "numeric"))
    types.update(dict.fromkeys(_TEXT_COLUMNS, "text"))
    names = list(columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""INSERT INTO {_TABLE} (organization_id, {", ".join(names)})
                SELECT %s, * FROM unnest({", ".join(f"%s::{types[n]}[]" for n in names)})
                    AS r({", ".join(names)})
                ORDER BY r.day, r.instance_id""",
            [organization_id, *(columns[n] for n in names)],
        )


# ---------------------------------------------------------------------------------------------
# Reading


@dataclasses.dataclass(frozen=True)
class RolledFleet:
    """A period's fleet read from the rows: the summary's instances and their figures."""

    instances: list[InstanceRow]
    """The GPU instances of the period (``selectors.gpu_instance_rows_in_period``'s rows;
    of one billed by the hour in the period, what only pricing by the hour reads is None:
    its account, launch, termination, zone and type)."""
    fleet: FleetWaste


def rolled_fleet(
    *, organization_id: int, start: dt.datetime, end: dt.datetime, currency: str
) -> RolledFleet | None:
    """``fleet_pricing.fleet_waste`` of the organization's GPU instances of ``[start, end)``
    from the rows, when it is whole UTC days they cover; else None.

    One query: the instances of the period (as ``gpu_instance_rows_in_period`` reads them)
    with the difference of their running totals at the period's last day and the day before
    its first; then ``fleet_pricing.priced``, as for the bills."""
    if not _whole_utc_days(start, end) or connection.vendor != "postgresql":
        return None
    day_from = start.astimezone(dt.UTC).date()
    last = end.astimezone(dt.UTC).date() - _DAY
    if not WasteDayState.objects.filter(
        organization_id=organization_id, first_day__lte=day_from, last_day__gte=last
    ).exists():
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            _ROLLED_SQL,
            {
                "org": organization_id,
                "start": start,
                "end": end,
                "last": last,
                "before": day_from - _DAY,
            },
        )
        rows = cursor.fetchall()
    instances = [
        InstanceRow._make(
            (*row[:_TAGS], json.loads(row[_TAGS]) if row[_TAGS] is not None else None, row[_STATE])
        )
        for row in rows
    ]
    width = len(_INT_COLUMNS)
    ints = np.array([row[_SUMS : _SUMS + width] for row in rows], dtype=np.int64).reshape(
        len(rows), width
    )
    billed = ints[:, _LINES] > 0
    minutes = np.zeros((len(rows), _PHASES), dtype=np.int64)
    minutes[billed] = ints[billed, _BILLED]
    first, stop = datetime_to_epoch_minute(start), datetime_to_epoch_minute(end)
    amortized: dict[int, BilledRuntime] = {}
    for row in np.flatnonzero(~billed).tolist():
        # Priced by the hour: every minute it existed, of the phases labelled (the rest
        # unknown), as ``fleet_pricing._existence_minutes`` counts them.
        known = ints[row, _KNOWN]
        minutes[row, 1:] = known
        a, b = fleet_pricing.existence_span(instances[row], first, stop)
        existed = max(b - a, 0)
        minutes[row, Phase.UNKNOWN] = max(existed - int(known.sum()), 0)
        if ints[row, _SECONDS] > 0 and instances[row].charge_type == ChargeType.PREPAID:
            # As ``pricing._hourly_prices`` reads purchases: a subscription's only.
            amortized[instances[row].pk] = BilledRuntime(
                cost=rows[row][_SUMS + width + 1],
                seconds=int(ints[row, _SECONDS]),
                currency=rows[row][_SUMS + width + 3] or "",
            )
    fleet = fleet_pricing.priced(
        instances,
        billed=billed,
        billed_costs=[
            row[_SUMS + width] if is_billed else None
            for row, is_billed in zip(rows, billed.tolist(), strict=True)
        ],
        billed_currencies=[row[_SUMS + width + 2] or "" for row in rows],
        minutes=minutes,
        start=start,
        end=end,
        currency=currency,
        amortized=amortized,
        pending={
            instances[row].pk: int(ints[row, _PENDING])
            for row in np.flatnonzero(ints[:, _PENDING]).tolist()
        },
    )
    return RolledFleet(instances=instances, fleet=fleet)


def _whole_utc_days(start: dt.datetime, end: dt.datetime) -> bool:
    if start.tzinfo is None or end.tzinfo is None or end <= start:
        return False
    midnight = dt.time()
    return start.astimezone(dt.UTC).time() == midnight and end.astimezone(dt.UTC).time() == midnight


def _difference(column: str) -> str:
    """A column's sum over the period: its running total at the last day less the day
    before the first (no row: nothing then)."""
    return f"COALESCE(e.{column}, 0) - COALESCE(b.{column}, 0)"


# The instance columns as ``InstanceRow`` has them (``tags`` only without a project, as
# ``gpu_instance_rows_in_period`` reads them), then the period's sums.
_INSTANCE_COLUMNS = [
    "id" if field == "pk" else field
    for field in InstanceRow._fields[: InstanceRow._fields.index("tags")]
]
_TAGS = len(_INSTANCE_COLUMNS)
_STATE = _TAGS + 1
_SUMS = _STATE + 1
# What only an instance priced by the hour needs (its existence, its price's keys, its
# purchases) is NULL for a billed one: ~10,000 values fewer to decode for 1,000 instances.
# The two days' rows are read by the (organization, day) index and hashed (a probe of the
# primary key per instance and day took twice as long), their differences taken once.
_UNBILLED_ONLY = {"launched_at", "terminated_at", "zone", "instance_type", "account_id"}
_ROLLED_SQL = f"""
    SELECT {
    ", ".join(
        f"CASE WHEN NOT d.billed THEN d.{c} END" if c in _UNBILLED_ONLY else f"d.{c}"
        for c in _INSTANCE_COLUMNS
    )
},
           CASE WHEN d.project_id IS NULL THEN d.tags END, d.state,
           {", ".join(f"d.{c}" for c in _INT_COLUMNS)},
           CASE WHEN d.billed THEN d.billed_cost END,
           CASE WHEN NOT d.billed THEN d.spread_cost END,
           {", ".join(f"d.{c}" for c in _TEXT_COLUMNS)}
    FROM (
        SELECT {", ".join(f"i.{c}" for c in _INSTANCE_COLUMNS)}, i.tags, i.state,
               {", ".join(f"({_difference(c)})::bigint AS {c}" for c in _INT_COLUMNS)},
               {", ".join(f"{_difference(c)} AS {c}" for c in _MONEY_COLUMNS)},
               {", ".join(f"e.{c}" for c in _TEXT_COLUMNS)},
               {_difference("billed_lines")} > 0 AS billed
        FROM {Instance._meta.db_table} i
        LEFT JOIN (
            SELECT * FROM {_TABLE} WHERE organization_id = %(org)s AND day = %(last)s
        ) e ON e.instance_id = i.id
        LEFT JOIN (
            SELECT * FROM {_TABLE} WHERE organization_id = %(org)s AND day = %(before)s
        ) b ON b.instance_id = i.id
        WHERE i.organization_id = %(org)s AND i.gpu_count > 0
          AND NOT COALESCE(i.terminated_at <= %(start)s, false)
          AND NOT COALESCE(i.launched_at >= %(end)s, false)
    ) d
    ORDER BY d.id
"""
