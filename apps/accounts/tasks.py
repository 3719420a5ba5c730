"""Background work of the accounts app: invitation and verification e-mails, clean-up."""

from __future__ import annotations

import datetime as dt
import logging

from celery import shared_task
from django.core.mail import send_mail

from apps.accounts import services
from apps.accounts.audit.services import audit_entries_purge
from apps.accounts.emails import (
    invitation_email_render,
    lockout_notice_email_render,
    verification_email_render,
)
from apps.accounts.models import User
from apps.accounts.verification import verification_token_make
from workers import queues
from workers.defaults import NEVER_RETRY, task_options

logger = logging.getLogger(__name__)


@shared_task(
    **task_options(
        name="accounts.send_invitation_email",
        queue=queues.EMAIL,
        # The mail server down, refusing or dropping the connection; every smtplib error is
        # an OSError. Retried with backoff and jitter, then given up (the invitation stays
        # unsent, and can be revoked and sent again).
        retry_on=(OSError,),
    )
)
def send_invitation_email(invitation_id: int, token: str) -> bool:
    """E-mail an invitation once. Returns False when there is nothing (more) to send.

    The invitation is claimed first, so a duplicate message or a second worker cannot send it
    twice; a failed send releases the claim for the retry.
    """
    invitation = services.invitation_send_claim(invitation_id=invitation_id)
    if invitation is None:
        return False
    email = invitation_email_render(invitation=invitation, token=token)
    try:
        send_mail(
            subject=email.subject,
            message=email.body,
            from_email=None,
            recipient_list=[invitation.email],
        )
    except OSError as exc:
        services.invitation_send_release(invitation_id=invitation_id)
        logger.warning(
            "invitation %s: mail server failed (%s); claim released for a retry",
            invitation_id,
            exc,
        )
        raise
    return True


@shared_task(
    **task_options(
        name="accounts.purge_expired_invitations",
        queue=queues.DEFAULT,
        # A purge: the next scheduled run deletes whatever this one could not.
        retry_on=NEVER_RETRY,
    )
)
def purge_expired_invitations() -> int:
    return services.invitations_purge_expired()


@shared_task(
    **task_options(
        name="accounts.send_verification_email",
        queue=queues.EMAIL,
        # The mail server down or refusing (every smtplib error is an OSError): retried with
        # backoff; if it never gets through, signing in offers to send the link again.
        retry_on=(OSError,),
    )
)
def send_verification_email(user_id: int) -> bool:
    """E-mail a sign-up's confirmation link. Returns False when the address is confirmed
    already (a duplicate message or a late retry), so nobody gets a stale link."""
    user = User.objects.filter(pk=user_id, email_verification_pending=True).first()
    if user is None:
        return False
    # Signed when sent, so the link's lifetime starts when it reaches the person.
    email = verification_email_render(user=user, token=verification_token_make(user))
    send_mail(
        subject=email.subject, message=email.body, from_email=None, recipient_list=[user.email]
    )
    return True


@shared_task(
    **task_options(
        name="accounts.send_lockout_notice_email",
        queue=queues.EMAIL,
        # The mail server down or refusing (every smtplib error is an OSError): retried with
        # backoff; the lock-out holds whether or not the notice gets through.
        retry_on=(OSError,),
    )
)
def send_lockout_notice_email(user_id: int, failures: int, locked_until: str) -> bool:
    """Tell an account's owner that its sign-ins are locked (apps/accounts/lockout.py);
    False when the account is gone."""
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        return False
    email = lockout_notice_email_render(
        user=user, failures=failures, locked_until=dt.datetime.fromisoformat(locked_until)
    )
    send_mail(
        subject=email.subject, message=email.body, from_email=None, recipient_list=[user.email]
    )
    return True


@shared_task(
    **task_options(
        name="accounts.purge_audit_log",
        queue=queues.DEFAULT,
        # A purge: the next scheduled run deletes whatever this one could not.
        retry_on=NEVER_RETRY,
    )
)
def purge_audit_log() -> int:
    """Delete the audit entries older than ``AUDIT_RETENTION_DAYS``; how many."""
    return audit_entries_purge()
