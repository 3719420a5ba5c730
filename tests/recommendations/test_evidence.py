"""The evidence reader: the reserved-instance price table, what the analysis could not see."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from apps.analysis.engine import Evidence, Phase
from apps.analysis.models import PhaseSegment
from apps.recommendations.evidence import organization_evidence, parse_reserved_prices
from apps.recommendations.rules import DEFAULT_RULE_THRESHOLDS
from tests.recommendations.factories import AS_OF, END, make_instance


def test_it_reads_a_reserved_price_table_with_defaults() -> None:
    (price,) = parse_reserved_prices(
        [{"region": "ap-shanghai", "instance_type": "GN7.2XLARGE32", "hourly": "2.5"}], "CNY"
    )
    assert (price.hourly, price.term_years, price.currency) == (Decimal("2.5"), 1, "CNY")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"region": "x"}, "expected a list"),
        ([{"region": "ap-shanghai", "hourly": "2"}], r"reserved_prices\[0\]"),
        ([{"region": "r", "instance_type": "t", "hourly": "-1"}], "must be positive"),
        ([{"region": "r", "instance_type": "t", "hourly": "abc"}], r"reserved_prices\[0\]"),
    ],
)
def test_it_refuses_a_bad_reserved_price_table_naming_the_entry(raw, message) -> None:
    with pytest.raises(ValueError, match=message):
        parse_reserved_prices(raw, "CNY")


@pytest.mark.django_db
def test_it_carries_the_minutes_each_phase_was_classified_without_a_metric(acme) -> None:
    """From the analysis' segments (their evidence bits), clipped to the lookback."""
    instance = make_instance(acme)
    no_cpu = int(Evidence.GPU_UTIL | Evidence.GPU_MEM)
    data_bound = int(Phase.DATA_PROCESSING)
    segments = [
        # 90 minutes before the lookback start, 60 inside it: 60 count.
        (
            data_bound,
            END - dt.timedelta(days=14, minutes=90),
            END - dt.timedelta(days=14, minutes=-60),
            no_cpu,
        ),
        (data_bound, END - dt.timedelta(hours=5), END - dt.timedelta(hours=3), no_cpu),
        (data_bound, END - dt.timedelta(hours=3), END - dt.timedelta(hours=2), int(Evidence.FULL)),
        (
            int(Phase.IDLE),
            END - dt.timedelta(hours=2),
            END - dt.timedelta(hours=1),
            int(Evidence.GPU_UTIL),
        ),
    ]
    PhaseSegment.objects.bulk_create(
        PhaseSegment(
            organization=acme, instance=instance, phase=phase, start_at=a, end_at=b, evidence=bits
        )
        for phase, a, b, bits in segments
    )
    (ev,) = organization_evidence(
        organization=acme, as_of=AS_OF, thresholds=DEFAULT_RULE_THRESHOLDS
    )
    assert ev.phase_minutes_missing == {
        "data_processing": {"cpu_util": 60 + 120},
        "idle": {"gpu_mem": 60, "cpu_util": 60},
    }
