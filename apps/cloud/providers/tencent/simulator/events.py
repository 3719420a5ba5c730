"""The one-off lines of the scenario's bill events (``scenario.BILL_EVENTS``) that are not part of
an instance's regular lines: an SLA credit (调账) and a reserved instance's upfront purchase.

The other events change regular lines (a renewal's voucher, a duplicate renewal and its refund,
the hours a reserved instance pays for) and live with them in ``billing``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

from . import scenario
from .catalog import CENT, RI_HOURLY_FACTOR, RI_TERM_DAYS, RI_UPFRONT_FACTOR, InstanceTypeSpec
from .components import COMPUTE, RI, Part, Priced, component
from .fleet import DAY, HOUR, Fleet, Instance

if TYPE_CHECKING:
    from .billing import BillBook, BillLine

_SLA_CREDIT = ("adjustment", "调账", "postPay", "按量计费")
_RI_PURCHASE = ("prepay_purchase", "包年包月新购", "prePay", "包年包月")
RESERVED_INSTANCE_PART = Part("v_cvm_ri", "预留实例", runtime=False)


def _instance(fleet: Fleet, role: int) -> Instance:
    return next(inst for inst in fleet.all_instances if inst.index == role)


def _start(fleet: Fleet, event: scenario.BillEvent) -> int:
    return fleet.anchor - event.days_before_anchor * DAY + event.hour * HOUR


def ri_window(fleet: Fleet, inst: Instance) -> tuple[int, int] | None:
    """[begin, end) of the reserved instance covering an instance's hours, if it has one."""
    events = scenario.events_of(inst.index, scenario.RESERVED_INSTANCE)
    if not events:
        return None
    begin = _start(fleet, events[0])
    return begin, begin + RI_TERM_DAYS * DAY


def ri_parts(runtime: list[Priced], spec: InstanceTypeSpec) -> list[Priced]:
    """The runtime parts of an hour a reserved instance covers: the RI's hourly rate paid,
    InstanceType RI (the component then says what it would have cost without)."""
    out = []
    for priced in runtime:
        amount = Decimal(priced.amount)
        whole = (priced.single * amount * RI_HOURLY_FACTOR).quantize(CENT, ROUND_HALF_UP)
        out.append(priced.with_price(whole / amount, RI))
    return out


def ri_upfront(spec: InstanceTypeSpec) -> Decimal:
    """The upfront payment of a one-year RI for an instance type."""
    hours = RI_TERM_DAYS * 24
    return (spec.hourly_cny * hours * RI_UPFRONT_FACTOR).quantize(CENT, ROUND_HALF_UP)


def ri_id(fleet: Fleet, inst: Instance) -> str:
    """The reserved instance's id (Tencent writes a UUID), stable per seed and instance."""
    return str(uuid.uuid5(uuid.NAMESPACE_OID, f"ri:{fleet.seed}:{inst.instance_id}"))


def event_lines(book: BillBook, start: int, end: int, settled: int) -> list[BillLine]:
    """The SLA credits and RI purchases whose FeeBeginTime is in [start, end), once published."""
    builders: dict[str, Callable[[BillBook, scenario.BillEvent, int], BillLine | None]] = {
        scenario.SLA_CREDIT: _sla_credit,
        scenario.RESERVED_INSTANCE: _ri_purchase,
    }
    out = []
    for event in scenario.BILL_EVENTS:
        builder = builders.get(event.kind)
        if builder is None or not start <= _start(book.fleet, event) < end:
            continue
        line = builder(book, event, settled)
        if line is not None:
            out.append(line)
    return out


def _sla_credit(book: BillBook, event: scenario.BillEvent, settled: int) -> BillLine | None:
    """调账 crediting the runtime price of an outage's hours, ``delay_hours`` after it began;
    it names the outage's hours (FeeBeginTime..FeeEndTime) and the instance."""
    from .billing import BillLine

    inst = _instance(book.fleet, event.role)
    begin = _start(book.fleet, event)
    published = begin + event.delay_hours * HOUR
    if published // HOUR * HOUR + HOUR > settled:
        return None
    hourly = -inst.spec.hourly_cny
    credit = Priced(
        COMPUTE, "sv_cvm_sla_compensation", "SLA赔偿", hourly, hourly, "元/小时", 1, "个"
    )
    fields, real = component(credit, Decimal(event.hours), "小时")
    static = book.static_detail(inst, _SLA_CREDIT)
    detail = book.line_detail(
        inst, static, begin, begin + event.hours * HOUR - 1, published, [fields]
    )
    return BillLine(inst.instance_id, inst.index, begin, real, "postPay", detail)


def _ri_purchase(book: BillBook, event: scenario.BillEvent, settled: int) -> BillLine | None:
    """The RI's upfront payment: one purchase line covering its whole term, for the RI (its
    own ResourceId, untagged), in the zone of the instance it was bought for."""
    from .billing import BillLine

    inst = _instance(book.fleet, event.role)
    window = ri_window(book.fleet, inst)
    if window is None or window[0] // HOUR * HOUR + HOUR > settled:
        return None
    begin, end = window
    spec = inst.spec
    upfront = ri_upfront(spec)
    priced = Priced(
        RESERVED_INSTANCE_PART,
        f"sv_cvm_ri_{spec.family.lower()}_1y_partial_upfront",
        f"预留实例-{spec.instance_type}-1年-部分预付",
        upfront, upfront, "元/个/年", 1, "个", RI,
    )  # fmt: skip
    fields, real = component(priced, Decimal(1), "年")
    # The purchase is the commitment itself, not an hour it paid for: no deduction fields.
    del fields["OriginalCostWithRI"], fields["RiTimeSpan"]
    resource = ri_id(book.fleet, inst)
    static: dict[str, Any] = {
        **book.static_detail(inst, _RI_PURCHASE),
        "ResourceId": resource,
        "ResourceName": f"预留实例-{spec.instance_type}",
        "ProductCode": "sp_cvm_ri",
        "ProductCodeName": "云服务器CVM-预留实例",
        "Tags": [],
    }
    detail = book.line_detail(inst, static, begin, end - 1, begin, [fields], salt=resource)
    return BillLine(resource, inst.index, begin, real, "prePay", detail)
