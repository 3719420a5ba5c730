"""Reads of the exports: an organization's bill lines with their allocation and GPU figures.

A year of a large fleet is millions of lines, so nothing here builds a list of them: the lines
come from a server-side cursor (``.iterator(chunk_size=...)``), and each chunk is completed
with two small queries (the hour rollups and the phase minutes of the chunk's instances and
hours) before it is handed on and forgotten. Memory is bounded by the chunk, whatever the range.

Lines are ordered by (charge period start, id), which is also the cursor of the JSON pages.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator, Mapping
from decimal import Decimal
from itertools import islice
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet

from apps.accounts.models import Organization
from apps.analysis.engine import Phase
from apps.analysis.models import PhaseDay, phase_day_decode
from apps.billing import classify
from apps.billing.models import BillLine
from apps.exports.focus import GpuFigures, charge_period
from apps.exports.focus_amortized import beijing_midnight_after
from apps.exports.focus_commitments import allocate, commitment_kind, hour_of, match_commitment
from apps.metrics.models import InstanceHourRollup

CHUNK_SIZE = 2000
PREPAID_CATEGORIES = (classify.PURCHASE, classify.REFUND)
# A line longer than this (a monthly subscription) has its figures read with the other long
# lines: folding its month into the hourly lines' lookups would read a month of every instance
# of the chunk.
_SHORT_LINE = dt.timedelta(hours=2)
_HOUR = dt.timedelta(hours=1)

#: The values of a bill line an export needs (FOCUS and costs.csv alike).
LINE_FIELDS = (
    "id",
    "bill_id",
    "month",
    "component_code",
    "component_name",
    "item_code",
    "item_name",
    "product_name",
    "action_type_name",
    "charge_type",
    "charge_category",
    "component_class",
    "commitment",
    "cost_without_commitment",
    "single_price",
    "contract_price",
    "price_unit",
    "payer_uin",
    "owner_uin",
    "pay_time",
    "resource_id",
    "resource_name",
    "region_name",
    "zone_name",
    "fee_begin_at",
    "fee_end_at",
    "list_cost",
    "cost",
    "currency",
    "used_amount",
    "used_unit",
    "time_span",
    "time_unit",
    "tags",
    "account_id",
    "account__name",
    "instance_id",
    "instance__provider_id",
    "instance__name",
    "instance__instance_type",
    "instance__gpu_model",
    "instance__gpu_count",
    "instance__region",
    "instance__zone",
    "instance__charge_type",
    "instance__tags",
    "project__name",
)


@dataclasses.dataclass(frozen=True)
class LineCursor:
    """Where a page starts: a line's (charge period start, id) and the index of its first FOCUS
    row on the page (a prepaid line has several: its own and its amortized rows)."""

    fee_begin_at: dt.datetime
    line_id: int
    row_index: int = 0


def export_lines(
    *, organization: Organization, start: dt.datetime, end: dt.datetime, amortized: bool = False
) -> QuerySet[BillLine, dict[str, Any]]:
    """The organization's bill lines whose charge period starts in ``[start, end)``, as values.

    ``amortized``: also the purchases (and refunds) that started before ``start`` but still
    cover a Beijing day starting in it, for their amortized FOCUS rows (they come first, in
    export order).
    """
    window = Q(fee_begin_at__gte=start, fee_begin_at__lt=end)
    first_day = beijing_midnight_after(start)
    if amortized and first_day < end:
        # An amortized day is in the window holding its start (a Beijing midnight), so an
        # earlier purchase counts when it still covers the first one: fee_end_at is inclusive
        # (23:59:59), and a purchase ending at first_day - 1 s has no day in the window.
        window |= Q(
            charge_category__in=PREPAID_CATEGORIES,
            fee_begin_at__lt=start,
            fee_end_at__gte=first_day,
        )
    return (
        BillLine.objects.for_organization(organization)
        .filter(window)
        .order_by("fee_begin_at", "id")
        .values(*LINE_FIELDS)
    )


def after_cursor(
    lines: QuerySet[BillLine, dict[str, Any]], cursor: LineCursor | None
) -> QuerySet[BillLine, dict[str, Any]]:
    """The cursor's line and those after it in export order (keyset: no OFFSET, however deep
    the page); the caller skips the cursor line's rows before ``row_index``."""
    if cursor is None:
        return lines
    return lines.filter(
        Q(fee_begin_at__gt=cursor.fee_begin_at)
        | Q(fee_begin_at=cursor.fee_begin_at, id__gte=cursor.line_id)
    )


