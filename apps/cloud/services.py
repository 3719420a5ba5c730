"""Writes for cloud accounts: connect, update (incl. a new key), and sync status."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from apps.accounts.audit import actions as audit_actions
from apps.accounts.audit.services import audit_record, changes_between, stored_values
from apps.accounts.models import Organization
from apps.cloud.models import (
    ENDPOINT_RE,
    CloudAccount,
    Instance,
    InstanceSource,
    InstanceType,
    SyncKind,
    SyncState,
    validate_endpoint,
    validate_regions,
)
from apps.cloud.projects import ProjectResolver
from apps.cloud.providers.tencent.client import AccountConfig, RetryPolicy, TencentClient
from apps.cloud.providers.tencent.errors import CloudError
from apps.core.crypto import decrypt_str, encrypt_str
from apps.core.outbound import OutboundRefused, outbound_check

TERMINATED = "TERMINATED"
EDITABLE_FIELDS = ("name", "secret_id", "regions", "site", "endpoint", "endpoint_scheme")
# How a change of an account is recorded in the audit log: where the calls go, and the key.
ENDPOINT_FIELDS = ("site", "endpoint", "endpoint_scheme")
CREDENTIAL_FIELDS = ("secret_id",)


def _check_endpoint(endpoint: str) -> None:
    """Refuse an endpoint override that outbound requests may not reach (apps.core.outbound):
    the server would connect there for the tenant. A 400 on ``endpoint``."""
    if not endpoint or not ENDPOINT_RE.fullmatch(endpoint):
        return  # empty: Tencent's own hosts; malformed: the model's validator says so
    host, port = endpoint.rsplit(":", 1)
    try:
        outbound_check(host, int(port))
    except OutboundRefused as exc:
        raise ValidationError({"endpoint": [str(exc)]}) from exc


def _validate_secret(field: str, value: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError({field: "This field may not be blank."})
    if value != value.strip() or any(c.isspace() for c in value):
        raise ValidationError({field: "Must not contain spaces."})
    return value


@transaction.atomic
def cloud_account_create(
    *,
    organization: Organization,
    name: str,
    secret_id: str,
    secret_key: str,
    regions: list[str],
    site: str = CloudAccount.Site.CHINA,
    endpoint: str = "",
    endpoint_scheme: str = CloudAccount.Scheme.HTTPS,
) -> CloudAccount:
    """Connect a Tencent Cloud account; every kind of sync becomes due at once."""
    account = CloudAccount(
        organization=organization,
        name=name,
        secret_id=_validate_secret("secret_id", secret_id),
        secret_key_encrypted=encrypt_str(_validate_secret("secret_key", secret_key)),
        regions=regions,
        site=site,
        endpoint=endpoint,
        endpoint_scheme=endpoint_scheme,
    )
    account.full_clean()
    _check_endpoint(endpoint)
    account.save()
    now = timezone.now()
    SyncState.objects.bulk_create(
        SyncState(account=account, kind=kind, next_run_at=now) for kind in SyncKind.values
    )
    audit_record(
        organization=organization,
        action=audit_actions.CLOUD_ACCOUNT_CREATED,
        target=account,
        details={
            "name": name,
            "secret_id": secret_id,
            "regions": regions,
            "site": site,
            "endpoint": endpoint,
            "endpoint_scheme": endpoint_scheme,
        },
    )
    return account


@transaction.atomic
def cloud_account_update(
    *, account: CloudAccount, secret_key: str | None = None, **changes: Any
) -> CloudAccount:
    """Change an account. New credentials or endpoints clear the error and retry at once."""
    unknown = set(changes) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValidationError(dict.fromkeys(unknown, "Unknown field."))
    if "secret_id" in changes:
        _validate_secret("secret_id", changes["secret_id"])
    before = stored_values(account, changes)
    for field, value in changes.items():
        setattr(account, field, value)
    if secret_key is not None:
        account.secret_key_encrypted = encrypt_str(_validate_secret("secret_key", secret_key))
    account.full_clean()
    if changes.get("endpoint"):
        _check_endpoint(account.endpoint)
    reconnect = secret_key is not None or {
        "secret_id",
        "endpoint",
        "endpoint_scheme",
        "site",
        "regions",
    } & set(changes)
    if reconnect and account.status != CloudAccount.Status.DISABLED:
        account.status = CloudAccount.Status.PENDING
        account.last_error = ""
        account.last_error_at = None
        SyncState.objects.filter(account=account).update(
            next_run_at=timezone.now(), leased_until=None
        )
    account.save()
    _audit_account_update(account, changes_between(before, changes), secret_key is not None)
    return account


def _audit_account_update(account: CloudAccount, changed: dict[str, Any], new_key: bool) -> None:
    """One entry per kind of change: the credentials (never the SecretKey itself, only that
    it changed), where the calls go, and anything else (name, regions)."""
    groups = (
        (audit_actions.CLOUD_ACCOUNT_CREDENTIALS_CHANGED, CREDENTIAL_FIELDS),
        (audit_actions.CLOUD_ACCOUNT_ENDPOINT_CHANGED, ENDPOINT_FIELDS),
    )
    rest = dict(changed)
    for action, fields in groups:
        part = {name: rest.pop(name) for name in fields if name in rest}
        details: dict[str, Any] = {"changes": part} if part else {}
        if action == audit_actions.CLOUD_ACCOUNT_CREDENTIALS_CHANGED and new_key:
            details["secrets_changed"] = ["secret_key"]
        if details:
            audit_record(
                organization=account.organization, action=action, target=account, details=details
            )
    if rest:
        audit_record(
            organization=account.organization,
            action=audit_actions.CLOUD_ACCOUNT_UPDATED,
            target=account,
            details={"changes": rest},
        )


def cloud_account_mark_failing(*, account_id: int, message: str) -> None:
    CloudAccount.objects.filter(pk=account_id).exclude(status=CloudAccount.Status.DISABLED).update(
        status=CloudAccount.Status.FAILING, last_error=message, last_error_at=timezone.now()
    )


def cloud_account_mark_ok(*, account_id: int) -> None:
    CloudAccount.objects.filter(pk=account_id).exclude(status=CloudAccount.Status.DISABLED).update(
        status=CloudAccount.Status.OK, last_error="", last_error_at=None
    )


def cloud_account_client(account: CloudAccount, **options: Any) -> TencentClient:
    """A Tencent client for the account; the SecretKey is decrypted only here, in memory."""
    config = AccountConfig(
        secret_id=account.secret_id,
        secret_key=decrypt_str(account.secret_key_encrypted),
        site=account.site,
        endpoint=account.endpoint,
        scheme=account.endpoint_scheme,
        rate_key=str(account.pk),
    )
    return TencentClient(config, **options)


@transaction.atomic
def cloud_account_sync_now(*, account: CloudAccount) -> int:
    """Make every kind of sync of the account due now; returns how many kinds. Leases are left
    alone, so a sync that is running already is not started a second time beside it."""
    return SyncState.objects.filter(account=account).update(next_run_at=timezone.now())


@dataclass
class ConnectionTest:
    ok: bool
    message: str
    code: str = ""
    checked: list[str] = dataclasses.field(default_factory=list)


# One call per product GPU Ledger reads, each the cheapest of its kind: a one-instance page of
# DescribeInstances per region (the key, CVM permission, and that each region answers) and
# DescribeAccountBalance (billing permission). A short retry budget: a person waits for the
# answer, and a throttled or flaky API should say so in seconds, not minutes.
CONNECTION_TEST_RETRY_SECONDS = 5.0


def cloud_account_test_connection(
    *,
    organization: Organization,
    secret_id: str,
    secret_key: str,
    regions: list[str],
    site: str = CloudAccount.Site.CHINA,
    endpoint: str = "",
    endpoint_scheme: str = CloudAccount.Scheme.HTTPS,
) -> ConnectionTest:
    """Call Tencent Cloud with credentials that are not saved (and never will be by this), and
    say whether they work, with the cloud's plain message when not."""
    _validate_secret("secret_id", secret_id)
    _validate_secret("secret_key", secret_key)
    try:
        validate_regions(regions)
    except ValidationError as exc:
        raise ValidationError({"regions": exc.messages}) from exc
    if endpoint:
        try:
            validate_endpoint(endpoint)
        except ValidationError as exc:
            raise ValidationError({"endpoint": exc.messages}) from exc
        _check_endpoint(endpoint)
    config = AccountConfig(
        secret_id=secret_id,
        secret_key=secret_key,
        site=site,
        endpoint=endpoint,
        scheme=endpoint_scheme,
        timeout_seconds=10,
        # Its own limiter bucket: a test must not eat into a running sync's rate.
        rate_key=f"connection-test:{organization.pk}",
    )
    checked: list[str] = []
    try:
        client = TencentClient(
            config, retry=RetryPolicy.from_settings(budget_seconds=CONNECTION_TEST_RETRY_SECONDS)
        )
        for region in regions:
            checked.append(f"DescribeInstances {region}")
            client.call("cvm", "DescribeInstances", {"Offset": 0, "Limit": 1}, region=region)
        checked.append("DescribeAccountBalance")
        client.describe_account_balance()
    except CloudError as error:
        return ConnectionTest(ok=False, message=str(error), code=error.code, checked=checked)
    return ConnectionTest(
        ok=True,
        message=f"Connected: the key reads CVM in {len(regions)} region(s) and the billing API.",
        checked=checked,
    )


