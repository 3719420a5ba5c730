"""Writes of the billed-hours rollup (``models.BilledHoursDay``) from billing's bill lines.

Rebuilt on billing's ``bill_lines_changed`` (connected in ``AnalysisConfig.ready()``) for the
UTC days the changed bill months touch, and in full the first time an organization's summary
is read (``billed_hours_ensure``: lines written without the signal, or before the rollup
existed). It holds the runtime lines (``apps.billing.runtime``: every runtime component of an
hour, the hour counted once); ``REGULAR`` is the one definition of the regular ones among them;
``fleet_pricing`` reads every other line from the bill lines, so the two must agree on it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection, transaction

from apps.accounts.models import Organization
from apps.analysis.engine import REAL_PHASES
from apps.analysis.models import PHASE_DAY_SHAPE, BilledHoursDay, BilledHoursState, phase_key
from apps.billing.months import bill_months_span
from apps.billing.runtime import RUNTIME_LINE_SQL

# A regular hourly line: begins on a whole UTC hour and covers exactly that hour (to its 59:59,
# inclusive, or to the next hour's 00:00). Its billed minutes are that hour's 60.
REGULAR = (
    "(date_trunc('hour', fee_begin_at AT TIME ZONE 'UTC') = fee_begin_at AT TIME ZONE 'UTC'"
    " AND fee_end_at >= fee_begin_at + interval '59 minutes 59 seconds'"
    " AND fee_end_at <= fee_begin_at + interval '1 hour')"
)

# The phase minutes start at zero (the columns have no database default) and are set from
# PhaseDay by ``_PHASES_SET`` right after.
_INSERT = f"""
    INSERT INTO analysis_billedhoursday
        (organization_id, instance_id, day, cost, currency, hours, other_lines,
         idle_minutes, data_processing_minutes, evaluation_minutes, training_minutes)
    SELECT %(org)s, instance_id, (fee_begin_at AT TIME ZONE 'UTC')::date,
           COALESCE(SUM(cost) FILTER (WHERE {REGULAR}), 0),
           COALESCE(MAX(currency) FILTER (WHERE {REGULAR}), ''),
           COALESCE(bit_or(1 << EXTRACT(HOUR FROM fee_begin_at AT TIME ZONE 'UTC')::int)
                    FILTER (WHERE {REGULAR}), 0),
           COUNT(*) FILTER (WHERE NOT {REGULAR}), 0, 0, 0, 0
    FROM billing_billline
    WHERE organization_id = %(org)s AND instance_id IS NOT NULL
      AND {RUNTIME_LINE_SQL}
      AND fee_begin_at >= %(begin)s AND fee_begin_at < %(end)s
    GROUP BY instance_id, (fee_begin_at AT TIME ZONE 'UTC')::date
"""
_EVER = (
    dt.datetime(1970, 1, 1, tzinfo=dt.UTC),
    dt.datetime(9999, 1, 1, tzinfo=dt.UTC),
)


#: ``BilledHoursDay``'s column of each known phase's minutes, in Phase order.
PHASE_COLUMNS: tuple[str, ...] = tuple(f"{phase_key(p)}_minutes" for p in REAL_PHASES)
# The known phase minutes of each row's billed hours, from the day's PhaseDay bytes (byte
# phases x hour + phase; no row: none known). Only rows whose figures change are written.
_PHASES_SET = """
    UPDATE analysis_billedhoursday AS t SET {assign}
    FROM (
        SELECT b.instance_id, b.day, {sums}
        FROM analysis_billedhoursday b
        CROSS JOIN generate_series(0, 23) AS h(h)
        LEFT JOIN analysis_phaseday d ON d.instance_id = b.instance_id AND d.day = b.day
        WHERE {where}
        GROUP BY b.instance_id, b.day
    ) AS s
    WHERE t.instance_id = s.instance_id AND t.day = s.day
      AND ({columns}) IS DISTINCT FROM ({new_columns})
