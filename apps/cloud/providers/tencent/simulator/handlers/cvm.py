"""CVM 2017-03-12: DescribeInstances, DescribeInstanceTypeConfigs, DescribeZoneInstanceConfigInfos
(StopInstances and StartInstances are in ``power.py``)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from ..catalog import INSTANCE_TYPES, SYSTEM_DISK_GB, InstanceTypeSpec
from ..constants import (
    DESCRIBE_INSTANCES_DEFAULT_LIMIT,
    DESCRIBE_INSTANCES_MAX_LIMIT,
    REGIONS,
    iso_utc,
)
from ..errors import ApiError, invalid_value
from ..fleet import PREPAID, Instance, add_months
from ..scenario import hardware_of
from .params import RequestContext, check, filters, paging, string_list

INSTANCE_ID = re.compile(r"^ins-[0-9a-z]{8}$")
CHARGE_TYPES = ("PREPAID", "POSTPAID_BY_HOUR", "SPOTPAID")

_INSTANCE_FILTERS = (
    "zone",
    "instance-id",
    "instance-name",
    "instance-charge-type",
    "instance-state",
    "project-id",
    "tag-key",
    "tag-value",
    "tag:",
)


def _public_ip(inst: Instance) -> str:
    """A stable public address, from the instance id (the fleet's random stream is untouched)."""
    digest = hashlib.sha256(inst.instance_id.encode()).digest()
    return f"119.29.{digest[0]}.{1 + digest[1] % 250}"


def instance_json(inst: Instance, now: int) -> dict[str, Any]:
    """The Instance model as DescribeInstances returns it at ``now``."""
    spec = inst.spec
    state = inst.state_at(now)
    prepaid = inst.charge_type == PREPAID
    # The data disk and public bandwidth the bills charge for (scenario.HARDWARE).
    hardware = hardware_of(inst.index)
    expires = None
    if prepaid:
        renewals = inst.subscription_starts(until=now + 1)
        expires = iso_utc(add_months(inst.created_at, len(renewals)))
    latest = inst.latest_transition(now)
    operation: dict[str, Any] = {
        "LatestOperation": "StopInstances"
        if state == "STOPPED"
        else "StartInstances"
        if inst.day_only
        else "RunInstances",
        "LatestOperationState": "SUCCESS",
    }
    if latest is not None:
        # After an operation through the API: what it was, how far it got, and its request.
        operation = {
            "LatestOperation": latest.operation,
            "LatestOperationState": latest.operation_state,
            "LatestOperationRequestId": latest.request_id,
        }
        if latest.operation_state == "FAILED":
            operation["LatestOperationErrorMsg"] = (
                "ResourceInsufficient.AvailabilityZoneSoldOut: the zone has no capacity left "
                "for this instance type; the instance stays STOPPED."
            )
    return {
        "InstanceId": inst.instance_id,
        "InstanceName": inst.name,
        "InstanceType": spec.instance_type,
        "Uuid": inst.uuid,
        "CPU": spec.cpu,
        "Memory": spec.memory_gib,
        "InstanceChargeType": inst.charge_type,
        "InstanceState": state,
        "RestrictState": "NORMAL",
        "StopChargingMode": inst.stop_charging_mode_at(now),
        "IsolatedSource": "NOTISOLATED",
        "RenewFlag": "NOTIFY_AND_AUTO_RENEW" if prepaid else None,
        "Placement": {"Zone": inst.zone, "ProjectId": 0, "HostId": None},
        "CreatedTime": iso_utc(inst.created_at),
        "ExpiredTime": expires,
        "Tags": [{"Key": key, "Value": value} for key, value in inst.tags],
        "GPUInfo": {"GPUCount": float(spec.gpu_count), "GPUId": [], "GPUType": spec.gpu_type},
        "PrivateIpAddresses": [inst.private_ip],
        "PublicIpAddresses": [_public_ip(inst)] if hardware.bandwidth_mbps else None,
        "SystemDisk": {
            "DiskType": "CLOUD_PREMIUM",
            "DiskId": f"disk-{inst.instance_id[4:]}",
            "DiskSize": SYSTEM_DISK_GB,
        },
        "DataDisks": [
            {
                "DiskType": "CLOUD_SSD",
                "DiskId": f"disk-d{inst.instance_id[5:]}",
                "DiskSize": hardware.data_disk_gb,
                "DeleteWithInstance": True,
            }
        ]
        if hardware.data_disk_gb
        else None,
        "InternetAccessible": {
            "InternetChargeType": ("BANDWIDTH_PREPAID" if prepaid else "BANDWIDTH_POSTPAID_BY_HOUR")
            if hardware.bandwidth_mbps
            else "TRAFFIC_POSTPAID_BY_HOUR",
            "InternetMaxBandwidthOut": hardware.bandwidth_mbps,
            "PublicIpAssigned": bool(hardware.bandwidth_mbps),
        },
        "VirtualPrivateCloud": {
            "VpcId": "vpc-sim00001",
            "SubnetId": f"subnet-{inst.zone[-1]}sim0001",
            "AsVpcGateway": False,
        },
        "OsName": "Ubuntu Server 22.04 LTS 64bit",
        "ImageId": "img-487zeit5",
        **operation,
        "DisableApiTermination": False,
    }


def _matches(inst: Instance, now: int, name: str, values: list[str]) -> bool:
    tags = dict(inst.tags)
    checks: dict[str, Callable[[], bool]] = {
        "zone": lambda: inst.zone in values,
        "instance-id": lambda: inst.instance_id in values,
        "instance-name": lambda: any(v in inst.name for v in values),
        "instance-charge-type": lambda: inst.charge_type in values,
        "instance-state": lambda: inst.state_at(now) in values,
        "project-id": lambda: "0" in values,
        "tag-key": lambda: any(v in tags for v in values),
        "tag-value": lambda: any(v in tags.values() for v in values),
    }
    if name.startswith("tag:"):
        return tags.get(name[4:]) in values
    return checks[name]()


def describe_instances(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """Instances of the request's region, filtered and paged (Limit default 20, max 100)."""
    check(params, {"InstanceIds": list, "Filters": list, "Offset": int, "Limit": int})
    offset, limit = paging(
        params,
        DESCRIBE_INSTANCES_DEFAULT_LIMIT,
        DESCRIBE_INSTANCES_MAX_LIMIT,
        "InvalidParameterValue.LimitExceeded",
    )
    ids = params.get("InstanceIds")
    parsed = filters(params.get("Filters"), _INSTANCE_FILTERS)
    if ids is not None and parsed:
        raise ApiError(
            "InvalidParameter", "The parameters `InstanceIds` and `Filters` cannot be combined."
        )
    instances = ctx.cloud.instances(ctx.now, ctx.region)
    if ids is not None:
        ids = string_list(ids, "InstanceIds")
        if len(ids) > DESCRIBE_INSTANCES_MAX_LIMIT:
            raise ApiError(
                "InvalidParameterValue.LimitExceeded", "At most 100 `InstanceIds` are allowed."
            )
        for instance_id in ids:
            if not INSTANCE_ID.match(instance_id):
                raise ApiError(
                    "InvalidInstanceId.Malformed", f"The instance id `{instance_id}` is malformed."
                )
        wanted = set(ids)
        instances = [inst for inst in instances if inst.instance_id in wanted]
    for name, values in parsed:
        instances = [inst for inst in instances if _matches(inst, ctx.now, name, values)]
    page = instances[offset : offset + limit]
    return {"TotalCount": len(instances), "InstanceSet": [instance_json(i, ctx.now) for i in page]}


def _zone_type_filters(
    params: dict[str, Any], allowed: tuple[str, ...], max_values: int
) -> dict[str, list[str]]:
    return dict(filters(params.get("Filters"), allowed, max_values=max_values))


def _select(
    ctx: RequestContext, wanted: dict[str, list[str]]
) -> list[tuple[str, InstanceTypeSpec]]:
    # Only regional actions select instance types; the server has checked their region.
    assert ctx.region is not None
    zones = REGIONS[ctx.region]["Zones"]
    out = []
    for zone in zones:
        if "zone" in wanted and zone not in wanted["zone"]:
            continue
        for spec in INSTANCE_TYPES.values():
            if "instance-family" in wanted and spec.family not in wanted["instance-family"]:
                continue
            if "instance-type" in wanted and spec.instance_type not in wanted["instance-type"]:
                continue
            out.append((zone, spec))
    return out


def describe_instance_type_configs(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """Hardware of every GPU type in every zone of the region (Filters take one value each)."""
    check(params, {"Filters": list})
    wanted = _zone_type_filters(params, ("zone", "instance-family", "instance-type"), 1)
    return {
        "InstanceTypeConfigSet": [
            {
                "Zone": zone,
                "InstanceType": spec.instance_type,
                "InstanceFamily": spec.family,
                "GPU": spec.gpu_count,
                "CPU": spec.cpu,
                "Memory": spec.memory_gib,
                "FPGA": 0,
                "GpuCount": float(spec.gpu_count),
                "GpuType": spec.gpu_type,
                "GpuMemory": float(spec.gpu_memory_gib),
            }
            for zone, spec in _select(ctx, wanted)
        ]
    }


def _price(spec: InstanceTypeSpec, charge_type: str) -> dict[str, Any]:
    """ItemPrice in yuan (floats, like the real API): per HOUR postpaid/spot, per month prepaid."""
    if charge_type == "PREPAID":
        return {
            "OriginalPrice": float(spec.monthly_list_cny),
            "DiscountPrice": float(spec.monthly_discount_cny),
            "Discount": 90.0,
            "OriginalPriceOneYear": float(spec.monthly_list_cny * 10),
            "DiscountPriceOneYear": float(spec.monthly_discount_cny * 10),
            "ChargeUnit": None,
        }
    unit = spec.spot_hourly_cny if charge_type == "SPOTPAID" else spec.hourly_cny
    return {
        "UnitPrice": float(spec.hourly_cny),
        "UnitPriceDiscount": float(unit),
        "ChargeUnit": "HOUR",
        "Discount": round(float(unit / spec.hourly_cny) * 100, 2),
    }


def describe_zone_instance_config_infos(
    ctx: RequestContext, params: dict[str, Any]
) -> dict[str, Any]:
    """Sellable configurations with list prices per zone, type and charge type."""
    check(params, {"Filters": list})
    allowed = ("zone", "instance-family", "instance-type", "instance-charge-type", "sort-keys")
    wanted = _zone_type_filters(params, allowed, 100)
    charge_types = wanted.get("instance-charge-type", list(CHARGE_TYPES))
    for charge_type in charge_types:
        if charge_type not in (*CHARGE_TYPES, "CDHPAID", "CDCPAID"):
            raise invalid_value(
                "Filters.instance-charge-type", f"unknown charge type {charge_type}"
            )
    items = []
    for zone, spec in _select(ctx, wanted):
        for charge_type in charge_types:
            if charge_type not in CHARGE_TYPES:
                continue
            items.append(
                {
                    "Zone": zone,
                    "InstanceType": spec.instance_type,
                    "InstanceChargeType": charge_type,
                    "NetworkCard": 25,
                    "Externals": {},
                    "Cpu": spec.cpu,
                    "Memory": spec.memory_gib,
                    "InstanceFamily": spec.family,
                    "TypeName": spec.family_name,
                    "LocalDiskTypeList": [],
                    "Status": "SELL",
                    "Price": _price(spec, charge_type),
                    "SoldOutReason": "",
                    "InstanceBandwidth": 25.0,
                    "InstancePps": 600,
                    "StorageBlockAmount": 0,
                    "CpuType": "Intel Xeon Cascade Lake 8255C(2.5 GHz/3.1 GHz)",
                    "Gpu": spec.gpu_count,
                    "Fpga": 0,
                    "Remark": "",
                    "GpuCount": float(spec.gpu_count),
                    "Frequency": "2.5/3.1GHz",
                    "StatusCategory": "EnoughStock",
                }
            )
    return {"InstanceTypeQuotaSet": items}
