"""Synthetic GPU fleets for the tests and the benchmarks (test-only: nothing in apps/ imports it).

One module, three uses:

- **Pattern fleets** (``fleet_patterns``, ``synthesize_day``, ``fleet_series``,
  ``fleet_generate``): what Cloud Monitor would report for a fleet of named usage patterns
  (training jobs with evaluation dips, inference following the day, idle cards, day-only
  instances stopped at night, data-bound jobs starving the GPU), a few dropped minutes, values
  with two decimals. Deterministic per (seed, instance index, UTC day), and written through the
  same ``metrics_write_bulk`` the cloud sync uses: the metric-store and analysis tests and
  benchmarks read exactly what production reads.
- **Labelled traces** (``generate_traces``): GPU utilization, GPU memory and CPU with the true
  phase of every minute, for the engine's accuracy tests and benchmark. The traces follow the
  phase signatures of DOMAIN.md with realistic messiness: phase durations drawn from log-normal
  distributions, a Markov chain of transitions (data processing -> training -> evaluation ->
  training ...), idle nights on some instances while long training runs continue through the
  night on others, per-segment levels, correlated and white noise, short dips during training
  (checkpoints), blips while idle, and dropouts in runs (an agent restart loses minutes to hours,
  not only single samples). Everything is drawn from the ``numpy.random.Generator`` passed in,
  so a seed reproduces a trace exactly.
- **Hour-of-week fleets** (``office_hours_util``, ``always_busy_util``) for the profile tests.

Office hours are judged in one place (``business_minutes``) for all of them.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import numpy as np

from apps.analysis.engine import Phase
from apps.core.timegrid import (
    MINUTES_PER_DAY,
    SECONDS_PER_DAY,
    date_to_epoch_day,
    epoch_minute_to_datetime,
)
from apps.metrics.constants import Metric

if TYPE_CHECKING:
    from apps.metrics.services import MetricSeries, MetricWriteResult


def business_minutes(
    start_utc: dt.datetime,
    minutes: int,
    tz: str,
    busy_hours: tuple[int, int] = (9, 19),
    *,
    weekdays_only: bool = True,
) -> np.ndarray:
    """(minutes,) bool: the minute from ``start_utc`` on falls in local office hours in ``tz``.

    Judged in ``tz``, so a DST change moves office hours in UTC exactly as it would for real
    people.
    """
    zone = ZoneInfo(tz)
    busy = np.zeros(minutes, dtype=bool)
    # Judge local time once per UTC quarter-hour: every real zone offset is a whole quarter-hour.
    for quarter in range(0, minutes, 15):
        local = (start_utc + dt.timedelta(minutes=quarter)).astimezone(zone)
        weekday_ok = local.weekday() < 5 or not weekdays_only
        busy[quarter : quarter + 15] = weekday_ok and busy_hours[0] <= local.hour < busy_hours[1]
    return busy


# --- pattern fleets, written through the metric store ------------------------------------------

TRAINING = "training"
INFERENCE = "inference"
IDLE = "idle"
DAY_ONLY = "day_only"
DATA_BOUND = "data_bound"
DEFAULT_PATTERN_SHARES: Mapping[str, float] = {
    TRAINING: 0.3,
    INFERENCE: 0.2,
    IDLE: 0.2,
    DAY_ONLY: 0.2,
    DATA_BOUND: 0.1,
}
PATTERNS = tuple(DEFAULT_PATTERN_SHARES)
DROPOUT_RATE = 0.002
GPU_MEMORY_MB = 24_576
IDLE_POWER_W, MAX_POWER_W = 60.0, 300.0
# The simulated teams work in Shanghai (UTC+8 all year, no daylight saving time).
TEAM_TIMEZONE = "Asia/Shanghai"
LOCAL_OFFSET_MINUTES = 8 * 60


def fleet_patterns(
    count: int, *, seed: int = 0, shares: Mapping[str, float] | None = None
) -> list[str]:
    """A deterministic pattern per instance, drawn with the given shares."""
    shares = dict(shares or DEFAULT_PATTERN_SHARES)
    unknown = set(shares) - set(PATTERNS)
    if unknown:
        raise ValueError(f"unknown patterns {sorted(unknown)}; known: {PATTERNS}")
    names = list(shares)
    weights = np.array([shares[name] for name in names], dtype=np.float64)
    rng = np.random.default_rng([seed, 0x9A77])
    return [names[i] for i in rng.choice(len(names), size=count, p=weights / weights.sum())]


def _smooth(rng: np.random.Generator, rows: int, width: int) -> np.ndarray:
    """Unit-variance noise correlated over ``width`` minutes (utilization drifts, not jumps)."""
    white = rng.normal(size=(rows, MINUTES_PER_DAY + width))
    summed = np.cumsum(white, axis=1)
    return (summed[:, width:] - summed[:, :-width]) / np.sqrt(width)


def synthesize_day(
    patterns: Sequence[str], epoch_day: int, *, seed: int = 0, first_index: int = 0
) -> dict[str, np.ndarray]:
    """All metrics of a fleet for one UTC day: metric -> (instances, 1,440) float32, NaN = none.

    Instance ``i`` of ``patterns`` draws from the stream of index ``first_index + i``, so a fleet
    synthesized in chunks equals the fleet synthesized at once.
    """
    rows = len(patterns)
    pattern = np.array(patterns)
    noise = np.empty((4, rows, MINUTES_PER_DAY))
    dropped = np.empty((rows, MINUTES_PER_DAY), dtype=bool)
    for row in range(rows):
        rng = np.random.default_rng([seed, first_index + row, epoch_day])
        noise[0, row], noise[1, row] = _smooth(rng, 1, 31)[0], _smooth(rng, 1, 61)[0]
        noise[2, row], noise[3, row] = _smooth(rng, 1, 15)[0], rng.normal(size=MINUTES_PER_DAY)
        dropped[row] = rng.random(MINUTES_PER_DAY) < DROPOUT_RATE
    s1, s2, s3, white = noise
    minutes = epoch_day * MINUTES_PER_DAY + np.arange(MINUTES_PER_DAY)
    local_hour = ((minutes + LOCAL_OFFSET_MINUTES) % MINUTES_PER_DAY) / 60.0
    business = business_minutes(
        epoch_minute_to_datetime(epoch_day * MINUTES_PER_DAY), MINUTES_PER_DAY, TEAM_TIMEZONE
    )
    wave = np.sin(2 * np.pi * (local_hour - 8.0) / 24.0)
    cycle = (minutes[np.newaxis, :] + 97 * (first_index + np.arange(rows))[:, np.newaxis]) % 420
    evaluating = cycle >= 375

    util = np.clip(1.5 + s1, 0.0, 5.0)  # idle unless a pattern says otherwise
    mem = np.clip(1.2 + 0.2 * s2, 0.5, 3.0)
    cpu = np.clip(2.0 + 0.7 * s3, 0.2, 5.0)
    host = np.clip(11.0 + 0.5 * s2, 5.0, 20.0)
    is_ = {name: (pattern == name)[:, np.newaxis] for name in PATTERNS}
    train = np.where(
        evaluating, np.clip(50 + 3 * s3, 40, 60), np.clip(60 + 20 * s1 + 6 * white, 30, 92)
    )
    util = np.where(is_[TRAINING], train, util)
    mem = np.where(is_[TRAINING], np.where(evaluating, 62 + 0.5 * s2, 84 + 0.8 * s2), mem)
    cpu = np.where(is_[TRAINING], np.clip(28 + 5 * s3, 3, 100), cpu)
    host = np.where(is_[TRAINING], 58 + s2, host)
    util = np.where(is_[INFERENCE], np.clip(42 + 10 * wave + 4 * s1 + 2 * white, 15, 80), util)
    mem = np.where(is_[INFERENCE], 48 + 0.3 * s2, mem)
    cpu = np.where(is_[INFERENCE], np.clip(30 + 6 * wave + 3 * s3, 5, 100), cpu)
    util = np.where(is_[DATA_BOUND], np.clip(11 + 3.5 * s1 + 1.5 * white, 1, 19.5), util)
    cpu = np.where(is_[DATA_BOUND], np.clip(88 + 4 * s3, 60, 100), cpu)
    day_busy = is_[DAY_ONLY] & business
    util = np.where(day_busy, np.clip(68 + 14 * s1 + 5 * white, 35, 95), util)
    mem = np.where(day_busy, 72 + s2, mem)
    cpu = np.where(day_busy, np.clip(35 + 5 * s3, 10, 100), cpu)

    mem = np.clip(mem, 0.0, 100.0)
    temp = np.clip(30.0 + 0.45 * util + 1.2 * s3, 25.0, 84.0)
    power = IDLE_POWER_W + (MAX_POWER_W - IDLE_POWER_W) * util / 100.0 + 2.0 * white
    values = {
        Metric.GPU_UTIL_PCT: util,
        Metric.GPU_MEM_USED_PCT: mem,
        Metric.GPU_MEM_USED_MB: mem / 100.0 * GPU_MEMORY_MB,
        Metric.GPU_TEMP_C: temp,
        Metric.GPU_POWER_W: np.clip(power, IDLE_POWER_W * 0.8, MAX_POWER_W),
        Metric.CPU_UTIL_PCT: cpu,
        Metric.MEM_UTIL_PCT: np.clip(host, 0.0, 100.0),
    }
    # Day-only instances are stopped outside business hours: no points, not zeros.
    missing = dropped | (is_[DAY_ONLY] & ~business)
    result = {}
    for metric, array in values.items():
        rounded = np.round(array, 2).astype(np.float32)
        rounded[missing] = np.nan
        result[metric.value] = rounded
    return result


def fleet_series(
    instance_ids: Sequence[int],
    patterns: Sequence[str],
    epoch_day: int,
    *,
    seed: int = 0,
    metrics: Sequence[str] | None = None,
    first_index: int = 0,
) -> list[MetricSeries]:
    """One day of the fleet as writer input: a series per (instance, metric)."""
    # Imported here: the metric services need Django's app registry, and the engine benchmark
    # uses this module's traces without Django.
    from apps.metrics.services import MetricSeries

    day = synthesize_day(patterns, epoch_day, seed=seed, first_index=first_index)
    timestamps = (epoch_day * SECONDS_PER_DAY) + 60 * np.arange(MINUTES_PER_DAY, dtype=np.int64)
    chosen = [Metric(m).value for m in (metrics or Metric.values)]
    return [
        MetricSeries(instance_id, metric, timestamps, day[metric][row])
        for row, instance_id in enumerate(instance_ids)
        for metric in chosen
    ]


def fleet_generate(
    *,
    instance_ids: Sequence[int],
    start_day: dt.date,
    days: int,
    seed: int = 0,
    patterns: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    chunk_instances: int = 250,
    update_rollups: bool = True,
) -> list[MetricWriteResult]:
    """Write ``days`` UTC days of synthetic metrics for the instances, one chunk per call."""
    from apps.metrics.services import metrics_write_bulk

    patterns = list(patterns or fleet_patterns(len(instance_ids), seed=seed))
    if len(patterns) != len(instance_ids):
        raise ValueError("one pattern per instance is needed")
    results = []
    first = date_to_epoch_day(start_day)
    for epoch_day in range(first, first + days):
        for offset in range(0, len(instance_ids), chunk_instances):
            series = fleet_series(
                instance_ids[offset : offset + chunk_instances],
                patterns[offset : offset + chunk_instances],
                epoch_day,
                seed=seed,
                metrics=metrics,
                first_index=offset,
            )
            results.append(metrics_write_bulk(series=series, update_rollups=update_rollups))
    return results


# --- labelled traces and hour-of-week fleets, for the engine --------------------------------

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
    noisy_training: bool = False,
) -> SyntheticTraces:
    """Generate labelled traces for ``instances`` x ``days`` days, starting at local midnight.

    ``missing_fraction`` of the minutes are dropped (all three metrics at once), in runs whose
    lengths mix single minutes with log-normal runs averaging ``mean_dropout_minutes``.
    ``night_idle_share`` of the instances sit idle at night unless a training run is in flight.

    ``noisy_training`` is the case that fooled the classifier on an independent fleet: training
    drifts slowly between 30 and 92 % with 6 points of minute-to-minute noise, so it spends long
    stretches in the 40-60 % band with a 5-minute sd under the "steady" cut, like evaluation;
    what tells them apart is that evaluation holds 10-55 points less GPU memory than training. Off (the default), the output of a seed is what it always was.
    """
    minutes = days * MINUTES_PER_DAY
    schedule = np.empty((instances, minutes), dtype=np.uint8)
    gpu = np.empty((instances, minutes), dtype=np.float32)
    mem = np.empty_like(gpu)
    cpu = np.empty_like(gpu)
    for row in range(instances):
        phases, lengths = _schedule(rng, minutes, night_idle=rng.random() < night_idle_share)
        schedule[row] = np.repeat(phases, lengths)
        gpu[row], mem[row], cpu[row] = _signals(rng, phases, lengths, noisy_training=noisy_training)
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
    rng: np.random.Generator,
    phases: np.ndarray,
    lengths: np.ndarray,
    *,
    noisy_training: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-minute GPU utilization, GPU memory and CPU for one instance's schedule.

    The noisy-training variant draws its extra numbers only when asked, so the default output of
    a seed never changes (old accuracy figures stay comparable).
    """
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
    if noisy_training:
        # Evaluation loads the model without optimizer state, gradients and big batches.
        mem_level = np.where(phases == Phase.EVALUATION, rng.uniform(40.0, 60.0, count), mem_level)
    gpu = np.repeat(gpu_level, lengths)
    white = rng.standard_normal(minutes)
    # Training fluctuates: slow correlated swings (a 5-minute moving average) plus white noise.
    swings = np.convolve(rng.standard_normal(minutes + 4), np.ones(5) / np.sqrt(5), "valid")
    if noisy_training:
        # Jobs centred at 40-65 % that drift over about two hours (10 points, unit-variance
        # drift) with 6 points of minute-to-minute noise: often in evaluation's 40-60 % band
        # with a 5-minute sd under 6 (the old classifier called 32 % of these minutes
        # evaluation, as on the fleet where this was found).
        drift = np.cumsum(rng.standard_normal(minutes + 121))
        drift = (drift[121:] - drift[:-121]) / np.sqrt(121.0)
        noisy = np.clip(gpu - 10.0 + 10.0 * drift + 6.0 * white, 30.0, 92.0)
        gpu = np.where(training, noisy, gpu)
    else:
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
    start_utc: dt.datetime,
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
    minutes = days * MINUTES_PER_DAY
    busy = business_minutes(start_utc, minutes, tz, busy_hours, weekdays_only=weekdays_only)
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
