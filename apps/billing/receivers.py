"""Billing's answers to other apps' events (connected in ``BillingConfig.ready()``)."""

from __future__ import annotations

from typing import Any

from apps.accounts.models import Organization
from apps.billing.services import bill_lines_reassign_projects
from apps.cloud.projects import ProjectResolver


def reassign_bill_line_projects(
    sender: Any, *, organization: Organization, resolver: ProjectResolver, **kwargs: Any
) -> None:
    """The cloud re-derived its instances' projects: move the bill lines along, in the same
    transaction (the signal is sent inside it), so reports never mix old and new allocation."""
    bill_lines_reassign_projects(organization=organization, resolver=resolver)
