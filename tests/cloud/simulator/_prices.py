"""Expected prices of the simulated fleet, from the catalog and the scenario table alone."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from apps.cloud.providers.tencent.simulator.catalog import (
    BANDWIDTH_MBPS_HOURLY_CNY,
    BANDWIDTH_MBPS_MONTHLY_CNY,
    DATA_DISK_GB_HOURLY_CNY,
    DATA_DISK_GB_MONTHLY_CNY,
    DISK_HOURLY_CNY,
    DISK_MONTHLY_CNY,
)
from apps.cloud.providers.tencent.simulator.scenario import hardware_of


def keeps_billing(inst: Any, monthly: bool = False) -> Decimal:
    """System disk, data disk and bandwidth of an instance, per hour (billed while it exists)
    or per subscription month."""
    hardware = hardware_of(inst.index)
    prices = (
        (DISK_MONTHLY_CNY, DATA_DISK_GB_MONTHLY_CNY, BANDWIDTH_MBPS_MONTHLY_CNY)
        if monthly
        else (DISK_HOURLY_CNY, DATA_DISK_GB_HOURLY_CNY, BANDWIDTH_MBPS_HOURLY_CNY)
    )
    disk, data_disk, bandwidth = prices
    return disk + hardware.data_disk_gb * data_disk + hardware.bandwidth_mbps * bandwidth
