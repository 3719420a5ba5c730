"""E-mails render from templates with the wording they always had, as plain text."""

import datetime as dt

import pytest
from django.conf import LazySettings

from apps.accounts.emails import invitation_email_render
from apps.accounts.models import Invitation, User
from apps.accounts.services import organization_create

pytestmark = pytest.mark.django_db

BERLIN_MORNING = dt.datetime(2026, 12, 7, 10, 5, tzinfo=dt.timezone(dt.timedelta(hours=1)))


def test_it_renders_the_invitation_with_its_link_and_utc_expiry(
    alice: User, settings: LazySettings
) -> None:
    settings.PUBLIC_URL = "https://ledger.example"
    organization = organization_create(name="R&D <Lab>", owner=alice)
    invitation = Invitation.objects.create(
        organization=organization,
        email="dana@acme.test",
        role="lead",
        invited_by=alice,
        token_hash="h" * 64,
        expires_at=BERLIN_MORNING,
    )

    email = invitation_email_render(invitation=invitation, token="tok-123")

    assert email.subject == "You are invited to R&D <Lab> on GPU Ledger"
    assert email.body == (
        "alice@acme.test invited you to join R&D <Lab> on GPU Ledger as Team lead.\n\n"
        "Accept the invitation: https://ledger.example/invitations/accept?token=tok-123\n\n"
        "The link expires on 2026-12-07 09:05 UTC."
    )


def test_it_names_a_colleague_when_the_inviter_is_gone(alice: User) -> None:
    organization = organization_create(name="Acme", owner=alice)
    invitation = Invitation.objects.create(
        organization=organization,
        email="dana@acme.test",
        token_hash="h" * 64,
        expires_at=BERLIN_MORNING,
    )

    body = invitation_email_render(invitation=invitation, token="t").body

    assert body.startswith("A colleague invited you to join Acme on GPU Ledger as Viewer.\n")
