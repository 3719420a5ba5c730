"""Writes for billing beyond the sync: re-allocation of bill lines to projects."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.signals import bill_lines_changed

if TYPE_CHECKING:
    from apps.cloud.projects import ProjectResolver


@transaction.atomic
def bill_lines_reassign_projects(*, organization: Organization, resolver: ProjectResolver) -> int:
    """Give every bill line the project its tags (or its instance) now resolve to."""
    changed = 0
    groups: dict[int | None, list[int]] = {}
    lines = BillLine.objects.for_organization(organization).select_related("instance")
    for line in lines.only("pk", "tags", "project_id", "instance__project_id").iterator(
        chunk_size=5000
    ):
        project = resolver.resolve(line.tags)
        project_id = (
            project.pk if project else (line.instance.project_id if line.instance else None)
        )
        if project_id != line.project_id:
            groups.setdefault(project_id, []).append(line.pk)
            changed += 1
    for project_id, ids in groups.items():
        for start in range(0, len(ids), 5000):
            BillLine.objects.filter(pk__in=ids[start : start + 5000]).update(project_id=project_id)
    if changed:
        bill_lines_changed.send(sender=BillLine, organization=organization, months=None)
    return changed
