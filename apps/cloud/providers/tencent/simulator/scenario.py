"""The bill shapes of the seeded fleet, in one place (the fleet ``make demo`` serves).

Two tables, both keyed by *role* (the index of an instance in ``fleet._ROLES``):

- ``HARDWARE``: which instances have a data disk or public bandwidth, billed as components of
  their own next to compute, GPU and the system disk.
- ``BILL_EVENTS``: the one-off lines of a real account: a subscription renewed twice for the
  same month and the duplicate refunded, a renewal paid partly by a voucher, an SLA credit, a
  reserved instance bought upfront that then pays part of an instance's hours.

Everything else a Tencent bill holds follows from an instance's charge type and life (hourly
pay-as-you-go and spot lines, subscription purchases and renewals, STOP_CHARGING nights of the
day-only instances, whose disks and bandwidth keep billing). Times are relative to the fleet's
anchor, so the events are in the history whatever day the simulator starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

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


# Kinds of bill events.
DUPLICATE_RENEWAL = "duplicate_renewal"  # the last renewal charged twice; the second refunded
VOUCHER_RENEWAL = "voucher_renewal"  # the last renewal paid partly by a voucher
SLA_CREDIT = "sla_credit"  # 调账 crediting the runtime price of an outage's hours
RESERVED_INSTANCE = "reserved_instance"  # an RI bought upfront, then deducting the hours


@dataclass(frozen=True)
class BillEvent:
    """One scenario entry. Which fields count depends on the kind (see ``BILL_EVENTS``)."""

    kind: str
    role: int
    days_before_anchor: int = 0  # SLA outage / RI purchase: the UTC day ...
    hour: int = 0  # ... and hour (UTC) it starts
    hours: int = 0  # SLA: hours of outage credited
    delay_hours: int = 0  # refund / credit: hours after what it corrects
    amount: Decimal = Decimal(0)  # voucher: how much of the renewal a voucher paid


BILL_EVENTS: tuple[BillEvent, ...] = (
    # GN10Xp.20XLARGE320 subscription: renewed twice, the duplicate refunded 26 hours later.
    BillEvent(DUPLICATE_RENEWAL, role=6, delay_hours=26),
    # GN7.8XLARGE128 subscription: 1,000 yuan of its last renewal paid by a voucher.
    BillEvent(VOUCHER_RENEWAL, role=3, amount=Decimal("1000.00")),
    # GT4.8XLARGE192 pay-as-you-go: a 4-hour outage 12 days ago, credited 3 days later.
    BillEvent(SLA_CREDIT, role=8, days_before_anchor=12, hour=2, hours=4, delay_hours=72),
    # GI3X.8XLARGE64 pay-as-you-go inference: a one-year partial-upfront RI bought 20 days ago.
    BillEvent(RESERVED_INSTANCE, role=12, days_before_anchor=20, hour=2),
)


def events_of(role: int, kind: str) -> list[BillEvent]:
    """The bill events of one kind for one role."""
    return [e for e in BILL_EVENTS if e.role == role and e.kind == kind]


# The charge type each kind of event needs of its instance.
_NEEDS = {
    DUPLICATE_RENEWAL: "PREPAID",
    VOUCHER_RENEWAL: "PREPAID",
    SLA_CREDIT: "POSTPAID_BY_HOUR",
    RESERVED_INSTANCE: "POSTPAID_BY_HOUR",
}


def check(charge_types: dict[int, str]) -> None:
    """Raise ValueError when an entry of the tables names a role that cannot have it
    (``charge_types``: role -> InstanceChargeType of the fleet's instances)."""
    for role in HARDWARE:
        if role not in charge_types:
            raise ValueError(f"scenario.HARDWARE names role {role}, which the fleet lacks")
    for event in BILL_EVENTS:
        if charge_types.get(event.role) != _NEEDS[event.kind]:
            raise ValueError(
                f"scenario event {event.kind} needs a {_NEEDS[event.kind]} instance;"
                f" role {event.role} is {charge_types.get(event.role)}"
            )