@dataclass(frozen=True)
class BilledInstance:
    """What the bills say about one instance: enough to list it when the inventory cannot.

    ``instance_type``, ``region`` and ``zone`` may be empty when the bill does not name them;
    ``launched_at`` / ``ended_at`` are the start of its first and the end of its last billed
    second that the bills read so far show.
    """

    provider_id: str
    name: str
    region: str
    zone: str
    instance_type: str
    gpu_model: str
    gpu_count: float
    charge_type: str
    tags: dict[str, str]
    launched_at: datetime
    ended_at: datetime


@transaction.atomic
def instance_upsert_from_bills(
    *, account: CloudAccount, billed: Sequence[BilledInstance]
) -> dict[str, Instance]:
    """Create the instances only the bills name, terminated, or widen their billed lifetime.

    An instance the inventory lists is its authority and is left untouched here; one learned
    from bills is ``TERMINATED`` from its last billed second, launched at its first. Lifetimes
    only ever widen (an older bill month read later moves the launch earlier), so re-reading a
    month changes nothing. Returns every named instance (new, widened or untouched) by id.
    """
    organization = account.organization
    wanted = {item.provider_id: item for item in billed}
    existing = {
        instance.provider_id: instance
        for instance in Instance.objects.for_organization(organization).filter(
            provider_id__in=list(wanted)
        )
    }
    types = {
        spec.instance_type: spec
        for spec in InstanceType.objects.filter(
            instance_type__in={item.instance_type for item in billed if item.instance_type}
        )
    }
    resolver = ProjectResolver(organization)
    for provider_id, item in wanted.items():
        instance = existing.get(provider_id)
        if instance is None:
            spec = types.get(item.instance_type)
            existing[provider_id] = Instance.objects.create(
                organization=organization,
                account=account,
                provider_id=provider_id,
                source=InstanceSource.BILLS,
                state=TERMINATED,
                name=item.name,
                region=item.region,
                zone=item.zone,
                instance_type=item.instance_type,
                # The synced catalog spells the hardware as the inventory does.
                gpu_model=spec.gpu_model if spec else item.gpu_model,
                gpu_count=spec.gpu_count if spec else item.gpu_count,
                gpu_memory_gb=spec.gpu_memory_gb if spec else 0.0,
                cpu_cores=spec.cpu_cores if spec else 0,
                memory_gb=spec.memory_gb if spec else 0,
                charge_type=item.charge_type,
                tags=item.tags,
                project=resolver.resolve(item.tags),
                launched_at=item.launched_at,
                terminated_at=item.ended_at,
            )
            continue
        if instance.source != InstanceSource.BILLS:
            continue
        launched = min(filter(None, [instance.launched_at, item.launched_at]))
        ended = max(filter(None, [instance.terminated_at, item.ended_at]))
        if (launched, ended) != (instance.launched_at, instance.terminated_at):
            instance.launched_at, instance.terminated_at = launched, ended
            instance.save(update_fields=["launched_at", "terminated_at", "updated_at"])
    return existing


# The write credential and the automation switch live in their own module (this one is long);
# they are services of the cloud account all the same.
from apps.cloud.write_credentials import (  # noqa: E402
    cloud_account_remove_write_credential as cloud_account_remove_write_credential,
)
from apps.cloud.write_credentials import (  # noqa: E402
    cloud_account_set_automation as cloud_account_set_automation,
)
from apps.cloud.write_credentials import (  # noqa: E402
    cloud_account_set_write_credential as cloud_account_set_write_credential,
)
from apps.cloud.write_credentials import (  # noqa: E402
    cloud_account_write_client as cloud_account_write_client,
)
