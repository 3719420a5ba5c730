"""Reads of the audit log."""

from __future__ import annotations

import datetime as dt

from django.db.models import Q

from apps.accounts.audit.models import AuditEntryQuerySet


def audit_entries_filter(
    rows: AuditEntryQuerySet,
    *,
    action: list[str] | None = None,
    actor: str | None = None,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    **_: object,
) -> AuditEntryQuerySet:
    """The entries the API's query asks for, newest first.

    ``actor`` matches, case-insensitively, part of the actor's display (an e-mail address, an
    API key's name or prefix); ``since`` is inclusive, ``until`` exclusive."""
    if action:
        rows = rows.filter(action__in=action)
    if actor:
        rows = rows.filter(Q(actor_display__icontains=actor))
    if since is not None:
        rows = rows.filter(at__gte=since)
    if until is not None:
        rows = rows.filter(at__lt=until)
    return rows.newest_first()
