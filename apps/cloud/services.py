"""Writes for cloud accounts: connect, update (incl. a new key), and sync status."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import Organization
from apps.cloud.models import CloudAccount, SyncKind, SyncState, validate_endpoint, validate_regions
from apps.cloud.providers.tencent.client import AccountConfig, RetryPolicy, TencentClient
from apps.cloud.providers.tencent.errors import CloudError
from apps.core.crypto import decrypt_str, encrypt_str

EDITABLE_FIELDS = ("name", "secret_id", "regions", "site", "endpoint", "endpoint_scheme")


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
    account.save()
    now = timezone.now()
    SyncState.objects.bulk_create(
        SyncState(account=account, kind=kind, next_run_at=now) for kind in SyncKind.values
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
    for field, value in changes.items():
        setattr(account, field, value)
    if secret_key is not None:
        account.secret_key_encrypted = encrypt_str(_validate_secret("secret_key", secret_key))
    account.full_clean()
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
    return account


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
# DescribeAccountBalance (billing permission). Few tries: a person waits for the answer.
CONNECTION_TEST_ATTEMPTS = 2


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
        client = TencentClient(config, retry=RetryPolicy(attempts=CONNECTION_TEST_ATTEMPTS))
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
