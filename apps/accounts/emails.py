"""E-mails of the accounts app, rendered from templates (templates/accounts/email/).

Plain text only: the texts are short, and one part keeps every mail client and the tests that
read the message body simple. Templates turn autoescaping off, since HTML escaping would show
an organization named "R&D" as "R&amp;D" in a text e-mail. The lock-out notice is written in the
account's language (``User.language``), from the catalog in apps/accounts/locale.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from apps.accounts.models import Invitation, User
from apps.accounts.verification import verification_link


@dataclass(frozen=True)
class RenderedEmail:
    subject: str
    body: str


def invitation_email_render(*, invitation: Invitation, token: str) -> RenderedEmail:
    """The invitation e-mail with its accept link (``token`` is the raw, unhashed token)."""
    context = {
        "inviter": invitation.invited_by.email if invitation.invited_by else "A colleague",
        "organization_name": invitation.organization.name,
        "role": invitation.get_role_display(),
        "link": f"{settings.PUBLIC_URL}/invitations/accept?token={token}",
        "expires_at": invitation.expires_at,
    }
    subject = render_to_string("accounts/email/invitation_subject.txt", context)
    return RenderedEmail(
        # A header must be one line, whatever the template's trailing newline.
        subject=" ".join(subject.strip().splitlines()),
        body=render_to_string("accounts/email/invitation_body.txt", context).rstrip("\n"),
    )


def verification_email_render(*, user: User, token: str) -> RenderedEmail:
    """The sign-up confirmation e-mail with its signed link."""
    membership = user.memberships.select_related("organization").order_by("created_at").first()
    context = {
        "name": user.name,
        "organization_name": membership.organization.name if membership else "",
        "link": verification_link(token),
        "valid_hours": settings.EMAIL_VERIFICATION_VALID_HOURS,
    }
    subject = render_to_string("accounts/email/verification_subject.txt", context)
    return RenderedEmail(
        subject=" ".join(subject.strip().splitlines()),
        body=render_to_string("accounts/email/verification_body.txt", context).rstrip("\n"),
    )


def lockout_notice_email_render(
    *, user: User, failures: int, locked_until: dt.datetime
) -> RenderedEmail:
    """The notice that the per-account back-off locked ``user``'s sign-ins (lockout.py)."""
    with translation.override(user.language):
        context = {
            "name": user.name,
            "email": user.email,
            "failures": failures,
            "until": locked_until.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        }
        subject = render_to_string("accounts/email/lockout_subject.txt", context)
        body = render_to_string("accounts/email/lockout_body.txt", context)
    return RenderedEmail(subject=" ".join(subject.strip().splitlines()), body=body.rstrip("\n"))
