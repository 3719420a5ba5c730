"""Raw days are stored int16 fixed point only where that is exact, and always read back bit for bit."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from apps.metrics.constants import MINUTES_PER_DAY, Metric
from apps.metrics.models import MetricDay
from apps.metrics.selectors import metrics_read
from apps.metrics.services import MetricSeries, metrics_recent_compact, metrics_write_bulk
from apps.metrics.storage import codec
from tests.metrics.conftest import MIDNIGHT


def roundtrip(days: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    scales, codes = codec.encode(days)
    out = np.empty(days.shape, np.float32)
    for day, scale, code, target in zip(days, scales, codes, out, strict=True):
        payload = codec.to_bytes(day, int(scale), code)
        assert len(payload) == codec.payload_bytes(int(scale))
        codec.from_bytes(payload, int(scale), target)
    return scales, out


def assert_same_bits(actual: np.ndarray, expected: np.ndarray) -> None:
    gaps = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(actual), gaps)
    np.testing.assert_array_equal(actual[~gaps].view(np.uint32), expected[~gaps].view(np.uint32))


two_decimals = st.integers(-32767, 32767).map(lambda k: float(np.float32(k / 100)))
any_float32 = st.floats(width=32, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(
    pattern=hnp.arrays(
        np.float32,
        st.integers(1, 100),
        elements=st.one_of(two_decimals, any_float32, st.just(float("nan"))),
    )
)
def test_any_day_reads_back_bit_for_bit(pattern: np.ndarray) -> None:
    days = np.resize(pattern, (3, MINUTES_PER_DAY))  # three days repeating the pattern

    _scales, out = roundtrip(days)

    assert_same_bits(out, days)


def test_it_codes_what_cloud_monitor_reports_and_keeps_the_rest_as_float32() -> None:
    days = np.full((6, MINUTES_PER_DAY), np.nan, dtype=np.float32)
    days[0, :3] = [12.34, 99.99, 0.0]  # a percentage with two decimals
    days[1, :2] = [50.5, 500.5]  # watts: 50,050 is past int16, 5,005 (scale 10) is not
    days[2, :2] = [20_480.0, 81.0]  # whole MB fit at scale 1 under 32,768...
    days[3, :2] = [81_920.0, 1.0]  # ... and not above
    days[4, :2] = [12.345, 1.0]  # three decimals
    days[5, :2] = [-0.0, 1.0]  # a negative zero is not a code

    scales, out = roundtrip(days)

    assert scales.tolist() == [100, 10, 1, codec.RAW, codec.RAW, codec.RAW]
    assert_same_bits(out, days)
    assert np.signbit(out[5, 0])


@pytest.mark.django_db
def test_one_read_decodes_coded_float32_missing_and_recent_days_alike(acme, make_instances):
    coded, mixed = make_instances(acme, 2)
    rng = np.random.default_rng(3)
    days = 4
    expected = {
        coded.id: np.round(rng.uniform(0, 100, (days, MINUTES_PER_DAY)), 2).astype(np.float32),
        mixed.id: np.round(rng.uniform(0, 100, (days, MINUTES_PER_DAY)), 2).astype(np.float32),
    }
    expected[mixed.id][1] += np.float32(0.001)  # day 1 no longer codes: stored as float32
    expected[mixed.id][2] = np.nan  # day 2 has no row at all
    expected[mixed.id][3, ::7] = np.nan  # day 3 has gaps
    minutes = np.arange(days * MINUTES_PER_DAY)
    seconds = int(MIDNIGHT.timestamp()) + 60 * minutes
    metrics_write_bulk(
        series=[
            MetricSeries(i, Metric.GPU_UTIL_PCT, seconds, values.ravel())
            for i, values in expected.items()
        ]
    )
    # A late correction arrives as a recent point over a coded day, then one is folded in.
    expected[coded.id][0, 5] = 7.25
    metrics_write_bulk(series=[MetricSeries(coded.id, Metric.GPU_UTIL_PCT, [seconds[5]], [7.25])])
    layouts = dict(
        MetricDay.objects.filter(instance=mixed).values_list("day", "scale").order_by("day")
    )

    def read() -> np.ndarray:
        end = MIDNIGHT + dt.timedelta(days=days)
        return metrics_read(
            instance_ids=[mixed.id, coded.id], metric=Metric.GPU_UTIL_PCT, start=MIDNIGHT, end=end
        )

    before = read()
    metrics_recent_compact()
    after = read()

    assert list(layouts.values()) == [100, codec.RAW, 100]
    for actual in (before, after):
        assert_same_bits(actual[0], expected[mixed.id].ravel())
        assert_same_bits(actual[1], expected[coded.id].ravel())
