"""The per instance-day rollups of hourly usage lines, kept equal to them.

- ``InstanceBillDay``: an instance's runtime lines (``apps.billing.runtime``: every runtime
  component of its hours of use) of a UTC day, their cost and their seconds, each billed span
  counted once however many components bill it;
- ``InstanceComponentDay``: the same day's usage lines of every class, per component: what the
  price is made of, and what keeps billing when the instance is stopped.

Whatever writes bill lines of an account's months calls ``bill_days_refresh`` for those months in
the same transaction: the month's rollup rows are deleted and summed again from its lines, so
upserts, adjustments that replace lines, lines removed by a re-read and lines attached to an
instance later all land in it without any bookkeeping of what changed. A month is one account's
few hundred thousand lines at most, summed by PostgreSQL in two statements.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.db import connection, transaction

from apps.billing.models import BillLine, InstanceBillDay, InstanceComponentDay
from apps.billing.runtime import (
    BILLED_SECONDS_SQL,
    RUNTIME_LINE_SQL,
    USAGE_HOUR_SQL,
    billed_seconds,
    is_runtime,
    is_usage_hour,
)
from apps.cloud.models import CloudAccount

_DAY = "(fee_begin_at AT TIME ZONE 'UTC')::date"
_KEY = "organization_id, account_id, month, instance_id, day, currency"


@transaction.atomic
def bill_days_refresh(*, account: CloudAccount, months: Sequence[str] | None = None) -> int:
    """Rewrite the account's rollup rows of ``months`` (every month when None) from its bill
    lines; returns how many instance-day rows it now has for them."""
    days = InstanceBillDay.objects.filter(account=account)
    components = InstanceComponentDay.objects.filter(account=account)
    if months is not None:
        months = sorted(set(months))
        if not months:
            return 0
        days = days.filter(month__in=months)
        components = components.filter(month__in=months)
    days.delete()
    components.delete()
    if connection.vendor == "postgresql":
        return _refresh_postgresql(account, months)
    return _refresh_python(account, months)


def _refresh_postgresql(account: CloudAccount, months: list[str] | None) -> int:
    month_filter = "" if months is None else "AND month = ANY(%(months)s)"
    where = f"account_id = %(account)s {month_filter} AND instance_id IS NOT NULL"
    # The inner query sums each billed span's runtime components: one span, one count of its
    # seconds.
    days_sql = f"""
        INSERT INTO {InstanceBillDay._meta.db_table}
            (created_at, updated_at, {_KEY}, cost, billed_seconds, lines)
        SELECT now(), now(), {_KEY}, sum(cost), sum(seconds), sum(lines)
        FROM (
            SELECT organization_id, account_id, month, instance_id, {_DAY} AS day, currency,
                   sum(cost) AS cost, max({BILLED_SECONDS_SQL}) AS seconds, count(*) AS lines
            FROM {BillLine._meta.db_table}
            WHERE {where} AND {RUNTIME_LINE_SQL}
            GROUP BY organization_id, account_id, month, instance_id, {_DAY}, currency,
                     fee_begin_at, fee_end_at
        ) AS spans
        GROUP BY {_KEY}
    """
    components_sql = f"""
        INSERT INTO {InstanceComponentDay._meta.db_table}
            (created_at, updated_at, {_KEY}, component_class, component_code, component_name,
             cost, billed_seconds, lines)
        SELECT now(), now(), organization_id, account_id, month, instance_id, {_DAY}, currency,
               component_class, component_code, max(component_name), sum(cost),
               sum({BILLED_SECONDS_SQL}), count(*)
        FROM {BillLine._meta.db_table}
        WHERE {where} AND {USAGE_HOUR_SQL}
        GROUP BY organization_id, account_id, month, instance_id, {_DAY}, currency,
                 component_class, component_code
    """
    params: dict[str, Any] = {"account": account.pk, "months": months}
    with connection.cursor() as cursor:
        cursor.execute(days_sql, params)
        rows = cursor.rowcount
        cursor.execute(components_sql, params)
    return rows


def _refresh_python(account: CloudAccount, months: list[str] | None) -> int:
    """The same sums in Python with Decimal (SQLite sums decimals as floats)."""
    lines = BillLine.objects.filter(account=account, instance__isnull=False)
    if months is not None:
        lines = lines.filter(month__in=months)
    days: dict[tuple[str, int, dt.date, str], list] = defaultdict(lambda: [Decimal(0), {}, 0])
    parts: dict[tuple[str, int, dt.date, str, str, str], list] = defaultdict(
        lambda: [Decimal(0), 0, 0, ""]
    )
    rows = lines.values_list(
        "month", "instance_id", "fee_begin_at", "fee_end_at", "cost", "currency",
        "component_class", "component_code", "component_name", "charge_category", "time_span",
        "time_unit",
    )  # fmt: skip
    for (
        month, instance_id, begin, end, cost, currency, cls, code, name, category, span, unit
    ) in rows.iterator(chunk_size=5000):  # fmt: skip
        if not is_usage_hour(category, begin, end):
            continue
        key = (month, instance_id, begin.astimezone(dt.UTC).date(), currency)
        part = parts[(*key, cls, code)]
        part[0] += cost
        part[1] += billed_seconds(begin, end, span, unit)
        part[2] += 1
        part[3] = max(part[3], name)
        if is_runtime(cls):
            day = days[key]
            day[0] += cost
            # One span, one count of its seconds: the most any of its runtime components ran.
            seconds = billed_seconds(begin, end, span, unit)
            day[1][(begin, end)] = max(day[1].get((begin, end), 0), seconds)
            day[2] += 1
    common = {"organization_id": account.organization_id, "account": account}
    InstanceBillDay.objects.bulk_create(
        [
            InstanceBillDay(
                **common,
                month=month,
                instance_id=instance_id,
                day=day,
                currency=currency,
                cost=cost,
                billed_seconds=sum(spans.values()),
                lines=count,
            )
            for (month, instance_id, day, currency), (cost, spans, count) in days.items()
        ],
        batch_size=2000,
    )
    InstanceComponentDay.objects.bulk_create(
        [
            InstanceComponentDay(
                **common,
                month=month,
                instance_id=instance_id,
                day=day,
                currency=currency,
                component_class=cls,
                component_code=code,
                component_name=name,
                cost=cost,
                billed_seconds=seconds,
                lines=count,
            )
            for (month, instance_id, day, currency, cls, code), (
                cost,
                seconds,
                count,
                name,
            ) in parts.items()
        ],
        batch_size=2000,
    )
    return len(days)
