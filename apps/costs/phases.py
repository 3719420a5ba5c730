"""Splitting billed money over phases exactly: each bill hour by its phase minutes.

An instance's hourly bill lines (all components of one fee hour, summed) are split over the
phases by the minutes of that UTC hour in ``PhaseDay`` (what the analysis stored; minutes of the
hour it did not label, or an hour without a row, count as ``unknown``). The split is done in
integer units of the bill's own precision (1e-8 yuan, the eight decimals bills carry) by the
largest-remainder method: every phase gets its share rounded down, and the units left over go
one each to the phases with the largest remainders (ties to the lower phase value). The parts of
every hour therefore add up to the hour's billed amount exactly, and so do the report's groups.

Lines that are not hourly (a subscription month, an adjustment) and lines of no instance cannot
be placed on the hours of a phase: their money is ``unknown`` in full.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal

import numpy as np

from apps.analysis.engine import Phase
from apps.analysis.models import PHASE_DAY_SHAPE, PhaseDay
from apps.core.timegrid import (
    MINUTES_PER_HOUR,
    date_to_epoch_day,
    datetime_to_epoch_minute,
    epoch_day_to_date,
    epoch_minute_to_epoch_day,
    hour_of_day,
)

UNIT = Decimal("1e-8")
_PHASES = len(Phase)
# units x minutes must fit an int64: a line-hour of up to ~1.5e9 yuan.
_MAX_UNITS = np.iinfo(np.int64).max // MINUTES_PER_HOUR


def to_units(amount: Decimal) -> int:
    """An amount in 1e-8 units (bill amounts have at most 8 decimals: exact)."""
    return int(amount.scaleb(8).to_integral_value())


def from_units(units: int) -> Decimal:
    return Decimal(units).scaleb(-8).quantize(UNIT)


def hour_weights(
    *, organization_id: int, instance_ids: Sequence[int | None], hours: Sequence[dt.datetime]
) -> np.ndarray:
    """(cells, phases) minute counts of each (instance, UTC hour) cell, summing to 60 a row.

    A cell without an instance is all ``unknown``. One query for all the cells' days.
    """
    weights = np.zeros((len(hours), _PHASES), dtype=np.int64)
    weights[:, Phase.UNKNOWN] = MINUTES_PER_HOUR
    known = [index for index, instance_id in enumerate(instance_ids) if instance_id is not None]
    if not known:
        return weights
    minutes = np.array([datetime_to_epoch_minute(hours[i]) for i in known], dtype=np.int64)
    days = epoch_minute_to_epoch_day(minutes)
    rows = PhaseDay.objects.filter(
        organization_id=organization_id,
        instance_id__in={instance_ids[i] for i in known},
        day__gte=epoch_day_to_date(days.min()),
        day__lte=epoch_day_to_date(days.max()),
    ).values_list("instance_id", "day", "minutes")
    stored = {
        (instance_id, date_to_epoch_day(day)): np.frombuffer(bytes(raw), dtype=np.uint8).reshape(
            PHASE_DAY_SHAPE
        )
        for instance_id, day, raw in rows.iterator(chunk_size=5000)
    }
    for position, index in enumerate(known):
        day_minutes = stored.get((int(instance_ids[index] or 0), int(days[position])))
        if day_minutes is None:
            continue
        row = day_minutes[hour_of_day(int(minutes[position]))].astype(np.int64)
        labelled = int(row[1:].sum())
        weights[index, 1:] = row[1:]
        weights[index, Phase.UNKNOWN] = MINUTES_PER_HOUR - labelled
    return weights


def largest_remainder(units: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(cells, phases) integer parts of each cell's ``units`` in proportion to its ``weights``.

    Each row of the result adds up to its ``units`` exactly (negative amounts, refunds, are
    split by their absolute value). A row of zero weights puts everything on ``unknown``.
    """
    units = np.asarray(units, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.int64)
    if units.size and int(np.abs(units).max()) > _MAX_UNITS:
        raise ValueError("units: an amount too large to split in int64")
    total_weight = weights.sum(axis=1)
    empty = total_weight == 0
    weights = weights.copy()
    weights[empty, Phase.UNKNOWN] = 1
    total_weight[empty] = 1
    sign = np.where(units < 0, -1, 1)
    magnitude = np.abs(units)
    shares = magnitude[:, None] * weights
    parts = shares // total_weight[:, None]
    remainders = shares % total_weight[:, None]
    leftover = magnitude - parts.sum(axis=1)
    # Largest remainder first, ties to the lower phase: a key that sorts both at once.
    key = remainders * _PHASES + (_PHASES - 1 - np.arange(_PHASES))
    order = np.argsort(-key, axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(_PHASES)[None, :].repeat(len(units), 0), axis=1)
    parts += rank < leftover[:, None]
    return parts * sign[:, None]
