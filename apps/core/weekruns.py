"""Runs of hours in a 168-hour week: the off window's periods and the rules' schedule windows.

Pure Python and numpy, shared by the analysis engine and the recommendation rules (both pure:
the import contract lets them import this module and nothing else of the product). A week is
168 local hour-of-week cells, cell 0 being Monday 00:00; a run may wrap from Sunday night into
Monday.
"""

from __future__ import annotations

import dataclasses

import numpy as np

HOURS_PER_WEEK = 168
WEEKDAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


@dataclasses.dataclass(frozen=True)
class WeekRun:
    """``hours`` consecutive local hours from (weekday, hour), e.g. Friday 19:00 to Monday 09:00;
    weekday 0 is Monday."""

    start_weekday: int
    start_hour: int
    hours: int

    @property
    def start_cell(self) -> int:
        return self.start_weekday * 24 + self.start_hour

    @property
    def end_weekday(self) -> int:
        """Local weekday of the first hour after the run (0 = Monday)."""
        return ((self.start_cell + self.hours) // 24) % 7

    @property
    def end_hour(self) -> int:
        """Local hour at which the run ends (exclusive)."""
        return (self.start_hour + self.hours) % 24

    def label(self) -> str:
        return str(self)

    def __str__(self) -> str:
        return (
            f"{WEEKDAY_NAMES[self.start_weekday]} {self.start_hour:02d}:00-"
            f"{WEEKDAY_NAMES[self.end_weekday]} {self.end_hour:02d}:00"
        )


def circular_runs(cells: np.ndarray, min_hours: int) -> list[WeekRun]:
    """The runs of True cells at least ``min_hours`` long, in week order (a run wrapping from
    Sunday night into Monday is one run); a week of True cells is one 168-hour run, whatever
    ``min_hours``."""
    flat = np.asarray(cells, dtype=bool).reshape(-1)
    if flat.all():
        return [WeekRun(0, 0, HOURS_PER_WEEK)]
    if not flat.any():
        return []
    # Rotate so the week starts just after a False cell; then no run wraps around the end.
    shift = int(np.flatnonzero(~flat)[-1]) + 1
    rotated = np.roll(flat, -shift)
    edges = np.diff(np.concatenate(([0], rotated.astype(np.int8), [0])))
    runs = []
    for start, end in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
        if end - start >= min_hours:
            cell = (int(start) + shift) % HOURS_PER_WEEK
            runs.append(WeekRun(cell // 24, cell % 24, int(end - start)))
    return sorted(runs, key=lambda run: run.start_cell)


def runs_mask(runs: list[WeekRun] | tuple[WeekRun, ...]) -> np.ndarray:
    """(168,) bool mask of the cells the runs cover."""
    mask = np.zeros(HOURS_PER_WEEK, dtype=bool)
    for run in runs:
        mask[(run.start_cell + np.arange(run.hours)) % HOURS_PER_WEEK] = True
    return mask
