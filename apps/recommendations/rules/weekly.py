"""Hour-of-week windows: circular runs of cells, their labels and cron specifications."""

from __future__ import annotations

import dataclasses

import numpy as np

HOURS_PER_WEEK = 168
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


@dataclasses.dataclass(frozen=True)
class Run:
    """``hours`` consecutive local hours from (weekday, hour); weekday 0 is Monday."""

    start_weekday: int
    start_hour: int
    hours: int

    @property
    def end_weekday(self) -> int:
        return ((self.start_weekday * 24 + self.start_hour + self.hours) // 24) % 7

    @property
    def end_hour(self) -> int:
        return (self.start_hour + self.hours) % 24

    def label(self) -> str:
        return (
            f"{WEEKDAYS[self.start_weekday]} {self.start_hour:02d}:00-"
            f"{WEEKDAYS[self.end_weekday]} {self.end_hour:02d}:00"
        )

    def as_json(self) -> dict[str, object]:
        return {
            "start_weekday": self.start_weekday,
            "start_hour": self.start_hour,
            "end_weekday": self.end_weekday,
            "end_hour": self.end_hour,
            "hours": self.hours,
            "label": self.label(),
        }


def circular_runs(cells: np.ndarray, min_hours: int) -> list[Run]:
    """Runs of True in a 168-cell week (Sunday night runs on into Monday), long enough."""
    flat = np.asarray(cells, dtype=bool).reshape(-1)
    if flat.all():
        return [Run(0, 0, HOURS_PER_WEEK)]
    if not flat.any():
        return []
    shift = int(np.flatnonzero(~flat)[-1]) + 1
    rotated = np.roll(flat, -shift)
    edges = np.diff(np.concatenate(([0], rotated.astype(np.int8), [0])))
    out = []
    for start, end in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
        if end - start >= min_hours:
            cell = (int(start) + shift) % HOURS_PER_WEEK
            out.append(Run(cell // 24, cell % 24, int(end - start)))
    return sorted(out, key=lambda run: (run.start_weekday, run.start_hour))


def run_mask(runs: list[Run]) -> np.ndarray:
    """(7, 24) bool mask of the cells the runs cover."""
    mask = np.zeros(HOURS_PER_WEEK, dtype=bool)
    for run in runs:
        first = run.start_weekday * 24 + run.start_hour
        mask[(first + np.arange(run.hours)) % HOURS_PER_WEEK] = True
    return mask.reshape(7, 24)


def cron_lines(moments: list[tuple[int, int]], command: str) -> list[str]:
    """Cron lines running ``command`` at each (weekday, hour), one line per hour of the day."""
    by_hour: dict[int, set[int]] = {}
    for weekday, hour in moments:
        by_hour.setdefault(hour, set()).add(weekday)
    return [f"0 {hour} * * {_cron_days(days)} {command}" for hour, days in sorted(by_hour.items())]


def _cron_days(weekdays: set[int]) -> str:
    # Cron counts Sunday as 0 and Monday as 1; a range only where three or more days follow on.
    days = sorted((weekday + 1) % 7 for weekday in weekdays)
    if len(days) == 7:
        return "*"
    groups: list[list[int]] = []
    for day in days:
        if groups and day == groups[-1][-1] + 1:
            groups[-1].append(day)
        else:
            groups.append([day])
    parts = []
    for group in groups:
        if len(group) >= 3:
            parts.append(f"{group[0]}-{group[-1]}")
        else:
            parts.extend(str(day) for day in group)
    return ",".join(parts)
