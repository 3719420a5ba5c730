"""Who is told: owners and admins by default; else members by role or by name, per project."""

from __future__ import annotations

import datetime as dt

import pytest

from apps.accounts.models import Membership, Organization, User
from apps.accounts.roles import Role
from apps.alerts.delivery import recipient_emails
from apps.alerts.models import AlertEvent, AlertRecipient
from tests.alerts.builders import make_project

pytestmark = pytest.mark.django_db


def event(organization: Organization, project=None) -> AlertEvent:
    return AlertEvent.objects.create(
        organization=organization,
        kind="budget",
        title="t",
        message="m",
        project=project,
        started_at=dt.datetime(2026, 11, 2, tzinfo=dt.UTC),
    )


def member(organization: Organization, email: str, role: str, **extra: object) -> User:
    user = User.objects.create_user(email=email, password=None, **extra)
    Membership.objects.create(organization=organization, user=user, role=role)
    return user


def test_it_tells_owners_and_admins_when_nobody_is_named(acme: Organization) -> None:
    member(acme, "admin@acme.test", Role.ADMIN)
    member(acme, "lead@acme.test", Role.LEAD)
    member(acme, "pending@acme.test", Role.ADMIN, email_verification_pending=True)

    assert recipient_emails(event(acme)) == ["admin@acme.test", "alice@acme.test"]


def test_it_tells_roles_and_people_of_the_alerts_project_only(
    acme: Organization, globex: Organization
) -> None:
    vision, speech = make_project(acme, "vision"), make_project(acme, "speech")
    member(acme, "finance@acme.test", Role.FINANCE)
    lead = member(acme, "lead@acme.test", Role.LEAD)
    member(globex, "finance@globex.test", Role.FINANCE)
    AlertRecipient.objects.create(organization=acme, role=Role.FINANCE)  # every project
    AlertRecipient.objects.create(organization=acme, user=lead, project=vision)

    assert recipient_emails(event(acme, vision)) == ["finance@acme.test", "lead@acme.test"]
    assert recipient_emails(event(acme, speech)) == ["finance@acme.test"]
    assert recipient_emails(event(acme)) == ["finance@acme.test"]
