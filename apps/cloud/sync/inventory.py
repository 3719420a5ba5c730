"""Inventory sync: instances, their hardware and tags, and their projects."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from apps.cloud.models import CloudAccount, Instance, InstanceSource, InstanceType
from apps.cloud.projects import ProjectResolver
from apps.cloud.providers.tencent.client import TencentClient
from apps.cloud.signals import instance_tags_changed


@dataclass(frozen=True)
class InventoryResult:
    seen: int
    created: int
    terminated: int

    def __str__(self) -> str:
        return f"{self.seen} instances ({self.created} new, {self.terminated} terminated)"


def _parse_time(value: str | None) -> datetime | None:
    return parse_datetime(value) if value else None


def _instance_fields(
    raw: dict[str, Any], region: str, types: dict[str, InstanceType]
) -> dict[str, Any]:
    gpu = raw.get("GPUInfo") or {}
    spec = types.get(raw["InstanceType"])
    tags = {tag["Key"]: tag["Value"] for tag in raw.get("Tags") or []}
    return {
        "name": raw.get("InstanceName") or "",
        "region": region,
        "zone": (raw.get("Placement") or {}).get("Zone") or "",
        "instance_type": raw["InstanceType"],
        "gpu_model": gpu.get("GPUType") or (spec.gpu_model if spec else ""),
        "gpu_count": float(gpu.get("GPUCount") or (spec.gpu_count if spec else 0)),
        "gpu_memory_gb": spec.gpu_memory_gb if spec else 0.0,
        "cpu_cores": raw.get("CPU") or 0,
        "memory_gb": raw.get("Memory") or 0,
        "charge_type": raw.get("InstanceChargeType") or "POSTPAID_BY_HOUR",
        "state": raw.get("InstanceState") or "",
        "stop_charging_mode": raw.get("StopChargingMode") or "",
        "tags": tags,
        "launched_at": _parse_time(raw.get("CreatedTime")),
        "expires_at": _parse_time(raw.get("ExpiredTime")),
        "terminated_at": None,
        # Listed by the inventory: an instance first learned from its bills is a live one after
        # all, and the inventory is the authority on live instances from now on.
        "source": InstanceSource.INVENTORY,
    }


def sync_instance_types(client: TencentClient, region: str) -> dict[str, InstanceType]:
    """Refresh the hardware catalog of a region; returns it by type name."""
    types: dict[str, InstanceType] = {}
    for raw in client.describe_instance_type_configs(region):
        defaults = {
            "family": raw.get("InstanceFamily") or "",
            "cpu_cores": raw.get("CPU") or 0,
            "memory_gb": raw.get("Memory") or 0,
            "gpu_count": float(raw.get("GpuCount") or raw.get("GPU") or 0),
            "gpu_model": raw.get("GpuType") or "",
            "gpu_memory_gb": float(raw.get("GpuMemory") or 0),
        }
        if raw["InstanceType"] not in types:
            types[raw["InstanceType"]], _ = InstanceType.objects.update_or_create(
                instance_type=raw["InstanceType"], defaults=defaults
            )
    return types


def sync_inventory(
    account: CloudAccount, client: TencentClient, *, now: datetime | None = None
) -> InventoryResult:
    """Mirror the account's instances. All regions are read first, then written in one
    transaction, so a failure half-way leaves the previous inventory untouched. An instance
    that no longer appears is marked terminated (never deleted: its history stays)."""
    now = now or timezone.now()
    fetched: list[tuple[str, dict[str, Any]]] = []
    types: dict[str, InstanceType] = {}
    for region in account.regions:
        types.update(sync_instance_types(client, region))
        fetched.extend((region, raw) for raw in client.describe_instances(region))

    organization = account.organization
    created = 0
    with transaction.atomic():
        resolver = ProjectResolver(organization)
        existing = {
            i.provider_id: i
            for i in Instance.objects.for_organization(organization).filter(account=account)
        }
        seen: set[str] = set()
        tags_changed = False
        for region, raw in fetched:
            fields = _instance_fields(raw, region, types)
            fields["project"] = resolver.resolve(fields["tags"])
            provider_id = raw["InstanceId"]
            seen.add(provider_id)
            instance = existing.get(provider_id)
            if instance is None:
                Instance.objects.create(
                    organization=organization, account=account, provider_id=provider_id, **fields
                )
                created += 1
                continue
            changed = [name for name, value in fields.items() if getattr(instance, name) != value]
            tags_changed = tags_changed or "tags" in changed
            if changed:
                for name in changed:
                    setattr(instance, name, fields[name])
                instance.save(update_fields=[*changed, "updated_at"])
        vanished = [
            i.pk for pid, i in existing.items() if pid not in seen and i.terminated_at is None
        ]
        Instance.objects.filter(pk__in=vanished).update(
            state="TERMINATED", terminated_at=now, updated_at=now
        )
        if created or tags_changed:
            transaction.on_commit(
                lambda: instance_tags_changed.send(sender=Instance, organization=organization)
            )
    return InventoryResult(seen=len(seen), created=created, terminated=len(vanished))
