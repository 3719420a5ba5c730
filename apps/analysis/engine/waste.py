"""GPU-hours and money per phase, reconciled to the cent.

Every minute lands in exactly one phase (UNKNOWN included), the period's cost is rounded to the
cent once, and that exact amount is split over the phases by the largest-remainder method. So the
per-phase amounts always add up to the total, which is what finance reconciles against.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from .thresholds import Phase

CENT = Decimal("0.01")
_GPU_HOURS_QUANTUM = Decimal("0.0001")


@dataclasses.dataclass(frozen=True)
class PhaseCost:
    """What one phase consumed over the period."""

    phase: Phase
    minutes: int
    gpu_hours: Decimal
    cost: Decimal


@dataclasses.dataclass(frozen=True)
class WasteReport:
    """Per-phase GPU-hours and cost; ``by_phase`` has every phase, UNKNOWN included."""

    by_phase: Mapping[Phase, PhaseCost]
    total_minutes: int
    total_gpu_hours: Decimal
    total_cost: Decimal

    @property
    def idle_cost(self) -> Decimal:
        """Money spent while the GPU sat idle."""
        return self.by_phase[Phase.IDLE].cost

    @property
    def data_bound_cost(self) -> Decimal:
        """Money spent while the GPU waited for data (the input pipeline was the bottleneck)."""
        return self.by_phase[Phase.DATA_PROCESSING].cost

    @property
    def wasted_cost(self) -> Decimal:
        """Idle plus data-bound money."""
        return self.idle_cost + self.data_bound_cost

    @property
    def unknown_cost(self) -> Decimal:
        """Money in minutes without data: neither useful nor wasted, as far as we know."""
        return self.by_phase[Phase.UNKNOWN].cost


def waste(
    labels: npt.ArrayLike,
    hourly_price: Decimal,
    *,
    gpu_count: int = 1,
    total_cost: Decimal | None = None,
) -> WasteReport:
    """Split the cost of a period over phases.

    ``labels`` are per-minute :class:`Phase` values of one instance (or several instances at the
    same price; minutes are simply counted). The period's cost is minutes x ``hourly_price`` / 60
    rounded half-up to the cent, unless ``total_cost`` (e.g. the billed amount) is given, in
    which case exactly that amount is split by minutes. ``gpu_count`` multiplies GPU-hours (an
    8-card instance burns 8 GPU-hours an hour) but not money, which is per instance.
    """
    if not isinstance(hourly_price, Decimal) or not hourly_price.is_finite():
        raise ValueError("hourly_price: must be a finite Decimal")
    if hourly_price < 0:
        raise ValueError("hourly_price: must not be negative")
    if isinstance(gpu_count, bool) or not isinstance(gpu_count, int) or gpu_count < 1:
        raise ValueError("gpu_count: must be a positive integer")
    label_array = np.asarray(labels)
    if label_array.size and (label_array.min() < 0 or label_array.max() > max(Phase)):
        raise ValueError("labels: values must be Phase values")
    minutes_by_phase = np.bincount(label_array.reshape(-1).astype(np.int64), minlength=len(Phase))
    return waste_of_minutes(
        [int(m) for m in minutes_by_phase],
        hourly_price,
        gpu_count=gpu_count,
        total_cost=total_cost,
    )


def waste_of_minutes(
    minutes: Sequence[int],
    hourly_price: Decimal,
    *,
    gpu_count: int = 1,
    total_cost: Decimal | None = None,
) -> WasteReport:
    """``waste`` of labels already counted: ``minutes`` per phase, in Phase order.

    For readers of the stored per-hour phase minutes (``PhaseDay``), which never rebuild the
    per-minute labels; the same labels counted give the same report as ``waste``.
    """
    total, costs = cost_of_minutes(minutes, hourly_price, total_cost=total_cost)
    minutes = [int(m) for m in minutes]
    total_minutes = sum(minutes)

    by_phase = {
        phase: PhaseCost(
            phase=phase,
            minutes=minutes[phase],
            gpu_hours=_gpu_hours(minutes[phase], gpu_count),
            cost=costs[phase],
        )
        for phase in Phase
    }
    return WasteReport(
        by_phase=by_phase,
        total_minutes=total_minutes,
        total_gpu_hours=_gpu_hours(total_minutes, gpu_count),
        total_cost=total,
    )


def cost_of_minutes(
    minutes: Sequence[int], hourly_price: Decimal, *, total_cost: Decimal | None = None
) -> tuple[Decimal, list[Decimal]]:
    """The money of ``waste_of_minutes``: (total to the cent, per-phase cost in Phase order),
    without its per-phase records (a fleet's summary builds its own)."""
    if not isinstance(hourly_price, Decimal) or not hourly_price.is_finite():
        raise ValueError("hourly_price: must be a finite Decimal")
    if hourly_price < 0:
        raise ValueError("hourly_price: must not be negative")
    if len(minutes) != len(Phase) or any(m < 0 for m in minutes):
        raise ValueError("minutes: expected a non-negative count per phase")
    minutes = [int(m) for m in minutes]
    if total_cost is None:
        exact_total = Fraction(hourly_price) * sum(minutes) / 60
        total = _to_cent(exact_total)
    else:
        if not isinstance(total_cost, Decimal) or not total_cost.is_finite():
            raise ValueError("total_cost: must be a finite Decimal")
        total = total_cost.quantize(CENT, rounding=ROUND_HALF_UP)
    return total, _largest_remainder(total, minutes)


def _largest_remainder(total: Decimal, weights: list[int]) -> list[Decimal]:
    """Split ``total`` (whole cents) in proportion to ``weights`` so the parts sum exactly.

    Each part gets its share rounded toward zero; the cents left over go one each to the parts
    with the largest remainders (ties to the lower phase value, so the result is deterministic).
    Works for negative totals (refunds) too, by splitting the absolute amount.
    """
    weight_sum = sum(weights)
    if weight_sum == 0:
        # No minutes at all: whatever was billed cannot be attributed to a phase.
        return [total if phase == Phase.UNKNOWN else Decimal("0.00") for phase in Phase]
    sign = -1 if total < 0 else 1
    cents = int((abs(total) / CENT).to_integral_value())
    # Share i is cents x w_i / weight_sum: its floor and its remainder's numerator over the
    # common denominator weight_sum, in integers (Fractions cost a fleet's summary ~0.2 s).
    floors = [cents * w // weight_sum for w in weights]
    remainders = [cents * w % weight_sum for w in weights]
    leftover = cents - sum(floors)
    order = sorted(range(len(weights)), key=lambda i: (-remainders[i], i))
    for index in order[:leftover]:
        floors[index] += 1
    return [(Decimal(sign * f) * CENT).quantize(CENT) for f in floors]


def _to_cent(amount: Fraction) -> Decimal:
    """Round an exact amount half-up (away from zero) to the cent."""
    cents = amount * 100
    whole = abs(cents.numerator) // cents.denominator
    if abs(cents) - whole >= Fraction(1, 2):
        whole += 1
    return (Decimal(whole if cents >= 0 else -whole) * CENT).quantize(CENT)


def _gpu_hours(minutes: int, gpu_count: int) -> Decimal:
    if type(gpu_count) is not int or type(minutes) is not int or minutes < 0 or gpu_count < 0:
        return (Decimal(minutes * gpu_count) / Decimal(60)).quantize(
            _GPU_HOURS_QUANTUM, rounding=ROUND_HALF_UP
        )
    return gpu_hours_of_card_minutes(minutes * gpu_count, 1)


def gpu_hours_of_card_minutes(numerator: int, denominator: int) -> Decimal:
    """``numerator / denominator`` card-minutes in GPU-hours, rounded half-up to 0.0001 h.

    In integers (the same figure as the Decimal division and quantize, which cost a fleet's
    summary ~0.1 s): the value in 0.0001 h units is numerator x 10,000 / (60 x denominator).
    Non-negative amounts only.
    """
    q, r = divmod(numerator * 10_000, 60 * denominator)
    if 2 * r >= 60 * denominator:
        q += 1
    return Decimal(q).scaleb(-4)
