"""``pricing.instances_waste`` for a whole fleet, from the stored hourly phase minutes.

``pricing.instances_waste`` rebuilds every minute's label of every instance from the phase
segments and masks them with the billed hours: for a fleet's month that is ~300k segments read
and 43 M labels built per request. The same figures come from what the analysis already stores
per hour (``PhaseDay``, minutes of each phase in each UTC hour):

- the billed hours (runtime lines, ``apps.billing.runtime``, on whole hours, entirely inside the period) are summed
  in PostgreSQL: their cost per instance, and the minutes of each phase of those hours, read
  straight out of the packed ``PhaseDay`` bytes with ``get_byte`` in one grouped join;
- the few lines that are not (the hours cut by the period's start or end, a line not on whole
  hours) are handled as before, minute by minute, reading only those minutes' segments;
- an instance without runtime lines (priced from its list price) counts the phase
  minutes of its whole hours in the period from ``PhaseDay`` and of its partial first and last
  hours from the segments.

A minute no analysis labelled is ``unknown`` in both (an hour without a row counts 60 unknown
minutes), so the answer is the one of ``pricing.instances_waste``; the tests compare the two.
PostgreSQL only (``get_byte``); the embedded SQLite keeps the per-minute path.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

import numpy as np
from django.db import connection

from apps.analysis import pricing
from apps.analysis.billed_hours import PHASE_COLUMNS, REGULAR, billed_hours_ensure
from apps.analysis.engine import Phase
from apps.analysis.engine.waste import CENT, rounded_total
from apps.analysis.fleet_waste import FleetWaste
from apps.analysis.models import PHASE_DAY_SHAPE, PhaseDay
from apps.analysis.selectors import PricedInstance, period_labels
from apps.billing.runtime import HOURLY_LINE_MAX, RUNTIME_LINE_SQL
from apps.billing.selectors import BilledRuntime
from apps.core.timegrid import (
    MINUTES_PER_DAY,
    MINUTES_PER_HOUR,
    ceil_epoch_minute,
    date_to_epoch_day,
    datetime_to_epoch_minute,
    epoch_day_hour_starts,
    epoch_day_to_date,
    epoch_minute_to_date,
    epoch_minute_to_datetime,
)

_PHASES = len(Phase)
# Spans closer than this are read with one segment query.
_WINDOW_GAP_MINUTES = 120

# The period's runtime lines not summed by the rollup: those of the partial UTC days at
# the period's ends, read by the (organization, fee_begin_at) index (probing the (instance,
# fee_begin_at) index once per instance of a 1,000-instance fleet took 4-12 ms for an hour of
# lines, this 0.8 ms; other instances' rows are dropped in Python), and the irregular lines of
# the whole days the rollup counted (``other_lines``), by instance. Of those, the lines on
# whole hours entirely inside the period are summed per instance with the minutes of each
# known phase of their hours (distinct: two lines of one hour are one hour of use), read out
# of the packed PhaseDay bytes (byte 5 x hour + phase); every other line (cut by the period's
# start or end, or not on whole hours) comes back as a row, to be priced and masked minute by
# minute as ``pricing._billed`` does.
_LINE_COLUMNS = """instance_id, fee_begin_at, fee_end_at, cost, currency,
               (fee_begin_at >= %(start)s AND fee_begin_at < %(bulk_end)s
                AND date_trunc('hour', fee_begin_at) = fee_begin_at
                AND fee_end_at >= fee_begin_at + interval '59 minutes 59 seconds') AS whole_hour"""
_LINE_FILTER = f"""{RUNTIME_LINE_SQL} AND fee_end_at >= %(start)s"""
_SQL = f"""
    WITH lines AS MATERIALIZED (
        SELECT {_LINE_COLUMNS}
        FROM billing_billline
        WHERE organization_id = ANY(%(organizations)s) AND instance_id IS NOT NULL
          AND {_LINE_FILTER}
          AND fee_begin_at >= %(earliest)s AND fee_begin_at < %(rollup_from)s
        UNION ALL
        SELECT {_LINE_COLUMNS}
        FROM billing_billline
        WHERE organization_id = ANY(%(organizations)s) AND instance_id IS NOT NULL
          AND {_LINE_FILTER}
          AND fee_begin_at >= %(rollup_to)s AND fee_begin_at < %(end)s
        {{odd_lines}}
    ), hours AS (
        SELECT instance_id, fee_begin_at AS hour_start, SUM(cost) AS cost,
               MAX(currency) AS currency
        FROM lines WHERE whole_hour GROUP BY instance_id, fee_begin_at
    ), billed AS (
        SELECT h.instance_id, SUM(h.cost) AS cost, MAX(h.currency) AS currency,
               COUNT(*) AS hours, {{phase_sums}}
        FROM hours h
        LEFT JOIN analysis_phaseday d
          ON d.instance_id = h.instance_id AND d.day = (h.hour_start AT TIME ZONE 'UTC')::date
        GROUP BY h.instance_id
    )
    SELECT instance_id, cost, currency, hours, {{phase_columns}},
           NULL::timestamptz, NULL::timestamptz
    FROM billed
    UNION ALL
    SELECT instance_id, cost, currency, NULL, {{phase_nulls}}, fee_begin_at, fee_end_at
    FROM lines WHERE NOT whole_hour
