"""Runs of hours in a week, shared by the analysis engine's off window and the rules' schedules."""

from __future__ import annotations

import numpy as np

from apps.analysis.engine import OffWindowRun
from apps.core.weekruns import HOURS_PER_WEEK, WeekRun, circular_runs, runs_mask
from apps.recommendations.rules.weekly import run_json, run_mask


def week(*spans: tuple[int, int]) -> np.ndarray:
    cells = np.zeros(HOURS_PER_WEEK, dtype=bool)
    for start, hours in spans:
        cells[(start + np.arange(hours)) % HOURS_PER_WEEK] = True
    return cells


def test_a_run_from_sunday_night_into_monday_is_one_run() -> None:
    (run,) = circular_runs(week((6 * 24 + 20, 10)), min_hours=4)
    assert (run.start_weekday, run.start_hour, run.hours) == (6, 20, 10)
    assert (run.end_weekday, run.end_hour) == (0, 6)
    assert str(run) == "Sun 20:00-Mon 06:00"


def test_it_keeps_runs_long_enough_in_week_order() -> None:
    runs = circular_runs(week((3 * 24 + 1, 8), (0, 2), (24 + 22, 9)), min_hours=3)
    assert runs == [WeekRun(1, 22, 9), WeekRun(3, 1, 8)]
    assert np.flatnonzero(runs_mask(runs)).tolist() == [*range(46, 55), *range(73, 81)]


def test_a_whole_week_is_one_run_and_an_empty_week_none() -> None:
    assert circular_runs(np.ones((7, 24), dtype=bool), min_hours=8) == [WeekRun(0, 0, 168)]
    assert circular_runs(np.zeros(168, dtype=bool), min_hours=1) == []


def test_the_engine_and_the_rules_use_the_same_run() -> None:
    assert OffWindowRun is WeekRun
    run = WeekRun(4, 19, 62)  # Friday 19:00 to Monday 09:00
    assert run_json(run) == {
        "start_weekday": 4,
        "start_hour": 19,
        "end_weekday": 0,
        "end_hour": 9,
        "hours": 62,
        "label": "Fri 19:00-Mon 09:00",
    }
    assert run_mask([run]).shape == (7, 24)
    assert int(run_mask([run]).sum()) == 62
