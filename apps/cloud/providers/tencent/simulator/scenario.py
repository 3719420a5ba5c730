"""The bill shapes of the seeded fleet, in one table (the fleet ``make demo`` serves).

``HARDWARE``: which instances (by their role, the index in ``fleet._ROLES``) have a data disk or
public bandwidth, billed as components of their own next to compute, GPU and the system disk.

Everything else a Tencent bill holds follows from an instance's charge type and life (hourly
pay-as-you-go and spot lines, subscription purchases and renewals, STOP_CHARGING nights of the
day-only instances, whose disks and bandwidth keep billing).
"""

from __future__ import annotations

from .components import Hardware

# role -> data disk (GB) and public bandwidth (Mbps). The comment names the role.
HARDWARE: dict[int, Hardware] = {
    0: Hardware(data_disk_gb=500),  # GN7 pay-as-you-go training
    3: Hardware(data_disk_gb=200, bandwidth_mbps=10),  # GN7 subscription inference
    6: Hardware(data_disk_gb=2000),  # GN10Xp.20XLARGE320 subscription training
    7: Hardware(data_disk_gb=500),  # GT4 spot training: its disk is not discounted
    9: Hardware(data_disk_gb=1000, bandwidth_mbps=5),  # PNV4 day-only, STOP_CHARGING nights
    12: Hardware(bandwidth_mbps=20),  # GI3X pay-as-you-go inference
    17: Hardware(data_disk_gb=500),  # PNV4 day-only, STOP_CHARGING nights
    25: Hardware(data_disk_gb=4000),  # GT4.41XLARGE948 training
    28: Hardware(bandwidth_mbps=10),  # GI3X pay-as-you-go inference
    29: Hardware(data_disk_gb=500, bandwidth_mbps=20),  # GI3X subscription inference
    33: Hardware(data_disk_gb=2000),  # GN10Xp.20XLARGE320 data-bound
}

NO_HARDWARE = Hardware()


def hardware_of(role: int) -> Hardware:
    """The data disk and bandwidth of a role (none for roles not in the table)."""
    return HARDWARE.get(role, NO_HARDWARE)
