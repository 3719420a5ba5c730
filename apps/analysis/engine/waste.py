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
    total = rounded_total(minutes, hourly_price, total_cost=total_cost)
    return total, _largest_remainder(total, [int(m) for m in minutes])


def rounded_total(
    minutes: Sequence[int], hourly_price: Decimal, *, total_cost: Decimal | None = None
) -> Decimal:
    """The period's money to the cent: ``total_cost`` rounded half-up when the bills give it,
    else ``hourly_price`` for every minute counted (``split_cents`` then splits it)."""
    if not isinstance(hourly_price, Decimal) or not hourly_price.is_finite():
        raise ValueError("hourly_price: must be a finite Decimal")
    if hourly_price < 0:
        raise ValueError("hourly_price: must not be negative")
    if len(minutes) != len(Phase) or any(m < 0 for m in minutes):
        raise ValueError("minutes: expected a non-negative count per phase")
    if total_cost is None:
        return _to_cent(Fraction(hourly_price) * sum(int(m) for m in minutes) / 60)
    if not isinstance(total_cost, Decimal) or not total_cost.is_finite():
        raise ValueError("total_cost: must be a finite Decimal")
    return total_cost.quantize(CENT, rounding=ROUND_HALF_UP)


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


# The same figures for many instances at once: a fleet summary splits ~1,000 totals, and doing
# it instance by instance in Python (``_largest_remainder``, ``gpu_hours_of_card_minutes``)
# was a fifth of the request. Integers throughout (cents, 0.0001 h), so nothing is rounded
# differently; tests compare the two on random inputs.
_INT64_SAFE = 2**62


def split_cents(total_cents: npt.ArrayLike, weights: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """``_largest_remainder`` row by row: ``total_cents[i]`` (whole cents, may be negative)
    split in proportion to ``weights[i]`` (non-negative, one per phase in Phase order).

    Rows whose weights are all zero give everything to UNKNOWN, as the scalar version does.
    Raises ValueError where ``cents x weight`` could overflow 64-bit integers.
    """
    totals = np.asarray(total_cents, dtype=np.int64)
    w = np.asarray(weights, dtype=np.int64)
    if w.ndim != 2 or w.shape[0] != totals.shape[0] or (w < 0).any():
        raise ValueError("weights: expected non-negative counts, one row per total")
    cents = np.abs(totals)
    weight_sum = w.sum(axis=1)
    if w.size and int(cents.max(initial=0)) * int(w.max(initial=0)) >= _INT64_SAFE:
        raise ValueError("split_cents: amounts too large for 64-bit integers")
    safe_sum = np.where(weight_sum == 0, 1, weight_sum)[:, None]
    product = cents[:, None] * w
    floors = product // safe_sum
    remainders = product % safe_sum
    leftover = cents - floors.sum(axis=1)
    # Ranks by remainder, largest first; a stable sort keeps the lower phase first on ties.
    order = np.argsort(-remainders, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(w.shape[1])[None, :], axis=1)
    floors += ranks < leftover[:, None]
    unweighted = weight_sum == 0
    floors[unweighted] = 0
    floors[unweighted, int(Phase.UNKNOWN)] = cents[unweighted]
    return floors * np.where(totals < 0, -1, 1)[:, None]


def gpu_hours_e4(
    minutes: npt.ArrayLike, numerator: npt.ArrayLike, denominator: npt.ArrayLike
) -> npt.NDArray[np.int64]:
    """``gpu_hours_of_card_minutes(minutes x numerator, denominator)`` in 0.0001 h units, for
    a matrix of minutes (a row per instance) and each row's cards as ``numerator /
    denominator`` (non-negative). Raises ValueError where the product could overflow."""
    m = np.asarray(minutes, dtype=np.int64)
    num = np.asarray(numerator, dtype=np.int64)[:, None]
    den = np.asarray(denominator, dtype=np.int64)[:, None]
    if (m < 0).any() or (num < 0).any() or (den <= 0).any():
        raise ValueError("gpu_hours_e4: expected non-negative minutes and cards")
    if m.size and int(m.max()) * int(num.max()) * 10_000 >= _INT64_SAFE:
        raise ValueError("gpu_hours_e4: amounts too large for 64-bit integers")
    q, r = np.divmod(m * num * 10_000, 60 * den)
    return q + (2 * r >= 60 * den)
