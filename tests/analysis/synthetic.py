"""Labelled synthetic GPU traces for the analysis engine's accuracy tests and benchmark.

The traces follow the phase signatures of DOMAIN.md with realistic messiness: phase durations drawn
from log-normal distributions, a Markov chain of transitions (data processing -> training ->
evaluation -> training ...), idle nights on some instances while long training runs continue
through the night on others, per-segment levels, correlated and white noise, short dips during
training (checkpoints), blips while idle, and dropouts in runs (an agent restart loses minutes to
hours, not only single samples). Everything is drawn from the ``numpy.random.Generator`` passed in,
so a seed reproduces a trace exactly.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np

from apps.analysis.engine import Phase

MINUTES_PER_DAY = 24 * 60

# (median minutes, log-normal sigma, minimum, maximum) per phase.
_DURATIONS: dict[Phase, tuple[float, float, int, int]] = {
    Phase.IDLE: (60.0, 0.8, 15, 600),
    Phase.DATA_PROCESSING: (35.0, 0.5, 12, 120),
    Phase.EVALUATION: (22.0, 0.4, 12, 60),
    Phase.TRAINING: (150.0, 0.6, 30, 600),
}

# Next-phase probabilities, in the order IDLE, DATA_PROCESSING, EVALUATION, TRAINING.
_TRANSITIONS: dict[Phase, tuple[float, float, float, float]] = {
    Phase.IDLE: (0.0, 0.6, 0.1, 0.3),
    Phase.DATA_PROCESSING: (0.15, 0.0, 0.0, 0.85),
    Phase.EVALUATION: (0.3, 0.1, 0.0, 0.6),
    Phase.TRAINING: (0.25, 0.15, 0.6, 0.0),
}
_ORDER = (Phase.IDLE, Phase.DATA_PROCESSING, Phase.EVALUATION, Phase.TRAINING)


@dataclasses.dataclass(frozen=True)
class SyntheticTraces:
    """Per-minute metrics of a fleet with the truth, all shaped (instances, minutes)."""

    gpu_util: np.ndarray
    gpu_mem: np.ndarray
    cpu_util: np.ndarray
    labels: np.ndarray
    """True phase per minute; UNKNOWN where the minute was dropped."""
    schedule: np.ndarray
    """True phase per minute before dropouts (where the real phase boundaries are)."""


def generate_traces(
    rng: np.random.Generator,
    *,
    instances: int,
    days: int,
    missing_fraction: float = 0.10,
    mean_dropout_minutes: float = 10.0,
    night_idle_share: float = 0.6,
) -> SyntheticTraces:
    """Generate labelled traces for ``instances`` x ``days`` days, starting at local midnight.

    ``missing_fraction`` of the minutes are dropped (all three metrics at once), in runs whose
    lengths mix single minutes with log-normal runs averaging ``mean_dropout_minutes``.
    ``night_idle_share`` of the instances sit idle at night unless a training run is in flight.
    """
    minutes = days * MINUTES_PER_DAY
    schedule = np.empty((instances, minutes), dtype=np.uint8)
    gpu = np.empty((instances, minutes), dtype=np.float32)
    mem = np.empty_like(gpu)
    cpu = np.empty_like(gpu)
    for row in range(instances):
        phases, lengths = _schedule(rng, minutes, night_idle=rng.random() < night_idle_share)
        schedule[row] = np.repeat(phases, lengths)
        gpu[row], mem[row], cpu[row] = _signals(rng, phases, lengths)
    missing = np.stack(
        [_dropouts(rng, minutes, missing_fraction, mean_dropout_minutes) for _ in range(instances)]
    )
    for metric in (gpu, mem, cpu):
        metric[missing] = np.nan
    labels = schedule.copy()
    labels[missing] = Phase.UNKNOWN
    return SyntheticTraces(gpu, mem, cpu, labels, schedule)


def _schedule(
    rng: np.random.Generator, minutes: int, *, night_idle: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Phases and their lengths covering ``minutes``, from a Markov chain over phases."""
    phases: list[int] = []
    lengths: list[int] = []
    phase = _ORDER[rng.integers(len(_ORDER))]
    now = 0
    while now < minutes:
        minute_of_day = now % MINUTES_PER_DAY
        is_night = minute_of_day >= 23 * 60 or minute_of_day < 7 * 60
        if night_idle and is_night and phase != Phase.TRAINING:
            phase = Phase.IDLE
            until_morning = (7 * 60 - minute_of_day) % MINUTES_PER_DAY
            length = max(15, until_morning + int(rng.integers(0, 90)))
        else:
            median, sigma, low, high = _DURATIONS[phase]
            length = int(np.clip(rng.lognormal(np.log(median), sigma), low, high))
        length = min(length, minutes - now)
        if phases and phases[-1] == phase:
            lengths[-1] += length
        else:
            phases.append(int(phase))
            lengths.append(length)
        now += length
        phase = _ORDER[rng.choice(len(_ORDER), p=_TRANSITIONS[phase])]
    return np.array(phases, dtype=np.uint8), np.array(lengths, dtype=np.int64)