"""
# The irregular lines of the days ``_rollup_days`` names, only when it names any: the planner
# costs this arm at ~1,000 lines per (instance, day) even for empty arrays and then runs the
# whole query with parallel workers, whose start took ~5 ms of a 6 ms query.
_ODD_LINES = f"""UNION ALL
        SELECT {_LINE_COLUMNS}
        FROM billing_billline
        JOIN unnest(%(odd_ids)s::bigint[], %(odd_days)s::timestamptz[]) AS odd(oi, od)
          ON instance_id = odd.oi AND fee_begin_at >= odd.od
          AND fee_begin_at < odd.od + interval '1 day'
        WHERE {_LINE_FILTER} AND NOT {REGULAR}"""
# The whole UTC days of the period from the billed-hours rollup, one row per instance: the
# billed days' cost, the number of billed hours and the known phase minutes of those hours
# (stored with each row), and the days with irregular lines. Read by the organizations' day
# index and the other instances' rows dropped in Python: a join to the fleet's ids was 1,000
# index probes visiting ~55,000 heap blocks (a fleet's rows of a month lie on ~1,200), and
# ``= ANY`` tests the fleet's array against each of 30,000 rows. The days with irregular lines
# are only counted here and listed by ``_ODD_DAYS_SQL`` when there are any: with an
# ``array_agg`` PostgreSQL sorted the 30,000 rows for a GroupAggregate (~35 ms), without it
# it hashes them (~10 ms).
_ROLLUP_WHERE = """b.organization_id = ANY(%(organizations)s)
      AND b.day >= %(day_from)s AND b.day < %(day_to)s"""
_ROLLUP_SQL = f"""
    SELECT b.instance_id,
           SUM(b.cost) FILTER (WHERE b.hours <> 0),
           MAX(b.currency) FILTER (WHERE b.hours <> 0),
           SUM(bit_count(b.hours::bit(32))), {", ".join(f"SUM(b.{c})" for c in PHASE_COLUMNS)},
           COUNT(*) FILTER (WHERE b.other_lines > 0)
    FROM analysis_billedhoursday b
    WHERE {_ROLLUP_WHERE}
    GROUP BY b.instance_id
"""
_ODD_DAYS_SQL = f"""
    SELECT b.instance_id, b.day FROM analysis_billedhoursday b
    WHERE {_ROLLUP_WHERE} AND b.other_lines > 0