""".format(
    assign=", ".join(f"{c} = s.{c}" for c in PHASE_COLUMNS),
    sums=", ".join(
        f"COALESCE(SUM(get_byte(d.minutes, h.h * {PHASE_DAY_SHAPE[1]} + {int(p)}))"
        f" FILTER (WHERE b.hours & (1 << h.h) <> 0), 0) AS {c}"
        for p, c in zip(REAL_PHASES, PHASE_COLUMNS, strict=True)
    ),
    where="{where}",
    columns=", ".join(f"t.{c}" for c in PHASE_COLUMNS),
    new_columns=", ".join(f"s.{c}" for c in PHASE_COLUMNS),
)


def _utc_day_start(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)


# Takes the organization's lock (its state row, created or touched) and says whether the
# rollup was ever built before; concurrent rebuilds of one organization wait here.
_LOCK = """
    INSERT INTO analysis_billedhoursstate (organization_id, rebuilt_at) VALUES (%s, now())
    ON CONFLICT (organization_id) DO UPDATE SET rebuilt_at = now()
    RETURNING (xmax <> 0) AS existed
"""


# No savepoint: a handful of statements all-or-nothing with the caller's transaction (the
# summary's first read counts its queries).
@transaction.atomic(savepoint=False)
def billed_hours_rebuild(*, organization_id: int, months: Sequence[str] | None = None) -> None:
    """Rebuild the organization's ``BilledHoursDay`` rows of the UTC days the bill ``months``
    touch (all of them with ``months=None`` or on the first build).

    Whole UTC days are deleted and summed again from every line that begins on them, so a day
    shared by two bill months is never half rebuilt. Concurrent rebuilds of one organization
    wait for each other (a lock on its state row). PostgreSQL only, like its reader.
    """
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(_LOCK, [organization_id])
        (existed,) = cursor.fetchone()
    rows = BilledHoursDay.objects.filter(organization_id=organization_id)
    begin, end = _EVER
    if months is not None and existed:
        months = sorted(set(months))
        if not months:
            return
        begin, end = bill_months_span(organization_id, months)
        begin = _utc_day_start(begin.astimezone(dt.UTC).date())
        end = _utc_day_start((end - dt.timedelta(microseconds=1)).astimezone(dt.UTC).date())
        end += dt.timedelta(days=1)
        rows = rows.filter(day__gte=begin.date(), day__lt=end.date())
    rows.delete()  # nothing refers to these rows: one DELETE statement
    with connection.cursor() as cursor:
        params: dict[str, Any] = {
            "org": organization_id,
            "begin": begin,
            "end": end,
        }
        cursor.execute(_INSERT, params)
        cursor.execute(
            _PHASES_SET.format(where="b.organization_id = %s AND b.day >= %s AND b.day < %s"),
            [organization_id, begin.date(), end.date()],
        )


def billed_hours_phases_refresh(
    *, organization_id: int, instance_ids: Sequence[int], day_from: dt.date, day_to: dt.date
) -> None:
    """The analysis rewrote these instances' ``PhaseDay`` rows of ``[day_from, day_to]``: set
    the phase minutes of their ``BilledHoursDay`` rows again (in the caller's transaction).

    Takes the organization's rebuild lock first, so a concurrent rebuild (which reads PhaseDay)
    either finished before this reads its rows or starts after this commits. An organization
    whose rollup was never built has nothing to refresh (its first read builds it).
    """
    if connection.vendor != "postgresql" or not instance_ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM analysis_billedhoursstate WHERE organization_id = %s FOR UPDATE",
            [organization_id],
        )
        if cursor.fetchone() is None:
            return
        cursor.execute(
            _PHASES_SET.format(where="b.instance_id = ANY(%s) AND b.day >= %s AND b.day <= %s"),
            [[int(i) for i in instance_ids], day_from, day_to],
        )


def billed_hours_ensure(organization_ids: Iterable[int]) -> None:
    """Build the rollup of the organizations that never had it built."""
    if connection.vendor != "postgresql":
        return
    wanted = set(organization_ids)
    built = set(
        BilledHoursState.objects.filter(organization_id__in=wanted).values_list(
            "organization_id", flat=True
        )
    )
    for organization_id in sorted(wanted - built):
        billed_hours_rebuild(organization_id=organization_id)


def on_bill_lines_changed(
    sender: Any, *, organization: Organization, months: Sequence[str] | None, **kwargs: Any
) -> None:
    from apps.analysis.waste_days import on_bill_lines_changed as waste_days_changed

    billed_hours_rebuild(organization_id=organization.pk, months=months)
    # After the billed hours: the summary's day figures read them.
    waste_days_changed(organization_id=organization.pk, months=months)
