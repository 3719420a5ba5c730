"""The write credential of a cloud account, and the switch that lets automation use it.

GPU Ledger reads with the account's key and acts (StopInstances, StartInstances; never
anything that terminates) only with a second key that the owner adds on purpose
(docs/automation.md). A key is tested before it is saved: StopInstances and StartInstances on
an id that cannot exist. ``InvalidInstanceId.NotFound`` means CAM let the call through to the
instance lookup, which proves the permission without touching a real instance.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from apps.accounts.audit import actions as audit_actions
from apps.accounts.audit.services import audit_record
from apps.cloud.models import CloudAccount
from apps.cloud.providers.tencent.client import AccountConfig, RetryPolicy, TencentClient
from apps.cloud.providers.tencent.errors import CloudError, InstanceNotFound, NotAuthorized
from apps.core.crypto import decrypt_str, encrypt_str

if TYPE_CHECKING:
    from apps.accounts.models import User

# Syntactically valid, and never the id of a real instance (Tencent ids are random base-36).
PROBE_INSTANCE_ID = "ins-00000000"
READ_ONLY_CREDENTIAL = "read_only_credential"
_TAG = re.compile(r"^[^=\s][^=]{0,126}=[^=]{0,255}$")


def _secret(field: str, value: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError({field: _("This field may not be blank.")})
    if any(c.isspace() for c in value):
        raise ValidationError({field: _("Must not contain spaces.")})
    return value


def _tag(value: str) -> str:
    value = (value or "").strip()
    if value and not _TAG.match(value):
        raise ValidationError({"automation_tag": _("Write the tag as key=value, e.g. team=ml.")})
    return value


def _client(account: CloudAccount, secret_id: str, secret_key: str) -> TencentClient:
    config = AccountConfig(
        secret_id=secret_id,
        secret_key=secret_key,
        site=account.site,
        endpoint=account.endpoint,
        scheme=account.endpoint_scheme,
        rate_key=str(account.pk),
    )
    # A person waits for the answer: a short retry budget (throttling only, for writes).
    return TencentClient(config, retry=RetryPolicy(budget_seconds=10.0))


def _test_write_key(account: CloudAccount, secret_id: str, secret_key: str) -> None:
    """Raise a ValidationError naming what is missing unless the key may stop and start."""
    region = (account.regions or ["ap-guangzhou"])[0]
    try:
        client = _client(account, secret_id, secret_key)
        for action, call in (
            ("StopInstances", client.stop_instances),
            ("StartInstances", client.start_instances),
        ):
            try:
                call(region, [PROBE_INSTANCE_ID])
            except InstanceNotFound:
                continue  # CAM allowed the call: the permission is there
            except NotAuthorized as exc:
                raise ValidationError(
                    {
                        "secret_id": _(
                            "This key may not call %(action)s (CAM permission cvm:%(action)s); "
                            "nothing was saved. Tencent Cloud said: %(detail)s"
                        )
                        % {"action": action, "detail": exc.code}
                    }
                ) from None
    except CloudError as exc:
        raise ValidationError(
            {
                "secret_id": _(
                    "The key could not be tested (%(code)s: %(message)s); nothing was saved. "
                    "Try again in a minute."
                )
                % {"code": exc.code, "message": exc.message}
            }
        ) from None


def cloud_account_set_write_credential(
    *,
    account: CloudAccount,
    secret_id: str,
    secret_key: str,
    actor: User | None = None,
    automation_tag: str | None = None,
) -> CloudAccount:
    """Test a write key (StopInstances/StartInstances on ``ins-00000000`` in the account's
    first region must answer InvalidInstanceId.NotFound), then store it encrypted. A key CAM
    refuses, or a test that could not run, raises a ValidationError and saves nothing. The
    same SecretId as the read key is allowed (one key that may do both)."""
    _secret("secret_id", secret_id)
    _secret("secret_key", secret_key)
    tag = _tag(automation_tag) if automation_tag is not None else account.automation_tag
    _test_write_key(account, secret_id, secret_key)
    with transaction.atomic():
        locked = CloudAccount.objects.select_for_update().get(pk=account.pk)
        replaced = locked.has_write_credential
        locked.write_secret_id = secret_id
        locked.write_secret_key_encrypted = encrypt_str(secret_key)
        locked.automation_tag = tag
        locked.save(
            update_fields=[
                "write_secret_id",
                "write_secret_key_encrypted",
                "automation_tag",
                "updated_at",
            ]
        )
        audit_record(
            organization=locked.organization,
            action=audit_actions.CLOUD_ACCOUNT_CREDENTIALS_CHANGED,
            target=locked,
            actor=actor,
            details={
                "write_credential": "replaced" if replaced else "added",
                "write_secret_id": secret_id,
                "automation_tag": tag,
                "secrets_changed": ["write_secret_key"],
            },
        )
    account.refresh_from_db()
    return account


@transaction.atomic
def cloud_account_remove_write_credential(
    *, account: CloudAccount, actor: User | None = None
) -> CloudAccount:
    """Forget the write key; automation turns off with it (it could not act any more)."""
    locked = CloudAccount.objects.select_for_update().get(pk=account.pk)
    had = locked.has_write_credential
    was_enabled = locked.automation_enabled
    locked.write_secret_id = ""
    locked.write_secret_key_encrypted = ""
    locked.automation_enabled = False
    locked.save(
        update_fields=[
            "write_secret_id",
            "write_secret_key_encrypted",
            "automation_enabled",
            "updated_at",
        ]
    )
    if had or was_enabled:
        details: dict[str, Any] = {"write_credential": "removed"}
        if was_enabled:
            details["changes"] = {"automation_enabled": {"old": True, "new": False}}
        audit_record(
            organization=locked.organization,
            action=audit_actions.CLOUD_ACCOUNT_CREDENTIALS_CHANGED,
            target=locked,
            actor=actor,
            details=details,
        )
    account.refresh_from_db()
    return account


@transaction.atomic
def cloud_account_set_automation(
    *, account: CloudAccount, enabled: bool, actor: User | None = None
) -> CloudAccount:
    """Turn automation on or off. On needs a write key: without one, a ValidationError with
    code ``read_only_credential``."""
    locked = CloudAccount.objects.select_for_update().get(pk=account.pk)
    if enabled and not locked.has_write_credential:
        raise ValidationError(
            {
                "automation_enabled": ValidationError(
                    _(
                        "This account has only a read-only credential: add a write credential "
                        "(StopInstances/StartInstances) before turning automation on."
                    ),
                    code=READ_ONLY_CREDENTIAL,
                )
            }
        )
    if locked.automation_enabled != enabled:
        old = locked.automation_enabled
        locked.automation_enabled = enabled
        locked.save(update_fields=["automation_enabled", "updated_at"])
        audit_record(
            organization=locked.organization,
            action=audit_actions.CLOUD_ACCOUNT_UPDATED,
            target=locked,
            actor=actor,
            details={"changes": {"automation_enabled": {"old": old, "new": enabled}}},
        )
    account.refresh_from_db()
    return account


def cloud_account_write_client(account: CloudAccount, **options: Any) -> TencentClient:
    """A Tencent client signing with the account's write key (decrypted only here). Raises
    ValueError when the account has none: automation must not fall back to the read key."""
    if not account.has_write_credential:
        raise ValueError(f"cloud account {account.pk} has no write credential")
    config = AccountConfig(
        secret_id=account.write_secret_id,
        secret_key=decrypt_str(account.write_secret_key_encrypted),
        site=account.site,
        endpoint=account.endpoint,
        scheme=account.endpoint_scheme,
        rate_key=f"{account.pk}:write",
    )
    return TencentClient(config, **options)