"""
_PHASE_SUM = (
    "COALESCE(SUM(get_byte(d.minutes, "
    "EXTRACT(HOUR FROM h.hour_start AT TIME ZONE 'UTC')::int * {phases} + {phase})), 0) AS p{phase}"
)


@dataclasses.dataclass
class InstanceState:
    """One instance's sums over a period before pricing: billed money (``whole`` lines and
    the ``partial`` shares of lines cut by the period), minutes per phase, and the spans of
    minutes whose phases are still to be read from the segments."""

    whole: Decimal = Decimal(0)
    partial: Fraction = Fraction(0)
    currency: str = ""
    billed: bool = False
    minutes: np.ndarray = dataclasses.field(
        default_factory=lambda: np.zeros(_PHASES, dtype=np.int64)
    )
    spans: list[tuple[int, int]] = dataclasses.field(default_factory=list)


def instances_waste(
    *, instances: Sequence[PricedInstance], start: dt.datetime, end: dt.datetime, currency: str
) -> list[pricing.InstanceWaste]:
    """What ``pricing.instances_waste`` answers, read from the hourly rollups (see above)."""
    return fleet_waste(instances=instances, start=start, end=end, currency=currency).items()


def fleet_waste(
    *, instances: Sequence[PricedInstance], start: dt.datetime, end: dt.datetime, currency: str
) -> FleetWaste:
    """``instances_waste`` as columns, for readers that sum a fleet (``FleetWaste``).

    (The fleet summary reads a period of whole UTC days from ``waste_days`` instead, which
    keeps these sums per day: the same figures, the tests compare them.)"""
    if connection.vendor != "postgresql" or not instances:
        return FleetWaste.of_items(
            pricing.instances_waste(instances=instances, start=start, end=end, currency=currency)
        )
    state = billed_state(instances, start, end)
    unbilled = [i for i in instances if not state[i.pk].billed]
    first, last = datetime_to_epoch_minute(start), datetime_to_epoch_minute(end)
    _existence_minutes(unbilled, state, first, last)
    span_minutes(state, first, last)
    return _priced_state(instances, state, start=start, end=end, currency=currency)


def billed_state(
    instances: Sequence[PricedInstance], start: dt.datetime, end: dt.datetime
) -> dict[int, InstanceState]:
    """Each instance's runtime lines of ``[start, end)``: their cost and the phase minutes of
    the whole hours they bill (the lines cut by the period or not on whole hours are left as
    ``spans``, for ``span_minutes``)."""
    state = {instance.pk: InstanceState() for instance in instances}
    organizations = sorted({instance.organization_id for instance in instances})
    billed_hours_ensure(organizations)
    # The whole UTC days inside the period come from the rollup; the rest from the lines.
    day_from = (start.astimezone(dt.UTC) + dt.timedelta(days=1, microseconds=-1)).date()
    day_to = end.astimezone(dt.UTC).date()
    rollup_from = rollup_to = end
    odd: list[tuple[int, dt.datetime]] = []
    if day_to > day_from:
        rollup_from = dt.datetime.combine(day_from, dt.time(), tzinfo=dt.UTC)
        rollup_to = dt.datetime.combine(day_to, dt.time(), tzinfo=dt.UTC)
        odd = _rollup_days(state, organizations=organizations, day_from=day_from, day_to=day_to)
    params: dict[str, Any] = {
        "organizations": organizations,
        "start": start,
        "end": end,
        "earliest": start - HOURLY_LINE_MAX,
        "bulk_end": end - HOURLY_LINE_MAX,
        "rollup_from": rollup_from,
        "rollup_to": rollup_to,
        "odd_ids": [o[0] for o in odd],
        "odd_days": [o[1] for o in odd],
    }
    known_phases = [int(p) for p in Phase if p != Phase.UNKNOWN]
    sql = _SQL.format(
        phase_sums=", ".join(_PHASE_SUM.format(phases=_PHASES, phase=p) for p in known_phases),
        phase_columns=", ".join(f"p{p}" for p in known_phases),
        phase_nulls=", ".join("NULL" for _ in known_phases),
        odd_lines=_ODD_LINES if odd else "",
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    for instance_id, cost, money_currency, hours, *rest in rows:
        item = state.get(instance_id)
        if item is None:
            continue  # another instance of the organizations (edge hours read by organization)
        *known, begin, end_at = rest
        if hours is not None:
            # The whole billed hours, summed by PostgreSQL.
            item.currency, item.billed = money_currency, True
            item.whole += cost
            item.minutes[1:] += np.array([int(k) for k in known], dtype=np.int64)
            item.minutes[Phase.UNKNOWN] += hours * MINUTES_PER_HOUR - sum(int(k) for k in known)
            continue
        # Exactly ``pricing._billed``: the last second is inclusive (10:00:00-10:59:59).
        stop = end_at + dt.timedelta(seconds=1) if end_at.second == 59 else end_at
        span = (stop - begin).total_seconds()
        overlap = (min(stop, end) - max(begin, start)).total_seconds()
        if overlap <= 0 or span <= 0:
            continue
        if overlap >= span:
            item.whole += cost
        else:
            item.partial += Fraction(cost) * Fraction(int(overlap), int(span))
        item.currency, item.billed = money_currency, True
        item.spans.append((datetime_to_epoch_minute(begin), ceil_epoch_minute(stop)))
    return state


def _priced_state(
    instances: Sequence[PricedInstance],
    state: dict[int, InstanceState],
    *,
    start: dt.datetime,
    end: dt.datetime,
    currency: str,
) -> FleetWaste:
    """``priced`` of the per-instance sums of ``state``."""
    items = [state[instance.pk] for instance in instances]
    return priced(
        instances,
        billed=np.array([item.billed for item in items], dtype=bool),
        billed_costs=[
            item.whole + pricing._to_decimal(item.partial) if item.billed else None
            for item in items
        ],
        billed_currencies=[item.currency for item in items],
        minutes=np.array([item.minutes for item in items], dtype=np.int64).reshape(
            len(items), _PHASES
        ),
        start=start,
        end=end,
        currency=currency,
    )


def priced(
    instances: Sequence[PricedInstance],
    *,
    billed: np.ndarray,
    billed_costs: list[Decimal | None],
    billed_currencies: list[str],
    minutes: np.ndarray,
    start: dt.datetime,
    end: dt.datetime,
    currency: str,
    amortized: Mapping[int, BilledRuntime] | None = None,
    pending: Mapping[int, int] | None = None,
) -> FleetWaste:
    """The priced figures of a period's per-instance sums (row ``i`` is ``instances[i]``):
    a billed instance's money is its lines' (``billed_costs``), the others' their hourly price
    (``pricing._hourly_prices``; ``amortized``: their purchases' runtime in the period, when
    the caller has it) for every minute counted."""
    unbilled = [
        instance for instance, is_billed in zip(instances, billed, strict=True) if not is_billed
    ]
    prices = pricing._hourly_prices(unbilled, start, end, amortized=amortized)
    sources = [pricing.SOURCE_BILLS] * len(instances)
    currencies = [c or currency for c in billed_currencies]
    totals = np.zeros(len(instances), dtype=np.int64)
    for row in np.flatnonzero(billed).tolist():
        exact = billed_costs[row]
        assert exact is not None
        # ``rounded_total``'s rule for a billed total, without checking ~1,000 rows of
        # minutes counted here.
        totals[row] = int(exact.quantize(CENT, rounding=ROUND_HALF_UP).scaleb(2))
    for row in np.flatnonzero(~billed).tolist():
        instance = instances[row]
        price = prices.get(instance.pk)
        hourly = price.hourly if price else Decimal(0)
        totals[row] = int(rounded_total(minutes[row].tolist(), hourly).scaleb(2))
        sources[row] = price.source if price else pricing.SOURCE_UNPRICED
        currencies[row] = (price.currency if price else currency) or currency
    return FleetWaste.priced(
        instance_ids=[instance.pk for instance in instances],
        project_ids=[instance.project_id for instance in instances],
        gpu_counts=[instance.gpu_count for instance in instances],
        cost_sources=sources,
        currencies=currencies,
        billed_costs=billed_costs,
        minutes=minutes,
        total_cents=totals,
        pending_minutes=pending,
    )


def _rollup_days(
    state: dict[int, InstanceState], *, organizations: list[int], day_from: dt.date, day_to: dt.date
) -> list[tuple[int, dt.datetime]]:
    """Add the billed hours of the whole UTC days ``[day_from, day_to)`` from the rollup: their
    cost and the phase minutes of the billed hours (the rest of those hours unknown). Returns
    the (instance, day start) of the days with irregular lines, read line by line instead."""
    params: dict[str, Any] = {
        "organizations": organizations,
        "day_from": day_from,
        "day_to": day_to,
    }
    with connection.cursor() as cursor:
        cursor.execute(_ROLLUP_SQL, params)
        rows = cursor.fetchall()
        odd_rows = []
        if any(row[-1] and row[0] in state for row in rows):
            cursor.execute(_ODD_DAYS_SQL, params)
            odd_rows = cursor.fetchall()
    odd = sorted(
        (instance_id, dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC))
        for instance_id, day in odd_rows
        if instance_id in state
    )
    for instance_id, cost, money_currency, hours, *rest in rows:
        item = state.get(instance_id)
        if item is None:
            continue  # not one of the instances asked about
        known = rest[:-1]
        if not hours:
            continue
        item.whole += cost
        item.currency, item.billed = money_currency, True
        phases = [int(k) for k in known]
        item.minutes[1:] += phases
        item.minutes[Phase.UNKNOWN] += int(hours) * MINUTES_PER_HOUR - sum(phases)
    return odd


def existence_span(instance: PricedInstance, first: int, last: int) -> tuple[int, int]:
    """The epoch minutes ``[a, b)`` of ``[first, last)`` in which the instance existed
    (empty: ``b <= a``)."""
    a = first
    if instance.launched_at is not None:
        a = max(datetime_to_epoch_minute(instance.launched_at), first)
    b = last
    if instance.terminated_at is not None:
        b = min(max(datetime_to_epoch_minute(instance.terminated_at), first), last)
    return a, b


def _existence_minutes(
    instances: Sequence[PricedInstance], state: dict[int, InstanceState], first: int, last: int
) -> None:
    """Phase minutes of the part of the period each unbilled instance existed: whole hours from
    ``PhaseDay``, the partial first and last hours left as spans for the segments."""
    ranges: dict[int, tuple[int, int]] = {}
    for instance in instances:
        a, b = existence_span(instance, first, last)
        if b <= a:
            continue
        hours_from, hours_to = (
            -(-a // MINUTES_PER_HOUR) * MINUTES_PER_HOUR,
            (b // MINUTES_PER_HOUR) * MINUTES_PER_HOUR,
        )
        if hours_to <= hours_from:
            state[instance.pk].spans.append((a, b))
            continue
        ranges[instance.pk] = (hours_from, hours_to)
        state[instance.pk].spans.extend(s for s in ((a, hours_from), (hours_to, b)) if s[1] > s[0])
    if not ranges:
        return
    for instance_id, r in ranges.items():
        state[instance_id].minutes[Phase.UNKNOWN] += r[1] - r[0]
    if connection.vendor == "postgresql":
        rows: Iterable[tuple[int, dt.date, Any]] = _phase_days(ranges, state)
    else:
        low = min(r[0] for r in ranges.values())
        high = max(r[1] for r in ranges.values())
        rows = (
            PhaseDay.objects.filter(
                instance_id__in=list(ranges),
                day__gte=epoch_minute_to_date(low),
                day__lte=epoch_minute_to_date(high - 1),
            )
            .values_list("instance_id", "day", "minutes")
            .iterator(chunk_size=2000)
        )
    # Decoded all at once (one array of every row's hours): row by row, the numpy calls on
    # 24 x 5 bytes cost ~0.1 s for the ~4,000 rows of 150 prepaid instances' month.
    ids: list[int] = []
    days: list[int] = []
    raws: list[bytes] = []
    for instance_id, day, raw in rows:
        ids.append(instance_id)
        days.append(date_to_epoch_day(day))
        raws.append(bytes(raw))
    if not ids:
        return
    counts = np.frombuffer(b"".join(raws), dtype=np.uint8).reshape(len(raws), *PHASE_DAY_SHAPE)
    bounds = np.array([ranges[instance_id] for instance_id in ids], dtype=np.int64)
    starts = epoch_day_hour_starts(np.array(days, dtype=np.int64))
    inside = (starts >= bounds[:, :1]) & (starts < bounds[:, 1:])
    known = (counts[:, :, 1:].astype(np.int64) * inside[:, :, None]).sum(axis=1)
    order = sorted(set(ids))
    position = {instance_id: index for index, instance_id in enumerate(order)}
    summed = np.zeros((len(order), known.shape[1]), dtype=np.int64)
    np.add.at(summed, np.array([position[i] for i in ids], dtype=np.intp), known)
    for instance_id, row in zip(order, summed, strict=True):
        _known(state[instance_id], row)


def _known(item: InstanceState, minutes: Sequence[int] | np.ndarray) -> None:
    """Minutes of the known phases (1..4) counted unknown until now: they are known after all."""
    row = np.asarray(minutes, dtype=np.int64)
    item.minutes[1:] += row
    item.minutes[Phase.UNKNOWN] -= int(row.sum())


# In one query: the known phases' minutes of whole UTC days, per instance and range of days
# (PhaseDay's generated day columns, migration analysis 0009, summed by PostgreSQL), and the
# packed bytes of the days a range covers only in part, to be decoded hour by hour.
_PHASE_DAYS_SQL = f"""
    SELECT p.instance_id, NULL::date, NULL::bytea, {", ".join(f"SUM(p.{c})" for c in PHASE_COLUMNS)}
    FROM {PhaseDay._meta.db_table} p
    JOIN unnest(%s::bigint[], %s::date[], %s::date[]) AS w(i, first_day, end_day)
      ON p.instance_id = w.i AND p.day >= w.first_day AND p.day < w.end_day
    GROUP BY p.instance_id
    UNION ALL
    SELECT p.instance_id, p.day, p.minutes, {", ".join("NULL" for _ in PHASE_COLUMNS)}
    FROM {PhaseDay._meta.db_table} p
    JOIN unnest(%s::bigint[], %s::date[]) AS e(i, d) ON p.instance_id = e.i AND p.day = e.d
