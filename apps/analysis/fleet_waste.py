"""A fleet's per-phase figures as columns: ``pricing.InstanceWaste`` for every instance at once.

A fleet summary adds up ~1,000 instances' figures per group (the fleet, each project, each
unallocated reason). As integer columns (minutes, 0.0001 GPU-hours, cents) the money split
and the sums are numpy operations instead of ~5,000 Decimal objects built and added one by one
(a fifth of the summary's time). The integers are the figures the per-instance code rounds to,
so nothing changes: ``items()`` gives the per-instance objects back, and the tests compare both.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from decimal import Decimal

import numpy as np
import numpy.typing as npt

from apps.analysis.engine import Phase
from apps.analysis.engine.waste import gpu_hours_e4, split_cents
from apps.analysis.pricing import InstanceWaste, PhaseFigures, scaled_figures

_PHASES = len(Phase)


@dataclasses.dataclass(frozen=True)
class FleetWaste:
    """Row ``i`` is instance ``instance_ids[i]``; matrix columns are phases in Phase order."""

    instance_ids: list[int]
    project_ids: list[int | None]
    cost_sources: list[str]
    currencies: list[str]
    billed_costs: list[Decimal | None]
    minutes: npt.NDArray[np.int64]
    gpu_hours_e4: npt.NDArray[np.int64]
    """GPU-hours in units of 0.0001 h (the figures are rounded half-up to that)."""
    cost_cents: npt.NDArray[np.int64]
    total_cents: npt.NDArray[np.int64]
    pending_minutes: Mapping[int, int] | None = None
    """Instance id -> its minutes with GPU utilization and no phase yet, when the figures were
    read from the ``WasteDay`` rollup (which keeps them); None: ``no_data`` reads them."""

    def __len__(self) -> int:
        return len(self.instance_ids)

    @classmethod
    def priced(
        cls,
        *,
        instance_ids: list[int],
        project_ids: list[int | None],
        gpu_counts: Sequence[float],
        cost_sources: list[str],
        currencies: list[str],
        billed_costs: list[Decimal | None],
        minutes: npt.NDArray[np.int64],
        total_cents: npt.NDArray[np.int64],
        pending_minutes: Mapping[int, int] | None = None,
    ) -> FleetWaste:
        """Split each row's total over its phase minutes (largest remainder, like
        ``engine.cost_of_minutes``) and count its GPU-hours (like ``pricing.scaled_figures``)."""
        return cls(
            instance_ids=instance_ids,
            project_ids=project_ids,
            cost_sources=cost_sources,
            currencies=currencies,
            billed_costs=billed_costs,
            minutes=minutes,
            gpu_hours_e4=_gpu_hours(minutes, gpu_counts),
            cost_cents=split_cents(total_cents, minutes),
            total_cents=np.asarray(total_cents, dtype=np.int64),
            pending_minutes=pending_minutes,
        )

    @classmethod
    def of_items(cls, items: Sequence[InstanceWaste]) -> FleetWaste:
        """The columns of per-instance figures (the per-minute path's answer)."""

        def matrix(field: str, scale: int) -> npt.NDArray[np.int64]:
            values = [
                int(getattr(item.by_phase[phase], field) * scale)
                for item in items
                for phase in Phase
            ]
            return np.array(values, dtype=np.int64).reshape(len(items), _PHASES)

        return cls(
            instance_ids=[item.instance_id for item in items],
            project_ids=[item.project_id for item in items],
            cost_sources=[item.cost_source for item in items],
            currencies=[item.currency for item in items],
            billed_costs=[item.billed_cost for item in items],
            minutes=matrix("minutes", 1),
            gpu_hours_e4=matrix("gpu_hours", 10_000),
            cost_cents=matrix("cost", 100),
            total_cents=np.array([int(item.total_cost * 100) for item in items], dtype=np.int64),
        )

    def subset(self, rows: Sequence[int]) -> FleetWaste:
        index = np.asarray(rows, dtype=np.intp)
        return FleetWaste(
            instance_ids=[self.instance_ids[i] for i in rows],
            project_ids=[self.project_ids[i] for i in rows],
            cost_sources=[self.cost_sources[i] for i in rows],
            currencies=[self.currencies[i] for i in rows],
            billed_costs=[self.billed_costs[i] for i in rows],
            minutes=self.minutes[index].reshape(len(rows), _PHASES),
            gpu_hours_e4=self.gpu_hours_e4[index].reshape(len(rows), _PHASES),
            cost_cents=self.cost_cents[index].reshape(len(rows), _PHASES),
            total_cents=self.total_cents[index],
            pending_minutes=self.pending_minutes,
        )

    def items(self) -> list[InstanceWaste]:
        return [
            InstanceWaste(
                instance_id=self.instance_ids[row],
                project_id=self.project_ids[row],
                cost_source=self.cost_sources[row],
                currency=self.currencies[row],
                by_phase={
                    phase: PhaseFigures(
                        minutes=int(self.minutes[row, phase]),
                        gpu_hours=_hours(int(self.gpu_hours_e4[row, phase])),
                        cost=_money(int(self.cost_cents[row, phase])),
                    )
                    for phase in Phase
                },
                total_cost=_money(int(self.total_cents[row])),
                billed_cost=self.billed_costs[row],
            )
            for row in range(len(self))
        ]

    def phase_sums(self) -> dict[Phase, PhaseFigures]:
        """Each phase's figures summed over the rows (what adding ``items()`` gives)."""
        minutes = self.minutes.sum(axis=0)
        hours = self.gpu_hours_e4.sum(axis=0)
        cents = self.cost_cents.sum(axis=0)
        return {
            phase: PhaseFigures(
                minutes=int(minutes[phase]),
                # No rows: Decimal sums start at a plain 0 (printed "0", not "0.0000").
                gpu_hours=_hours(int(hours[phase])) if len(self) else Decimal(0),
                cost=_money(int(cents[phase])),
            )
            for phase in Phase
        }

    def total_cost(self) -> Decimal:
        return _money(int(self.total_cents.sum()))


def _hours(units: int) -> Decimal:
    return Decimal(units).scaleb(-4)


def _money(cents: int) -> Decimal:
    return Decimal(cents).scaleb(-2)


def _gpu_hours(
    minutes: npt.NDArray[np.int64], gpu_counts: Sequence[float]
) -> npt.NDArray[np.int64]:
    """``scaled_figures``' GPU-hours of every row, in 0.0001 h: in numpy where each row's cards
    are a non-negative ratio of small integers (every real GPU count), else row by row."""
    # A fleet has a few distinct counts (1, 2, 4, 8 cards): each converted once.
    ratio_of = {count: _cards_ratio(count) for count in set(gpu_counts)}
    ratios = [ratio_of[gpu_count] for gpu_count in gpu_counts]
    if all(ratio is not None for ratio in ratios):
        try:
            return gpu_hours_e4(
                minutes,
                [ratio[0] for ratio in ratios if ratio is not None],
                [ratio[1] for ratio in ratios if ratio is not None],
            )
        except ValueError:
            pass  # a count too precise for 64-bit integers: the exact path below
    out = np.empty_like(minutes)
    no_costs = [Decimal(0)] * _PHASES
    for row, gpu_count in enumerate(gpu_counts):
        figures = scaled_figures([int(m) for m in minutes[row]], no_costs, gpu_count)
        out[row] = [int(figures[phase].gpu_hours.scaleb(4)) for phase in Phase]
    return out


def _cards_ratio(gpu_count: float) -> tuple[int, int] | None:
    cards = Decimal(str(gpu_count)) if gpu_count else Decimal(0)
    return cards.as_integer_ratio() if cards.is_finite() and cards >= 0 else None
