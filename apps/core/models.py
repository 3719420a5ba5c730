"""Base models shared by every domain app.

Tenancy starts here: every user-facing model derives from ``OrganizationScopedModel`` and is
read through ``OrganizationQuerySet.for_organization``, so "another organization's row" can only
ever be a row the query never returns (a 404), not a row a view forgot to filter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from django.db import models

if TYPE_CHECKING:
    from apps.accounts.models import Organization


class TimestampedModel(models.Model):
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class OrganizationQuerySet(models.QuerySet):
    def for_organization(self, organization: Organization) -> Self:
        return self.filter(organization=organization)


class OrganizationScopedModel(TimestampedModel):
    organization = models.ForeignKey(
        "accounts.Organization",
        on_delete=models.CASCADE,
        related_name="%(app_label)s_%(class)s_set",
    )

    objects = OrganizationQuerySet.as_manager()

    class Meta:
        abstract = True