def streamed(
    lines: QuerySet[BillLine, dict[str, Any]], *, chunk_size: int = CHUNK_SIZE
) -> Iterator[dict[str, Any]]:
    """The lines from a server-side cursor, inside a transaction for as long as they stream.

    Outside a transaction Django declares the cursor WITH HOLD, and PostgreSQL then computes
    and stores the whole result before the first row: a year of a fleet, on the server's disk,
    before the download starts. Inside one, rows are produced as they are fetched.
    """
    with transaction.atomic():
        yield from lines.iterator(chunk_size=chunk_size)


def lines_with_gpu_figures(
    lines: QuerySet[BillLine, dict[str, Any]],
    *,
    chunk_size: int = CHUNK_SIZE,
    window: tuple[dt.datetime, dt.datetime] | None = None,
) -> Iterator[tuple[dict[str, Any], GpuFigures]]:
    """Each line with the GPU utilization and idle minutes of its charge period, streamed
    (and its commitment figures: ``window`` is the export's, for a purchase's unused days)."""
    rows = streamed(lines, chunk_size=chunk_size)
    while chunk := list(islice(rows, chunk_size)):
        _name_commitments(chunk, window)
        _name_refunded_months(chunk)
        _name_gpu_bills(chunk)
        figures = _chunk_figures(chunk)
        for row in chunk:
            yield row, figures.get(row["id"], GpuFigures())


_PURCHASE_FIELDS = (
    "cost",
    "account_id",
    "bill_id",
    "resource_id",
    "resource_name",
    "region_name",
    "zone_name",
    "fee_begin_at",
    "fee_end_at",
    "charge_category",
    "commitment",
    "product_name",
    "component_name",
    "item_name",
)


_COVERED_FIELDS = (
    *_PURCHASE_FIELDS,
    "component_code",
    "cost_without_commitment",
    "used_amount",
)


