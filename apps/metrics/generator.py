"""Synthetic per-minute fleet metrics for benchmarks, tests and demos.

The data looks like a Cloud Monitor export of a GPU fleet: training jobs with evaluation dips,
inference following the day, idle cards, day-only instances stopped at night (no points at
all then), data-bound jobs starving the GPU, a few dropped minutes, values with two decimals.
Everything is deterministic per (seed, instance index, day) and written through the same
``metrics_write_bulk`` the cloud sync uses.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

import numpy as np

from apps.core.timegrid import date_to_epoch_day
from apps.metrics.constants import MINUTES_PER_DAY, SECONDS_PER_DAY, Metric
from apps.metrics.services import MetricSeries, MetricWriteResult, metrics_write_bulk

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
# Asia/Shanghai (UTC+8): the business day of the simulated teams.
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
    local = minutes + LOCAL_OFFSET_MINUTES
    local_hour = (local % MINUTES_PER_DAY) / 60.0
    weekday = (local // MINUTES_PER_DAY + 3) % 7  # 1970-01-01 was a Thursday
    business = (weekday < 5) & (local_hour >= 9) & (local_hour < 19)
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
