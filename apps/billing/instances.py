"""Instances learned from bill lines: the ones the inventory can no longer list.

DescribeInstances forgets an instance some time after it is terminated, so one that ended before
the account was connected would be invisible although its bill lines are stored. Every CVM bill
line names its instance (``ResourceId``), its region and zone, its charge type, its tags and,
in the compute component's item name, its hardware; its first and last billed second bound
its life. After a bills sync, every instance named only by bills whose last billed second is
``ENDED_AFTER`` behind is created terminated (through ``apps.cloud.services``) and its lines are
attached to it. One still billed recently is left to the inventory: it is probably running in a
region the account does not sync, or the inventory has not run yet.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Max, Min, Q

from apps.billing.models import BillLine
from apps.billing.rollups import bill_days_refresh
from apps.cloud.models import ChargeType, CloudAccount, Instance, InstanceSource, InstanceType
from apps.cloud.services import BilledInstance, instance_upsert_from_bills

# Hourly lines are published within an hour or two of the hour's end; an instance whose last
# line is older than this is not billed any more, i.e. it is gone.
ENDED_AFTER = timedelta(hours=6)
INSTANCE_ID = re.compile(r"^ins-[0-9a-z]+$")
SECONDS_UNIT = "秒"
_HOUR = timedelta(hours=1)

# Bill lines name places in Chinese ("华南地区（广州）", "广州三区"); the city names the region.
CITY_REGIONS = {
    "北京": "ap-beijing",
    "成都": "ap-chengdu",
    "重庆": "ap-chongqing",
    "广州": "ap-guangzhou",
    "南京": "ap-nanjing",
    "上海": "ap-shanghai",
    "上海金融": "ap-shanghai-fsi",
    "深圳金融": "ap-shenzhen-fsi",
    "北京金融": "ap-beijing-fsi",
    "香港": "ap-hongkong",
    "中国香港": "ap-hongkong",
    "台北": "ap-taipei",
    "中国台北": "ap-taipei",
    "新加坡": "ap-singapore",
    "曼谷": "ap-bangkok",
    "雅加达": "ap-jakarta",
    "首尔": "ap-seoul",
    "东京": "ap-tokyo",
    "孟买": "ap-mumbai",
    "硅谷": "na-siliconvalley",
    "弗吉尼亚": "na-ashburn",
    "多伦多": "na-toronto",
    "法兰克福": "eu-frankfurt",
    "圣保罗": "sa-saopaulo",
}
_NUMERALS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZONE_NAME = re.compile(r"^(?P<city>.+?)(?P<number>[一二三四五六七八九十]+)区$")
_REGION_NAME = re.compile(r"[（(](?P<city>[^）)]+)[）)]")
_HARDWARE = re.compile(r"(?P<cpu>\d+)核(?P<memory>\d+)G")
_FAMILY = re.compile(r"(?P<family>[A-Z][A-Z0-9]*\d[A-Za-z0-9]*)-\d+核")
_GPUS = re.compile(r"(?P<count>\d+(?:\.\d+)?)\*(?P<model>[^*]+?)\s*$")


def _chinese_number(text: str) -> int:
    """一 .. 九十九 as an int (zone numbers)."""
    if "十" not in text:
        return _NUMERALS[text]
    tens, _, ones = text.partition("十")
    return (_NUMERALS[tens] if tens else 1) * 10 + (_NUMERALS[ones] if ones else 0)


def region_and_zone(region_name: str, zone_name: str) -> tuple[str, str]:
    """("ap-guangzhou", "ap-guangzhou-3") from "华南地区（广州）" and "广州三区"; "" when unknown."""
    zone_match = _ZONE_NAME.match(zone_name.strip())
    region_match = _REGION_NAME.search(region_name)
    region = CITY_REGIONS.get(region_match.group("city"), "") if region_match else ""
    if zone_match:
        region = CITY_REGIONS.get(zone_match.group("city"), region)
        if region:
            return region, f"{region}-{_chinese_number(zone_match.group('number'))}"
    return region, ""


def hardware_of(item_code: str, item_name: str, gpu_item_name: str = "") -> tuple[str, str, float]:
    """(instance type, GPU model, GPU count) from a runtime component; "" / 0 when unknown.

    The item name spells the hardware (``运算组件-GPU计算型GN7-8核32G-1*T4``): the family is
    the model name before the cores (``GN7``), else the item code's last word
    (``sv_cvm_compute_gn7``); the type is the one of the synced catalog with that family, CPU
    and memory, if exactly one matches. The GPUs (``1*T4``) may be spelled by another component
    of the line (a GPU component of its own): ``gpu_item_name``.
    """
    named = _FAMILY.search(item_name)
    family = named.group("family") if named else item_code.rsplit("_", 1)[-1]
    hardware = _HARDWARE.search(item_name)
    gpus = _GPUS.search(item_name) or _GPUS.search(gpu_item_name)
    gpu_model, gpu_count = (gpus.group("model"), float(gpus.group("count"))) if gpus else ("", 0.0)
    if not family or hardware is None:
        return "", gpu_model, gpu_count
    matches = list(
        InstanceType.objects.filter(
            family__iexact=family,
            cpu_cores=int(hardware.group("cpu")),
            memory_gb=int(hardware.group("memory")),
        ).values_list("instance_type", flat=True)[:2]
    )
    return (matches[0] if len(matches) == 1 else ""), gpu_model, gpu_count


def _billed_seconds(rows: list[BillLine]) -> int | None:
    """Seconds an hourly line billed (its longest component, the disk: billed while the instance
    exists), or None for a line that is not hourly or not counted in seconds."""
    seconds = [
        int(row.time_span)
        for row in rows
        if row.time_unit == SECONDS_UNIT
        and row.time_span is not None
        and row.fee_end_at - row.fee_begin_at < _HOUR
    ]
    return max(seconds) if seconds else None


def _lifetime(first: list[BillLine], last: list[BillLine]) -> tuple[datetime, datetime]:
    """Launch and end of an instance from the components of its first and last billed line.

    An hourly line of a partial hour bills only the seconds the instance existed: created
    mid-hour, the first line's seconds end at the hour's end; terminated mid-hour, the last
    line's start at the hour's start. Other lines (a subscription month) bound it by their times.
    """
    first_begin, last_begin = first[0].fee_begin_at, last[0].fee_begin_at
    launched_at, ended_at = first_begin, max(row.fee_end_at for row in last)
    first_seconds, last_seconds = _billed_seconds(first), _billed_seconds(last)
    if first_seconds is not None:
        launched_at = first_begin + _HOUR - timedelta(seconds=first_seconds)
    if last_seconds is not None:
        ended_at = last_begin + timedelta(seconds=last_seconds)
    return launched_at, ended_at


def _describe(resource_id: str, first: list[BillLine], last: list[BillLine]) -> BilledInstance:
    # The component that spells the hardware (CPU cores, memory, GPUs) names the instance best.
    latest = sorted(last, key=lambda row: not _HARDWARE.search(row.item_name))[0]
    compute = next((row for row in [*last, *first] if _HARDWARE.search(row.item_name)), latest)
    gpu_row = next((row for row in [*last, *first] if _GPUS.search(row.item_name)), compute)
    instance_type, gpu_model, gpu_count = hardware_of(
        compute.item_code, compute.item_name, gpu_row.item_name
    )
    region, zone = region_and_zone(latest.region_name, latest.zone_name)
    launched_at, ended_at = _lifetime(first, last)
    return BilledInstance(
        provider_id=resource_id,
        name=latest.resource_name,
        region=region,
        zone=zone,
        instance_type=instance_type,
        gpu_model=gpu_model,
        gpu_count=gpu_count,
        charge_type=next(
            (row.charge_type for row in last if row.charge_type), ChargeType.POSTPAID_BY_HOUR
        ),
        tags=latest.tags or {},
        launched_at=launched_at,
        ended_at=ended_at,
    )


@transaction.atomic
def bill_lines_learn_instances(
    *, account: CloudAccount, now: datetime, months: Sequence[str] | None = None
) -> int:
    """Create (or widen the lifetime of) the instances only the account's bills name, and
    attach their bill lines. Returns how many bill lines were attached.

    ``months`` limits the work to the bill months just read (the hourly sync reads one or two of
    a long history); lifetimes only widen, so what older months said is kept.
    """
    lines = (
        BillLine.objects.filter(account=account, resource_id__startswith="ins-")
        .filter(Q(instance__isnull=True) | Q(instance__source=InstanceSource.BILLS))
        .order_by()
    )
    if months is not None:
        lines = lines.filter(month__in=list(months))
    # Refunds and adjustments carry no usage: the life is bounded by the charged lines only.
    charged = lines.filter(cost__gt=0)
    spans = {
        row["resource_id"]: row
        for row in charged.values("resource_id").annotate(
            first=Min("fee_begin_at"), last=Max("fee_begin_at"), last_end=Max("fee_end_at")
        )
        if INSTANCE_ID.match(row["resource_id"])
    }
    # Instances that exist already (lines stored before the inventory listed one stay without
    # it otherwise) are always attached; an unknown one still billed lately may well be
    # running: the inventory decides.
    known = set(
        Instance.objects.for_organization(account.organization)
        .filter(provider_id__in=list(spans))
        .values_list("provider_id", flat=True)
    )
    wanted = {
        resource_id: span
        for resource_id, span in spans.items()
        if resource_id in known or span["last_end"] < now - ENDED_AFTER
    }
    if not wanted:
        return 0
    edges: dict[tuple[str, datetime], list[BillLine]] = defaultdict(list)
    moments = {span[edge] for span in wanted.values() for edge in ("first", "last")}
    for row in charged.filter(resource_id__in=list(wanted), fee_begin_at__in=moments):
        edges[(row.resource_id, row.fee_begin_at)].append(row)
    billed = [
        _describe(
            resource_id, edges[(resource_id, span["first"])], edges[(resource_id, span["last"])]
        )
        for resource_id, span in wanted.items()
    ]
    instances = instance_upsert_from_bills(account=account, billed=billed)
    attached = 0
    # Lines gaining an instance enter the instance-day rollup of their months.
    touched = set(
        BillLine.objects.filter(
            account=account, resource_id__in=list(instances), instance__isnull=True
        )
        .order_by()
        .values_list("month", flat=True)
        .distinct()
    )
    for resource_id, instance in instances.items():
        # Every month of the instance, not only those just read: its older lines belong to it too.
        # A line's own tags keep deciding its project; the instance's fill in where they do not.
        orphans = BillLine.objects.filter(
            account=account, resource_id=resource_id, instance__isnull=True
        )
        attached += orphans.filter(project__isnull=True).update(
            instance=instance, project=instance.project
        )
        attached += orphans.update(instance=instance)
    bill_days_refresh(account=account, months=sorted(touched))
    return attached