def _name_commitments(
    chunk: list[dict[str, Any]], window: tuple[dt.datetime, dt.datetime] | None
) -> None:
    """The commitment figures of the chunk's commitment purchases and of the usage an RI / SP
    paid for (``focus_commitments``): ``commitment_discount`` (id, name), a covered
    component's ``commitment_share`` of the amortized purchase, and a purchase's
    ``commitment_unused`` money per UTC hour. Two queries (the account's commitment purchases
    and the usage they paid for around the chunk's hours), only when the chunk holds either.
    """
    rows = [row for row in chunk if commitment_kind(row)]
    if not rows:
        return
    prepaid = [row for row in rows if row["charge_category"] in PREPAID_CATEGORIES]
    first = min(row["fee_begin_at"] for row in rows)
    last = max(row["fee_begin_at"] for row in rows) + _HOUR
    if prepaid and window is not None:
        # A purchase's days in the window: its unused hours there (a day starting inside the
        # window runs at most a day past it).
        first = min(first, window[0])
        last = max(
            last, min(window[1] + dt.timedelta(days=1), max(r["fee_end_at"] for r in prepaid))
        )
    accounts = {row["account_id"] for row in rows}
    purchases = [
        purchase
        for purchase in BillLine.objects.filter(
            account_id__in=accounts,
            charge_category=classify.PURCHASE,
            fee_begin_at__lt=last,
            fee_end_at__gte=first,
        ).values("id", "used_amount", *_PURCHASE_FIELDS)
        if commitment_kind(purchase)
    ]
    covered: dict[int, dict[dt.datetime, dict[str, list[tuple[str, Decimal]]]]] = {}
    for line in (
        BillLine.objects.filter(
            account_id__in=accounts,
            charge_category=classify.USAGE,
            fee_begin_at__gte=first,
            fee_begin_at__lt=last,
        )
        .exclude(commitment="")
        .values(*_COVERED_FIELDS)
    ):
        match = match_commitment(line, purchases, key="id")
        if match is not None:
            hours = covered.setdefault(match, {})
            hours.setdefault(hour_of(line["fee_begin_at"]), {}).setdefault(
                line["bill_id"], []
            ).append((line["component_code"], line["cost_without_commitment"] or Decimal(0)))
    by_id = {purchase["id"]: purchase for purchase in purchases}
    allocations = {
        purchase_id: allocate(
            cost=by_id[purchase_id]["cost"],
            begin=by_id[purchase_id]["fee_begin_at"],
            end=by_id[purchase_id]["fee_end_at"],
            charge_category=by_id[purchase_id]["charge_category"],
            units=int(by_id[purchase_id]["used_amount"] or 1),
            covered=covered.get(purchase_id, {}),
            hours=_hour_range(first, last),
        )
        for purchase_id in by_id
    }
    for row in rows:
        if row["charge_category"] in PREPAID_CATEGORIES:
            row["commitment_discount"] = (
                row["resource_id"] or row["bill_id"],
                row["resource_name"],
            )
            if row["id"] in allocations:
                row["commitment_unused"] = allocations[row["id"]][1]
            continue
        match = match_commitment(row, purchases, key="id")
        if match is None:
            row["commitment_discount"] = None
            continue
        purchase = by_id[match]
        row["commitment_discount"] = (
            purchase["resource_id"] or purchase["bill_id"],
            purchase["resource_name"],
        )
        row["commitment_share"] = allocations[match][0].get((row["bill_id"], row["component_code"]))


def _hour_range(first: dt.datetime, last: dt.datetime) -> list[dt.datetime]:
    hour = hour_of(first)
    hours = []
    while hour < last:
        hours.append(hour)
        hour += _HOUR
    return hours


def _name_gpu_bills(chunk: list[dict[str, Any]]) -> None:
    """``bill_has_gpu_component`` of the chunk's instance lines: whether their bill line bills
    the GPU in a component of its own (one query, only when the chunk has instance lines; a
    bill's components may straddle two chunks, so the chunk alone cannot tell)."""
    lines = [row for row in chunk if row["instance_id"] is not None]
    if not lines:
        return
    with_gpu = set(
        BillLine.objects.filter(
            account_id__in={row["account_id"] for row in lines},
            bill_id__in={row["bill_id"] for row in lines},
        )
        .filter(Q(component_name__iregex=r"gpu|显卡") | Q(component_code__iregex=r"gpu|显卡"))
        .values_list("account_id", "bill_id")
    )
    for row in lines:
        row["bill_has_gpu_component"] = (row["account_id"], row["bill_id"]) in with_gpu


def _name_refunded_months(chunk: list[dict[str, Any]]) -> None:
    """``refunded_month`` of the chunk's refunds: the bill month of the latest purchase of the
    same resource paid before the refund (one query, only when the chunk holds a refund)."""
    refunds = [
        row for row in chunk if row["charge_category"] == classify.REFUND and row["resource_id"]
    ]
    if not refunds:
        return
    purchases: dict[tuple[int, str], list[tuple[dt.datetime, str]]] = {}
    for account_id, resource_id, paid, begin, month in (
        BillLine.objects.filter(
            account_id__in={row["account_id"] for row in refunds},
            resource_id__in={row["resource_id"] for row in refunds},
            charge_category=classify.PURCHASE,
        )
        .values_list("account_id", "resource_id", "pay_time", "fee_begin_at", "month")
        .distinct()
    ):
        purchases.setdefault((account_id, resource_id), []).append((paid or begin, month))
    for row in refunds:
        moment = row["pay_time"] or row["fee_begin_at"]
        before = [
            p for p in purchases.get((row["account_id"], row["resource_id"]), []) if p[0] <= moment
        ]
        row["refunded_month"] = max(before)[1] if before else None