"""


def _phase_days(
    ranges: dict[int, tuple[int, int]], state: dict[int, InstanceState]
) -> list[tuple[int, dt.date, Any]]:
    """Add the known phase minutes of the whole UTC days of each instance's range (hour-aligned
    epoch minutes); returns the (instance, day, packed minutes) of the days the range covers
    only in part."""
    whole: list[tuple[int, dt.date, dt.date]] = []
    edges: list[tuple[int, dt.date]] = []
    for instance_id, (a, b) in ranges.items():
        first_whole = -(-a // MINUTES_PER_DAY)
        end_whole = b // MINUTES_PER_DAY
        if end_whole <= first_whole:
            edges.extend((instance_id, day) for day in _days_touched(a, b))
            continue
        whole.append((instance_id, epoch_day_to_date(first_whole), epoch_day_to_date(end_whole)))
        if a < first_whole * MINUTES_PER_DAY:
            edges.append((instance_id, epoch_minute_to_date(a)))
        if b > end_whole * MINUTES_PER_DAY:
            edges.append((instance_id, epoch_day_to_date(end_whole)))
    with connection.cursor() as cursor:
        cursor.execute(
            _PHASE_DAYS_SQL,
            [
                [w[0] for w in whole],
                [w[1] for w in whole],
                [w[2] for w in whole],
                [e[0] for e in edges],
                [e[1] for e in edges],
            ],
        )
        rows = cursor.fetchall()
    partial: list[tuple[int, dt.date, Any]] = []
    for instance_id, day, raw, *known in rows:
        if day is None:
            _known(state[instance_id], [int(k or 0) for k in known])
        else:
            partial.append((instance_id, day, raw))
    return partial


def _days_touched(a: int, b: int) -> list[dt.date]:
    """The UTC days of the epoch minutes ``[a, b)``."""
    return [
        epoch_day_to_date(day)
        for day in range(a // MINUTES_PER_DAY, (b - 1) // MINUTES_PER_DAY + 1)
    ]


def span_minutes(state: dict[int, InstanceState], first: int, last: int) -> None:
    """Add the phase minutes of every instance's leftover spans (clipped to the period), read
    from the segments of those minutes only, a few windows of nearby spans per query."""
    spans = sorted(
        (max(a, first), min(b, last), instance_id)
        for instance_id, item in state.items()
        for a, b in item.spans
        if min(b, last) > max(a, first)
    )
    windows: list[list[tuple[int, int, int]]] = []
    for span in spans:
        if windows and span[0] <= max(s[1] for s in windows[-1]) + _WINDOW_GAP_MINUTES:
            windows[-1].append(span)
        else:
            windows.append([span])
    for window in windows:
        a = min(s[0] for s in window)
        b = max(s[1] for s in window)
        ids = sorted({s[2] for s in window})
        labels = period_labels(
            instance_ids=ids, start=epoch_minute_to_datetime(a), end=epoch_minute_to_datetime(b)
        )
        masks = {instance_id: np.zeros(b - a, dtype=bool) for instance_id in ids}
        for s_a, s_b, instance_id in window:
            masks[instance_id][s_a - a : s_b - a] = True
        for row, instance_id in enumerate(ids):
            counted = np.bincount(labels[row][masks[instance_id]], minlength=_PHASES)
            state[instance_id].minutes += counted.astype(np.int64)