def _signals(
    rng: np.random.Generator, phases: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-minute GPU utilization, GPU memory and CPU for one instance's schedule."""
    count = phases.size
    minutes = int(lengths.sum())
    per_minute = np.repeat(phases, lengths)
    idle = per_minute == Phase.IDLE
    data = per_minute == Phase.DATA_PROCESSING
    evaluation = per_minute == Phase.EVALUATION
    training = per_minute == Phase.TRAINING

    # Per-segment levels: each job has its own utilization, memory footprint and CPU load.
    gpu_level = np.select(
        [phases == Phase.IDLE, phases == Phase.DATA_PROCESSING, phases == Phase.EVALUATION],
        [
            rng.uniform(0.0, 1.5, count),
            rng.uniform(1.0, 12.0, count),
            rng.uniform(43.0, 57.0, count),
        ],
        rng.uniform(50.0, 75.0, count),
    )
    idle_holds_memory = rng.random(count) < 0.4
    mem_level = np.select(
        [phases == Phase.IDLE, phases == Phase.TRAINING],
        [
            np.where(
                idle_holds_memory, rng.uniform(20.0, 70.0, count), rng.uniform(0.0, 1.0, count)
            ),
            rng.uniform(70.0, 95.0, count),
        ],
        rng.uniform(30.0, 85.0, count),
    )
    cpu_level = np.select(
        [phases == Phase.IDLE, phases == Phase.DATA_PROCESSING],
        [rng.uniform(1.0, 12.0, count), rng.uniform(50.0, 95.0, count)],
        rng.uniform(15.0, 55.0, count),
    )
    gpu = np.repeat(gpu_level, lengths)
    white = rng.standard_normal(minutes)
    # Training fluctuates: slow correlated swings (a 5-minute moving average) plus white noise.
    swings = np.convolve(rng.standard_normal(minutes + 4), np.ones(5) / np.sqrt(5), "valid")
    gpu += np.where(training, 11.0 * swings + 8.0 * white, 0.0)
    gpu += np.where(evaluation, 2.0 * white, 0.0)
    gpu += np.where(data, np.abs(3.0 * white), 0.0)
    gpu += np.where(idle, np.abs(0.7 * white), 0.0)
    # Checkpoint dips while training, the odd batch during data processing, probes while idle.
    events = rng.random(minutes)
    gpu = np.where(training & (events < 0.03), rng.uniform(0.0, 15.0, minutes), gpu)
    gpu = np.where(data & (events < 0.03), rng.uniform(20.0, 40.0, minutes), gpu)
    gpu = np.where(idle & (events < 0.005), rng.uniform(5.0, 20.0, minutes), gpu)

    mem = np.repeat(mem_level, lengths) + 0.5 * rng.standard_normal(minutes)
    cpu = np.repeat(cpu_level, lengths) + np.where(idle, 2.0, 6.0) * rng.standard_normal(minutes)
    return (
        np.clip(gpu, 0.0, 100.0).astype(np.float32),
        np.clip(mem, 0.0, 100.0).astype(np.float32),
        np.clip(cpu, 0.0, 100.0).astype(np.float32),
    )


def _dropouts(
    rng: np.random.Generator, minutes: int, fraction: float, mean_run_minutes: float
) -> np.ndarray:
    """Boolean mask of dropped minutes: runs (30 % single minutes) until ``fraction`` is hit."""
    missing = np.zeros(minutes, dtype=bool)
    target = round(fraction * minutes)
    dropped = 0
    while dropped < target:
        single = rng.random() < 0.3
        length = 1 if single else max(1, int(rng.lognormal(np.log(mean_run_minutes), 0.9)))
        length = min(length, target - dropped, minutes)
        start = int(rng.integers(0, minutes - length + 1))
        # Runs may overlap earlier ones; count only the minutes this run newly drops.
        dropped += length - int(missing[start : start + length].sum())
        missing[start : start + length] = True
    return missing


def office_hours_util(
    rng: np.random.Generator,
    *,
    instances: int,
    start_utc: datetime,
    days: int,
    tz: str,
    busy_hours: tuple[int, int] = (9, 19),
    weekdays_only: bool = True,
    missing_fraction: float = 0.05,
) -> np.ndarray:
    """GPU utilization of a fleet busy only during local office hours, (instances, minutes).

    Busy minutes run at 40-95 %; off-hours sit at 0-3 %. Office hours are judged in ``tz``, so a
    DST change moves them in UTC exactly as it would for real people.
    """
    zone = ZoneInfo(tz)
    minutes = days * MINUTES_PER_DAY
    busy = np.zeros(minutes, dtype=bool)
    # Judge local time once per UTC quarter-hour: every real zone offset is a whole quarter-hour.
    for quarter in range(0, minutes, 15):
        local = (start_utc + timedelta(minutes=quarter)).astimezone(zone)
        weekday_ok = local.weekday() < 5 or not weekdays_only
        busy[quarter : quarter + 15] = weekday_ok and busy_hours[0] <= local.hour < busy_hours[1]
    util = np.where(
        busy,
        rng.uniform(40.0, 95.0, (instances, minutes)),
        rng.uniform(0.0, 3.0, (instances, minutes)),
    ).astype(np.float32)
    util[rng.random((instances, minutes)) < missing_fraction] = np.nan
    return util


def always_busy_util(rng: np.random.Generator, *, instances: int, days: int) -> np.ndarray:
    """GPU utilization of a fleet that trains around the clock (30-95 %), (instances, minutes)."""
    return rng.uniform(30.0, 95.0, (instances, days * MINUTES_PER_DAY)).astype(np.float32)