def _chunk_figures(chunk: list[dict[str, Any]]) -> dict[int, GpuFigures]:
    """Line id -> figures for the lines of one chunk that have an instance.

    Hourly lines and long ones (subscriptions) are looked up apart, each group with one query
    per table over its own instances and hours: at most four queries a chunk, whatever it holds.
    """
    groups: dict[bool, list[tuple[int, int, list[dt.datetime]]]] = {True: [], False: []}
    for row in chunk:
        if row["instance_id"] is None:
            continue
        start, end = charge_period(row["fee_begin_at"], row["fee_end_at"])
        groups[end - start <= _SHORT_LINE].append(
            (row["id"], row["instance_id"], _hours(start, end))
        )
    out: dict[int, GpuFigures] = {}
    for lines in groups.values():
        if not lines:
            continue
        instance_ids = sorted({instance_id for _, instance_id, _ in lines})
        first = min(hours[0] for _, _, hours in lines)
        last = max(hours[-1] for _, _, hours in lines) + _HOUR
        utils = _hour_utils(instance_ids, first, last)
        phases = _phase_days(instance_ids, first, last)
        for line_id, instance_id, hours in lines:
            out[line_id] = _figures_of(utils, phases, instance_id, hours)
    return out


def _hours(start: dt.datetime, end: dt.datetime) -> list[dt.datetime]:
    """UTC hour starts the period touches (at least one)."""
    hour = start.astimezone(dt.UTC).replace(minute=0, second=0, microsecond=0)
    hours = [hour]
    while hours[-1] + _HOUR < end:
        hours.append(hours[-1] + _HOUR)
    return hours


def _hour_utils(
    instance_ids: list[int], start: dt.datetime, end: dt.datetime
) -> dict[tuple[int, dt.datetime], tuple[float, int]]:
    """(instance, hour) -> (average GPU utilization, observed minutes) of the hour rollups."""
    rows = InstanceHourRollup.objects.filter(
        instance_id__in=instance_ids,
        hour_start__gte=start,
        hour_start__lt=end,
        gpu_util_pct_minutes__gt=0,
    ).values_list("instance_id", "hour_start", "gpu_util_pct_avg", "gpu_util_pct_minutes")
    return {
        (instance_id, hour): (avg, minutes)
        for instance_id, hour, avg, minutes in rows
        if avg is not None
    }


def _phase_days(
    instance_ids: list[int], start: dt.datetime, end: dt.datetime
) -> dict[tuple[int, dt.date], tuple[list[int], list[int]]]:
    """(instance, UTC day) -> (idle minutes, analysed minutes) of each of its 24 UTC hours."""
    rows = PhaseDay.objects.filter(
        instance_id__in=instance_ids,
        day__gte=start.astimezone(dt.UTC).date(),
        day__lte=(end - dt.timedelta(microseconds=1)).astimezone(dt.UTC).date(),
    ).values_list("instance_id", "day", "minutes")
    out = {}
    for instance_id, day, raw in rows:
        hours = phase_day_decode(raw)
        out[(instance_id, day)] = (hours[:, Phase.IDLE].tolist(), hours.sum(axis=1).tolist())
    return out


def _figures_of(
    utils: Mapping[tuple[int, dt.datetime], tuple[float, int]],
    phases: Mapping[tuple[int, dt.date], tuple[list[int], list[int]]],
    instance_id: int,
    hours: list[dt.datetime],
) -> GpuFigures:
    """Utilization weighted by observed minutes; idle minutes summed; None without data."""
    weighted, observed = 0.0, 0
    idle, analysed = 0, 0
    for hour in hours:
        util = utils.get((instance_id, hour))
        if util is not None:
            weighted += util[0] * util[1]
            observed += util[1]
        day = phases.get((instance_id, hour.date()))
        if day is not None:
            idle += day[0][hour.hour]
            analysed += day[1][hour.hour]
    return GpuFigures(
        gpu_util_avg_pct=weighted / observed if observed else None,
        idle_minutes=idle if analysed else None,
    )
