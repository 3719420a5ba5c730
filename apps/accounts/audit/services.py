"""Writes of the audit log: ``audit_record`` (the one writer), field diffs, the retention purge.

Services call ``audit_record`` inside their own transaction, right beside the change they
make, so an entry exists exactly when the change committed. The actor and the address come
from the request being served (``context``); a service that knows better (a sign-in, where
the person is not signed in yet) says so with ``actor``/``actor_display``.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import connection, models, transaction
from django.utils import timezone

from apps.accounts.audit.actions import ACTIONS
from apps.accounts.audit.context import current_request
from apps.accounts.audit.models import USER_AGENT_MAX_LENGTH, ActorType, AuditEntry
from apps.core.clientip import client_address

if TYPE_CHECKING:
    from django.http import HttpRequest

    from apps.accounts.models import ApiKey, Organization, User

# The PostgreSQL setting through which the retention purge tells the trigger its cut-off.
PURGE_SETTING = "gpu_ledger.audit_purge_before"


@dataclass(frozen=True)
class Actor:
    type: str
    display: str
    user: User | None = None
    api_key: ApiKey | None = None
    client_address: str = ""
    user_agent: str = ""


def api_key_display(api_key: ApiKey) -> str:
    return f"{api_key.name} (glk_{api_key.prefix}…)"


def actor_of(request: HttpRequest | None) -> Actor:
    """Who is acting in ``request`` (None: GPU Ledger itself, outside any request)."""
    from apps.accounts.models import ApiKey, User

    if request is None:
        return Actor(type=ActorType.SYSTEM, display="")
    address = client_address(request)
    agent = str(request.META.get("HTTP_USER_AGENT", ""))[:USER_AGENT_MAX_LENGTH]
    auth = getattr(request, "auth", None)
    if isinstance(auth, ApiKey):
        return Actor(ActorType.API_KEY, api_key_display(auth), None, auth, address, agent)
    user = getattr(request, "user", None)
    if isinstance(user, User) and user.pk is not None:
        return Actor(ActorType.USER, user.email, user, None, address, agent)
    return Actor(ActorType.ANONYMOUS, "", None, None, address, agent)


def _target_type(target: models.Model) -> str:
    """``ApiKey`` -> ``api_key``: the type the API and the dashboard name targets by."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(target).__name__).lower()


def audit_record(
    *,
    organization: Organization | None,
    action: str,
    target: models.Model | None = None,
    target_type: str = "",
    target_label: str | None = None,
    details: Mapping[str, Any] | None = None,
    actor: User | None = None,
    actor_fallback: User | None = None,
    actor_display: str | None = None,
    request: HttpRequest | None = None,
) -> AuditEntry:
    """Append one entry to ``organization``'s audit log.

    ``target`` is the object acted on (its type, id and label are kept as they are now;
    ``target_type``/``target_label`` override them). ``details`` must hold no secret: a secret
    that changed is named in ``details["secrets_changed"]``, never its value. The actor is the person or API key of
    ``request`` (default: the request being served); ``actor`` names the person instead
    (keeping the request's address), ``actor_fallback`` the person to name when nobody is
    signed in (a sign-up creates its organization), and ``actor_display`` how to show an
    actor who is no account (an unknown e-mail address that tried to sign in).
    """
    if action not in ACTIONS:
        raise ValueError(f"{action!r} is not an audit action (apps/accounts/audit/actions.py)")
    who = actor_of(request if request is not None else current_request())
    if actor is None and actor_fallback is not None and who.type == ActorType.ANONYMOUS:
        actor = actor_fallback
    if actor is not None:
        who = Actor(
            type=ActorType.USER,
            display=actor.email,
            user=actor,
            client_address=who.client_address,
            user_agent=who.user_agent,
        )
    return AuditEntry.objects.create(
        organization=organization,
        action=action,
        actor_type=who.type,
        actor_user=who.user,
        actor_api_key=who.api_key,
        actor_display=(actor_display if actor_display is not None else who.display)[:254],
        target_type=target_type or (_target_type(target) if target is not None else ""),
        target_id=str(target.pk) if target is not None and target.pk is not None else "",
        target_label=(target_label if target_label is not None else str(target) if target else "")[
            :200
        ],
        details=json_safe(dict(details or {})),
        client_address=who.client_address,
        user_agent=who.user_agent,
    )


# --- what changed --------------------------------------------------------------------------


def json_safe(value: Any) -> Any:
    """``value`` as JSON can hold it: money and times as strings, objects by their id."""
    if isinstance(value, Mapping):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [json_safe(item) for item in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, (decimal.Decimal, uuid.UUID)):
        return str(value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, models.Model):
        return value.pk
    return value


def stored_values(instance: models.Model, fields: Iterable[str]) -> dict[str, Any]:
    """``fields`` of ``instance`` as its row in the database holds them ({} if not saved yet).

    A foreign key is read by its id (``project`` gives the project's id)."""
    if instance.pk is None:
        return {}
    columns = {name: _attname(instance, name) for name in fields}
    row = type(instance)._default_manager.filter(pk=instance.pk).values(*columns.values()).first()
    if row is None:
        return {}
    return {name: row[column] for name, column in columns.items()}


def current_values(instance: models.Model, fields: Iterable[str]) -> dict[str, Any]:
    """``fields`` of ``instance`` as it is in memory (foreign keys by their id)."""
    return {name: getattr(instance, _attname(instance, name)) for name in fields}


def _attname(instance: models.Model, name: str) -> str:
    """The column attribute of field ``name`` (``project`` -> ``project_id``)."""
    field = instance._meta.get_field(name)
    assert isinstance(field, models.Field), f"{name} is a relation's reverse, not a field"
    return field.attname


def changes_between(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """``{field: {"old": ..., "new": ...}}`` for each field of ``new`` whose value differs."""
    old_safe, new_safe = json_safe(dict(old)), json_safe(dict(new))
    return {
        name: {"old": old_safe.get(name), "new": value}
        for name, value in new_safe.items()
        if old_safe.get(name) != value
    }


def overrides_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """``changes_between`` for a mapping of overrides, where a key can appear or go (an
    override dropped: its ``new`` is None, back to the default)."""
    keys = sorted(set(old) | set(new))
    return changes_between({key: old.get(key) for key in keys}, {key: new.get(key) for key in keys})


# --- retention ------------------------------------------------------------------------------


def audit_entries_purge(*, now: dt.datetime | None = None) -> int:
    """Delete the entries older than ``AUDIT_RETENTION_DAYS``; how many.

    The only deletion the log allows: on PostgreSQL the append-only trigger lets a DELETE
    through only for rows older than the cut-off this transaction names in ``PURGE_SETTING``.
    Raw SQL, because the ORM's delete is refused for entries (and would fetch every row).
    """
    cutoff = (now or timezone.now()) - dt.timedelta(days=settings.AUDIT_RETENTION_DAYS)
    table = connection.ops.quote_name(AuditEntry._meta.db_table)
    column = connection.ops.quote_name("at")
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT set_config(%s, %s, true)", [PURGE_SETTING, cutoff.isoformat()])
        cursor.execute(f"DELETE FROM {table} WHERE {column} < %s", [cutoff])
        return cursor.rowcount
