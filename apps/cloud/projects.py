"""Which project an instance (or a bill line) belongs to, from its tags.

An organization names the tag keys that carry project names (default: ``project``). The first
key present on the resource wins; its value maps to the project whose ``tag_values`` list it,
or to a new project of that name. Resources without such a tag are "Unallocated" (no project).
"""

from __future__ import annotations

from django.utils.text import slugify

from apps.accounts.models import Organization
from apps.cloud.models import Project, ProjectTagKey

DEFAULT_PROJECT_TAG_KEYS = ("project",)
UNALLOCATED = "Unallocated"


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
