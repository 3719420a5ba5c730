"""The only place automation talks to the cloud: stop, start, read states back.

It calls the connector's write client (``apps.cloud.services.cloud_account_write_client``) and
its three CVM calls, and turns the connector's errors into this module's, so the executor
decides on four outcomes (wrong state, sold out, not authorised, gone) and "anything else".
Every stop is ``STOP_CHARGING`` (compute and GPU stop billing; disks keep billing); nothing
here can terminate an instance.
"""

from __future__ import annotations

from typing import Any

from apps.cloud import services as cloud_services
from apps.cloud.models import CloudAccount
from apps.cloud.providers.tencent import errors as tencent_errors

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


# The connector's error classes, by name (apps.cloud.providers.tencent.errors).
_MAPPED: tuple[tuple[str, type[AutomationCloudError]], ...] = (
    ("InstanceStateConflict", WrongState),
    ("CapacitySoldOut", SoldOut),
    ("NotAuthorized", Unauthorized),
    ("InstanceNotFound", Gone),
)


def _translate(exc: Exception) -> AutomationCloudError:
    request_id = str(getattr(exc, "request_id", "") or "")
    for name, ours in _MAPPED:
        theirs = getattr(tencent_errors, name, None)
        if isinstance(theirs, type) and isinstance(exc, theirs):
            return ours(str(exc), request_id)
    return AutomationCloudError(str(exc), request_id)


def has_write_credential(account: CloudAccount) -> bool:
    return bool(getattr(account, "write_secret_id", "")) and bool(
        getattr(account, "write_secret_key_encrypted", "")
    )


def automation_enabled(account: CloudAccount) -> bool:
    return bool(getattr(account, "automation_enabled", False))


def _client(account: CloudAccount) -> Any:
    if not has_write_credential(account):
        raise NoWriteCredential("the cloud account has no write credential")
    make = getattr(cloud_services, "cloud_account_write_client", None)
    if make is None:
        raise NoWriteCredential("this build has no write client")
    try:
        return make(account)
    except Exception as exc:  # the connector raises when there is no usable write key
        raise NoWriteCredential(str(exc)) from exc


def stop(account: CloudAccount, region: str, provider_ids: list[str]) -> str:
    """StopInstances with STOP_CHARGING; the RequestId."""
    client = _client(account)
    try:
        return str(client.stop_instances(region, provider_ids, stopped_mode=STOP_CHARGING))
    except AutomationCloudError:
        raise
    except Exception as exc:
        raise _translate(exc) from exc


def start(account: CloudAccount, region: str, provider_ids: list[str]) -> str:
    """StartInstances; the RequestId."""
    client = _client(account)
    try:
        return str(client.start_instances(region, provider_ids))
    except AutomationCloudError:
        raise
    except Exception as exc:
        raise _translate(exc) from exc


def states(account: CloudAccount, region: str, provider_ids: list[str]) -> dict[str, str]:
    """provider id -> the instance's state (RUNNING, STOPPED, STOPPING, ...)."""
    client = _client(account)
    try:
        described = client.describe_instance_states(region, provider_ids)
    except Exception as exc:
        raise _translate(exc) from exc
    return {pid: str(item.get("state", "")) for pid, item in dict(described).items()}
