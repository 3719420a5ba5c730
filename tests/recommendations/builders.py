"""Hand-built rule inputs (no database): one instance's lookback, shaped by a few numbers."""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal
from typing import Any

import numpy as np

from apps.recommendations.rules import InstanceEvidence, Profile, TypeOffer

END = dt.datetime(2026, 11, 16, tzinfo=dt.UTC)
HOURS = 14 * 24

T4_OFFERS = (
    TypeOffer(
        "GN7.2XLARGE32",
        "GN7",
        "NVIDIA T4",
        1,
        16,
        Decimal("5.20"),
        Decimal("2190.24"),
        Decimal("1.04"),
    ),
    TypeOffer(
        "GN7.5XLARGE80",
        "GN7",
        "NVIDIA T4",
        1,
        16,
        Decimal("7.75"),
        Decimal("3264.30"),
        Decimal("1.55"),
    ),
    TypeOffer(
        "GN7.8XLARGE128",
        "GN7",
        "NVIDIA T4",
        2,
        16,
        Decimal("13.60"),
        Decimal("5728.32"),
        Decimal("2.72"),
    ),
)
V100_A100_OFFERS = (
    TypeOffer(
        "GN10Xp.5XLARGE80",
        "GN10Xp",
        "NVIDIA V100",
        2,
        32,
        Decimal("31.60"),
        Decimal("13309.92"),
        Decimal("6.32"),
    ),
    TypeOffer(
        "GT4.4XLARGE96",
        "GT4",
        "NVIDIA A100",
        1,
        40,
        Decimal("28.50"),
        Decimal("12004.20"),
        Decimal("5.70"),
    ),
    TypeOffer(
        "GT4.8XLARGE192",
        "GT4",
        "NVIDIA A100",
        2,
        40,
        Decimal("57.00"),
        Decimal("24008.40"),
        Decimal("11.40"),
    ),
)


def hourly(value: float, hours: int = HOURS) -> np.ndarray:
    return np.full(hours, value, dtype=np.float64)


def evidence(**changes: Any) -> InstanceEvidence:
    """A GN7.2XLARGE32 pay-as-you-go instance busy training 14 days, billed 5.00 CNY/h."""
    base = InstanceEvidence(
        instance_id=7,
        provider_id="ins-abc12345",
        name="box",
        region="ap-shanghai",
        zone="ap-shanghai-2",
        instance_type="GN7.2XLARGE32",
        family="GN7",
        gpu_model="NVIDIA T4",
        gpu_count=1,
        gpu_memory_gb=16,
        charge_type="POSTPAID_BY_HOUR",
        project_id=3,
        start=END - dt.timedelta(days=14),
        end=END,
        existed_hours=float(HOURS),
        gpu_util_p95=hourly(85.0),
        gpu_util_avg=hourly(60.0),
        gpu_mem_avg=hourly(80.0),
        gpu_mem_p95=hourly(84.0),
        gpu_temp_p95=hourly(70.0),
        observed_minutes=hourly(60.0),
        phase_minutes={"idle": 0, "data_processing": 0, "evaluation": 2000, "training": 18160},
        billed_runtime_cost=Decimal("1680.00"),
        billed_hours=Decimal("336"),
        currency="CNY",
        offers=T4_OFFERS,
    )
    return dataclasses.replace(base, **changes)


def profile(p95: np.ndarray, coverage: np.ndarray, weeks: int = 2) -> Profile:
    return Profile(
        tz="Asia/Shanghai",
        p95_pct=p95,
        coverage=coverage,
        start_at=END - dt.timedelta(days=14),
        end_at=END,
        supporting_weeks=weeks,
    )


def working_hours_matrix(busy: float, off: float) -> np.ndarray:
    """7 x 24 with ``busy`` 09-19 Monday to Friday and ``off`` elsewhere."""
    matrix = np.full((7, 24), off, dtype=np.float64)
    matrix[:5, 9:19] = busy
    return matrix


def pressed_v100(offers: tuple[TypeOffer, ...], **changes: Any) -> InstanceEvidence:
    """2 x V100 (GN10Xp.5XLARGE80) with GPU memory at 96 % while 75 % busy, 31.60 CNY/h paid."""
    base: dict[str, Any] = {
        "instance_type": "GN10Xp.5XLARGE80",
        "family": "GN10Xp",
        "gpu_model": "NVIDIA V100",
        "gpu_count": 2,
        "gpu_memory_gb": 32,
        "gpu_util_avg": hourly(75.0),
        "gpu_mem_p95": hourly(96.0),
        "gpu_mem_avg": hourly(94.0),
        "billed_runtime_cost": Decimal("10617.60"),
        "offers": offers,
    }
    return evidence(**{**base, **changes})


def v100(instance_type: str, cards: int, hourly_price: str) -> TypeOffer:
    return TypeOffer(instance_type, "GN10Xp", "NVIDIA V100", cards, 32, Decimal(hourly_price))


def stopped_subscription(quiet_hours: int = 240, **changes: Any) -> InstanceEvidence:
    """A monthly subscription stopped ``quiet_hours`` ago: no metric since, still billed."""
    observed = hourly(60.0)
    if quiet_hours:
        observed[-quiet_hours:] = 0.0
    base: dict[str, Any] = {
        "charge_type": "PREPAID",
        "state": "STOPPED",
        "observed_minutes": observed,
        "gpu_util_p95": np.where(observed > 0, 60.0, np.nan),
        "gpu_util_avg": np.where(observed > 0, 50.0, np.nan),
    }
    return evidence(**{**base, **changes})
