"""The only place automation talks to the cloud: stop, start, read states back.

It calls the connector's write client (``apps.cloud.services.cloud_account_write_client``) and
its three CVM calls, and turns the connector's errors into this module's, so the executor
decides on four outcomes (wrong state, sold out, not authorised, gone) and "anything else".
Every stop is ``STOP_CHARGING`` (compute and GPU stop billing; disks keep billing); nothing
here can terminate an instance.
"""

from __future__ import annotations

import datetime as dt

from apps.cloud import services as cloud_services
from apps.cloud.models import CloudAccount
from apps.cloud.providers.tencent import errors as tencent_errors
from apps.cloud.providers.tencent.client import TencentClient

STOP_CHARGING = "STOP_CHARGING"
STOPPED = "STOPPED"
RUNNING = "RUNNING"


class AutomationCloudError(Exception):
    """A refused or failed call; ``code`` is one of the reason codes (wording.py)."""

    code = "cloud_error"

    def __init__(self, message: str = "", request_id: str = "") -> None:
        super().__init__(message)
        self.request_id = request_id


class WrongState(AutomationCloudError):
    code = "already_in_state"


class SoldOut(AutomationCloudError):
    code = "capacity_sold_out"


class Unauthorized(AutomationCloudError):
    code = "not_authorized"


class Gone(AutomationCloudError):
    code = "instance_not_found"


class NoWriteCredential(AutomationCloudError):
    code = "read_only_credential"


# The connector's errors (apps.cloud.providers.tencent.errors) and what they mean here.
_MAPPED: tuple[tuple[type[tencent_errors.CloudError], type[AutomationCloudError]], ...] = (
    (tencent_errors.InstanceStateConflict, WrongState),
    (tencent_errors.CapacitySoldOut, SoldOut),
    (tencent_errors.NotAuthorized, Unauthorized),
    (tencent_errors.InstanceNotFound, Gone),
)


def _translate(exc: Exception) -> AutomationCloudError:
    request_id = str(getattr(exc, "request_id", "") or "")
    for theirs, ours in _MAPPED:
        if isinstance(exc, theirs):
            return ours(str(exc), request_id)
    return AutomationCloudError(str(exc), request_id)


def has_write_credential(account: CloudAccount) -> bool:
    return account.has_write_credential


def automation_enabled(account: CloudAccount) -> bool:
    return account.automation_enabled


def _client(account: CloudAccount) -> TencentClient:
    if not account.has_write_credential:
        raise NoWriteCredential("the cloud account has no write credential")
    return cloud_services.cloud_account_write_client(account)


def stop(account: CloudAccount, region: str, provider_ids: list[str]) -> str:
    """StopInstances with STOP_CHARGING; the RequestId."""
    client = _client(account)
    try:
        return client.stop_instances(region, provider_ids, stopped_mode=STOP_CHARGING)
    except tencent_errors.CloudError as exc:
        raise _translate(exc) from exc


def start(account: CloudAccount, region: str, provider_ids: list[str]) -> str:
    """StartInstances; the RequestId."""
    client = _client(account)
    try:
        return client.start_instances(region, provider_ids)
    except tencent_errors.CloudError as exc:
        raise _translate(exc) from exc


def states(account: CloudAccount, region: str, provider_ids: list[str]) -> dict[str, str]:
    """provider id -> the instance's state (RUNNING, STOPPED, STOPPING, ...)."""
    client = _client(account)
    try:
        described = client.describe_instance_states(region, provider_ids)
    except tencent_errors.CloudError as exc:
        raise _translate(exc) from exc
    return {pid: str(item.get("state", "")) for pid, item in described.items()}


# Cloud Monitor's names (QCE/CVM) of the two figures a stop is decided on, both percent.
GPU_UTIL = "GpuUtil"
GPU_MEM_USAGE = "GpuMemUsage"


def recent_gpu(
    account: CloudAccount, region: str, provider_id: str, *, start: dt.datetime, end: dt.datetime
) -> tuple[list[float], list[float]] | None:
    """The instance's per-minute GPU utilization and GPU memory used (%) in ``[start, end)``,
    asked of Cloud Monitor with the account's read key just before a stop: what the instance
    does now, not what the last metrics sync stored. None when the cloud gives no
    utilization point or cannot be asked (the guard then reads the stored minutes)."""
    try:
        client = cloud_services.cloud_account_client(account)
        util = client.get_monitor_data(region, GPU_UTIL, [provider_id], start, end)
        mem = client.get_monitor_data(region, GPU_MEM_USAGE, [provider_id], start, end)
    except tencent_errors.CloudError:
        return None

    def values(points: list[dict]) -> list[float]:
        return [float(v) for point in points for v in point.get("Values") or []]

    util_values = values(util)
    return (util_values, values(mem)) if util_values else None
