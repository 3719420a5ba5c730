"""Which project an instance (or a bill line) belongs to, from its tags.

An organization names the tag keys that carry project names (default: ``project``). The first
key present on the resource wins; its value maps to the project whose ``tag_values`` list it,
or to a new project of that name. Resources without such a tag are "Unallocated" (no project).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.dispatch import Signal
from django.utils.text import slugify

from apps.accounts.audit import actions as audit_actions
from apps.accounts.audit.services import audit_record, changes_between, current_values
from apps.accounts.models import Organization
from apps.cloud.models import Instance, Project, ProjectTagKey

DEFAULT_PROJECT_TAG_KEYS = ("project",)
UNALLOCATED = "Unallocated"

# Sent inside the re-allocation's transaction with ``organization`` and ``resolver``, after the
# instances moved, so apps that allocate their own rows by the same tags (billing's bill lines)
# move them in the same transaction. A receiver's exception rolls the whole re-allocation back.
projects_reassigned = Signal()


class ProjectResolver:
    """Resolves tag dicts to projects for one organization, creating projects as needed."""

    def __init__(self, organization: Organization) -> None:
        self.organization = organization
        keys = list(
            ProjectTagKey.objects.for_organization(organization).values_list("key", flat=True)
        )
        self.keys = keys or list(DEFAULT_PROJECT_TAG_KEYS)
        self._by_value: dict[str, Project] = {}
        for project in Project.objects.for_organization(organization):
            for value in project.tag_values or [project.name]:
                self._by_value.setdefault(value, project)

    def project_name(self, tags: dict[str, str]) -> str | None:
        for key in self.keys:
            value = (tags.get(key) or "").strip()
            if value:
                return value
        return None

    def resolve(self, tags: dict[str, str]) -> Project | None:
        value = self.project_name(tags)
        if value is None:
            return None
        if value not in self._by_value:
            slug = slugify(value, allow_unicode=True) or f"project-{len(self._by_value) + 1}"
            project, _ = Project.objects.get_or_create(
                organization=self.organization,
                slug=slug,
                defaults={"name": value, "tag_values": [value]},
            )
            self._by_value[value] = project
        return self._by_value[value]


def projects_reassign(organization: Organization) -> int:
    """Re-derive every instance's and bill line's project after the tag rules changed.

    Returns how many instances changed project. Runs in one transaction so reports never see
    half of the old and half of the new allocation.
    """

    with transaction.atomic():
        resolver = ProjectResolver(organization)
        changed = 0
        for instance in Instance.objects.for_organization(organization).select_related("project"):
            project = resolver.resolve(instance.tags)
            if project != instance.project:
                instance.project = project
                instance.save(update_fields=["project", "updated_at"])
                changed += 1
        projects_reassigned.send(sender=Project, organization=organization, resolver=resolver)
    return changed


def project_update(
    *, project: Project, name: str | None = None, tag_values: list[str] | None = None
) -> Project:
    """Rename a project or change which tag values land in it (merging values of others)."""

    with transaction.atomic():
        before = current_values(project, ["name", "tag_values"])
        if name is not None:
            project.name = name
        if tag_values is not None:
            cleaned = [value.strip() for value in tag_values if value.strip()]
            if not cleaned:
                raise ValidationError({"tag_values": "Give at least one tag value."})
            # A value belongs to one project: taking it here removes it from the others.
            for other in Project.objects.for_organization(project.organization).exclude(
                pk=project.pk
            ):
                remaining = [value for value in other.tag_values if value not in cleaned]
                if remaining != other.tag_values:
                    other.tag_values = remaining
                    other.save(update_fields=["tag_values", "updated_at"])
            project.tag_values = cleaned
        project.save()
        changed = changes_between(before, current_values(project, ["name", "tag_values"]))
        if changed:
            audit_record(
                organization=project.organization,
                action=audit_actions.PROJECT_UPDATED,
                target=project,
                details={"changes": changed},
            )
        projects_reassign(project.organization)
    return project


def project_tag_key_create(
    *, organization: Organization, key: str, position: int = 0
) -> ProjectTagKey:
    """Add a tag key whose values name projects, and re-allocate by it, in one transaction."""

    with transaction.atomic():
        if ProjectTagKey.objects.for_organization(organization).filter(key=key).exists():
            raise ValidationError({"key": "This tag key is already used for projects."})
        tag_key = ProjectTagKey.objects.create(
            organization=organization, key=key, position=position
        )
        audit_record(
            organization=organization,
            action=audit_actions.PROJECT_TAG_KEY_CREATED,
            target=tag_key,
            target_label=key,
            details={"key": key, "position": position},
        )
        projects_reassign(organization)
    return tag_key


def project_tag_key_delete(*, tag_key: ProjectTagKey) -> None:
    """Stop naming projects by a tag key, and re-allocate without it, in one transaction."""

    with transaction.atomic():
        audit_record(
            organization=tag_key.organization,
            action=audit_actions.PROJECT_TAG_KEY_DELETED,
            target=tag_key,
            target_label=tag_key.key,
            details={"key": tag_key.key},
        )
        tag_key.delete()
        projects_reassign(tag_key.organization)
