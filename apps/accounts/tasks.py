"""Background work of the accounts app: invitation e-mails and their clean-up."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.utils import timezone

from apps.accounts.models import Invitation
from workers import queues
from workers.defaults import task_options

logger = logging.getLogger(__name__)


@shared_task(**task_options(name="accounts.send_invitation_email", queue=queues.EMAIL))
def send_invitation_email(invitation_id: int, token: str) -> bool:
    """E-mail an invitation once. Returns False when there is nothing (more) to send.

    The conditional UPDATE claims the invitation, so a duplicate message or a second worker
    cannot send it twice; a failed send releases the claim for the retry.
    """
    claimed = Invitation.objects.filter(pk=invitation_id, sent_at__isnull=True).update(
        sent_at=timezone.now()
    )
    if not claimed:
        return False
    invitation = Invitation.objects.select_related("organization", "invited_by").get(
        pk=invitation_id
    )
    inviter = invitation.invited_by.email if invitation.invited_by else "A colleague"
    link = f"{settings.PUBLIC_URL}/invitations/accept?token={token}"
    try:
        send_mail(
            subject=f"You are invited to {invitation.organization.name} on GPU Ledger",
            message=(
                f"{inviter} invited you to join {invitation.organization.name} on GPU Ledger "
                f"as {invitation.get_role_display()}.\n\nAccept the invitation: {link}\n\n"
                f"The link expires on {invitation.expires_at:%Y-%m-%d %H:%M} UTC."
            ),
            from_email=None,
            recipient_list=[invitation.email],
        )
    except OSError as exc:
        Invitation.objects.filter(pk=invitation_id).update(sent_at=None)
        logger.warning("invitation %s: mail server failed (%s); retrying", invitation_id, exc)
        raise send_invitation_email.retry(exc=exc) from exc
    return True


@shared_task(**task_options(name="accounts.purge_expired_invitations", queue=queues.DEFAULT))
def purge_expired_invitations() -> int:
    deleted, _ = Invitation.objects.filter(
        accepted_at__isnull=True, expires_at__lt=timezone.now()
    ).delete()
    return deleted
