"""The planner: the stops and starts of a window, pure (no database, time passed in)."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from apps.automation import planner
from apps.automation.planner import START, STOP, Run

SHANGHAI = "Asia/Shanghai"
BERLIN = "Europe/Berlin"
# Weeknights 19:00-09:00 (Mon-Thu nights) and the weekend Fri 19:00-Mon 09:00.
WEEKNIGHTS = [Run(d, 19, 14) for d in range(4)] + [Run(4, 19, 62)]


def local(tz: str, year: int, month: int, day: int, hour: int = 0) -> dt.datetime:
    return dt.datetime(year, month, day, hour, tzinfo=ZoneInfo(tz))


def test_it_stops_at_each_run_start_and_starts_at_each_run_end_in_the_org_timezone() -> None:
    monday = local(SHANGHAI, 2026, 11, 16)  # a Monday
    actions = planner.window_actions(
        WEEKNIGHTS, SHANGHAI, after=monday, until=monday + dt.timedelta(days=7)
    )
    assert [
        (a.kind, a.at.astimezone(ZoneInfo(SHANGHAI)).strftime("%a %H:%M")) for a in actions
    ] == [
        (START, "Mon 09:00"),  # the weekend's run ends Monday morning
        (STOP, "Mon 19:00"),
        (START, "Tue 09:00"),
        (STOP, "Tue 19:00"),
        (START, "Wed 09:00"),
        (STOP, "Wed 19:00"),
        (START, "Thu 09:00"),
        (STOP, "Thu 19:00"),
        (START, "Fri 09:00"),
        (STOP, "Fri 19:00"),
    ]
    assert all(a.at.tzinfo == dt.UTC for a in actions)
    # 19:00 in Shanghai (UTC+8) is 11:00 UTC.
    assert actions[1].at == dt.datetime(2026, 11, 16, 11, tzinfo=dt.UTC)


def test_it_keeps_wall_clock_times_across_daylight_saving_changes() -> None:
    # Berlin goes from CET (UTC+1) to CEST (UTC+2) on Sunday 2026-03-29.
    nightly = [Run(d, 19, 12) for d in range(7)]
    after = local(BERLIN, 2026, 3, 27, 12)
    actions = planner.window_actions(
        nightly, BERLIN, after=after, until=after + dt.timedelta(days=4)
    )
    stops = [a.at for a in actions if a.kind == STOP]
    assert [s.astimezone(ZoneInfo(BERLIN)).hour for s in stops] == [19, 19, 19, 19]
    assert stops[0] == dt.datetime(2026, 3, 27, 18, tzinfo=dt.UTC)  # CET
    assert stops[3] == dt.datetime(2026, 3, 30, 17, tzinfo=dt.UTC)  # CEST
    starts = [a.at for a in actions if a.kind == START]
    assert [s.astimezone(ZoneInfo(BERLIN)).hour for s in starts] == [7, 7, 7, 7]
    # The night of the change is 11 hours long, not 12.
    saturday_stop = stops[1]
    sunday_start = next(s for s in starts if s > saturday_stop)
    assert sunday_start - saturday_stop == dt.timedelta(hours=11)


def test_a_missing_local_hour_lands_in_the_first_hour_that_exists() -> None:
    # 02:00 does not exist in Berlin on 2026-03-29 (clocks jump to 03:00).
    run = [Run(6, 2, 3)]  # Sunday 02:00-05:00
    after = local(BERLIN, 2026, 3, 28)
    actions = planner.window_actions(run, BERLIN, after=after, until=after + dt.timedelta(days=2))
    stop = next(a for a in actions if a.kind == STOP)
    assert stop.at.astimezone(ZoneInfo(BERLIN)).strftime("%H:%M") == "03:00"


def test_a_skip_date_skips_the_stop_beginning_on_it_and_its_matching_start() -> None:
    monday = local(SHANGHAI, 2026, 11, 16)
    holiday = dt.date(2026, 11, 18)  # Wednesday
    actions = planner.window_actions(
        WEEKNIGHTS,
        SHANGHAI,
        after=monday,
        until=monday + dt.timedelta(days=7),
        skip_dates={holiday},
    )
    shown = [(a.kind, a.at.astimezone(ZoneInfo(SHANGHAI)).strftime("%a %H:%M")) for a in actions]
    assert (STOP, "Wed 19:00") not in shown
    assert (START, "Thu 09:00") not in shown
    # The run that began the day before still ends (is started) on the holiday.
    assert (START, "Wed 09:00") in shown
    assert len(shown) == 8


def test_next_actions_gives_the_next_n_and_none_when_paused() -> None:
    now = local(SHANGHAI, 2026, 11, 16, 12)
    found = planner.next_actions(WEEKNIGHTS, SHANGHAI, now=now, count=12)
    assert len(found) == 12
    assert found[0].kind == STOP
    assert found[0].at > now
    assert [a.at for a in found] == sorted(a.at for a in found)
    assert planner.next_actions(WEEKNIGHTS, SHANGHAI, now=now, count=12, paused=True) == []


def test_stop_idle_stops_once_after_the_grace() -> None:
    told = dt.datetime(2026, 11, 16, 8, tzinfo=dt.UTC)
    assert planner.idle_stop_at(told, 24) == dt.datetime(2026, 11, 17, 8, tzinfo=dt.UTC)


def test_it_reads_the_runs_of_a_recommendations_window() -> None:
    window: dict[str, Any] = {
        "tz": SHANGHAI,
        "runs": [
            {"start_weekday": 4, "start_hour": 19, "end_weekday": 0, "end_hour": 9, "hours": 62}
        ],
    }
    assert planner.runs_from_window(window) == [Run(4, 19, 62)]
    del window["runs"][0]["hours"]
    assert planner.runs_from_window(window) == [Run(4, 19, 62)]


def test_it_refuses_naive_times_and_impossible_runs() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        planner.window_actions(
            WEEKNIGHTS, SHANGHAI, after=dt.datetime(2026, 1, 1), until=dt.datetime(2026, 1, 2)
        )
    with pytest.raises(ValueError, match="not a weekday"):
        Run(7, 0, 3)


def test_weeks_are_local_mondays() -> None:
    moment = dt.datetime(2026, 11, 22, 17, tzinfo=dt.UTC)  # Monday 01:00 in Shanghai
    assert planner.week_start(moment, SHANGHAI) == dt.date(2026, 11, 23)
    lo, hi = planner.week_bounds(dt.date(2026, 3, 23), BERLIN)
    assert hi - lo == dt.timedelta(hours=167)
