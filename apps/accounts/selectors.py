"""Reads for accounts."""

from __future__ import annotations

from django.db.models import QuerySet

from apps.accounts.models import Membership, Organization, User


def memberships_for_user(user: User) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(user=user)
        .select_related("organization")
        .order_by("organization__name")
    )


def membership_for(user: User, organization: Organization) -> Membership | None:
    return Membership.objects.filter(user=user, organization=organization).first()


def organization_for_user(
    user: User, *, slug: str | None = None, pk: int | None = None
) -> Organization | None:
    """The organization the user belongs to by slug or id, or None (never another's)."""
    queryset = Organization.objects.filter(members=user)
    if slug is not None:
        queryset = queryset.filter(slug=slug)
    if pk is not None:
        queryset = queryset.filter(pk=pk)
    return queryset.first()
