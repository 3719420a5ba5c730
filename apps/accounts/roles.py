"""Membership roles and what each may do.

One place decides who can write what, so views only ask ``can_*`` questions.
"""

from django.db import models


class Role(models.TextChoices):
    OWNER = "owner", "Owner"
    ADMIN = "admin", "Admin"
    LEAD = "lead", "Team lead"
    FINANCE = "finance", "Finance"
    VIEWER = "viewer", "Viewer"


# Manage the organization itself: members, invitations, API keys, cloud accounts.
MANAGER_ROLES = frozenset({Role.OWNER, Role.ADMIN})
# Change domain data: accept or dismiss recommendations, project rules, budgets.
EDITOR_ROLES = frozenset({Role.OWNER, Role.ADMIN, Role.LEAD})


def can_manage(role: str | None) -> bool:
    return role in MANAGER_ROLES


def can_edit(role: str | None) -> bool:
    return role in EDITOR_ROLES
