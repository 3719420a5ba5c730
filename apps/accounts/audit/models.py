"""The audit log's one table: append-only entries of security-relevant actions.

Append-only is held twice. In product code the ORM refuses it: an entry's ``save`` refuses
to update and its ``delete`` refuses, and the queryset refuses ``update``/``delete`` (so also
``bulk_update``). On PostgreSQL a trigger (migration 0004) refuses every UPDATE and DELETE
of a row, raw SQL included, except the retention purge's, which names its cut-off in a
transaction-local setting and may then delete only rows older than it
(``services.audit_entries_purge``).

The foreign keys carry no database constraint and do nothing on delete: removing a person, a
key or an organization must neither rewrite nor remove what the log says they did (the row
keeps the actor's and the target's display as they were), and the trigger would refuse the
SET NULL or CASCADE anyway.
"""

from __future__ import annotations

from typing import Any, ClassVar, NoReturn

from django.db import models
from django.utils import timezone

from apps.core.models import OrganizationQuerySet


class AuditLogAppendOnly(Exception):
    """An attempt to change or delete an audit entry (only the retention purge deletes)."""


def _refuse(what: str) -> NoReturn:
    raise AuditLogAppendOnly(f"The audit log is append-only: {what} refused.")


class AuditEntryQuerySet(OrganizationQuerySet):
    def update(self, **kwargs: Any) -> NoReturn:
        _refuse("update")

    def bulk_update(self, objs: Any, fields: Any, batch_size: Any = None) -> NoReturn:
        # Refused before Django's own opens its transaction (a refusal inside it would spoil
        # the caller's transaction).
        _refuse("update")

    def delete(self) -> NoReturn:
        _refuse("delete")

    def newest_first(self) -> AuditEntryQuerySet:
        return self.order_by("-at", "-id")


class ActorType(models.TextChoices):
    USER = "user", "Person"
    API_KEY = "api_key", "API key"
    ANONYMOUS = "anonymous", "Not signed in"
    SYSTEM = "system", "GPU Ledger"


# What is kept of a browser's User-Agent header: enough to tell one browser from another.
USER_AGENT_MAX_LENGTH = 256


class AuditEntry(models.Model):
    """Who did what to which object of an organization, when and from where.

    ``organization`` is null only for a sign-in attempt at an e-mail address no account has
    (no organization's owners should read it; operators see it in the admin site).
    """

    organization = models.ForeignKey(
        "accounts.Organization",
        null=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    at = models.DateTimeField(default=timezone.now)
    # A code of actions.ACTIONS (checked by audit_record; no choices, so a new action needs
    # no migration).
    action = models.CharField(max_length=64)
    actor_type = models.CharField(max_length=16, choices=ActorType.choices)
    actor_user = models.ForeignKey(
        "accounts.User",
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    actor_api_key = models.ForeignKey(
        "accounts.ApiKey",
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    # The actor as they were named then (e-mail address, key name and prefix).
    actor_display = models.CharField(max_length=254, blank=True)
    target_type = models.CharField(max_length=40, blank=True)
    target_id = models.CharField(max_length=64, blank=True)
    target_label = models.CharField(max_length=200, blank=True)
    details = models.JSONField(default=dict, blank=True)
    client_address = models.CharField(max_length=64, blank=True)
    user_agent = models.CharField(max_length=USER_AGENT_MAX_LENGTH, blank=True)

    objects: ClassVar = AuditEntryQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name_plural = "audit entries"
        indexes = [
            models.Index(fields=["organization", "-at", "-id"], name="auditentry_org_at"),
            # The retention purge deletes by age across all organizations.
            models.Index(fields=["at"], name="auditentry_at"),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_display or self.actor_type} {self.action}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            _refuse("update")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("delete")
