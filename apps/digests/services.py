"""Writes of the digests app: subscriptions, holidays, claiming due digests and sending them.

Exactly once per subscription and period, by two guards (DESIGN.md, "Due work"):

1. ``subscriptions_claim_due`` moves a due subscription's ``next_send_at`` forward with a
   conditional UPDATE (``WHERE next_send_at = <the value read>``): of two claimers (two
   workers, a doubled beat tick) only the one whose UPDATE matched creates the delivery.
2. The delivery row is unique per (subscription, period_start), and ``delivery_claim`` takes
   it with another conditional UPDATE (pending, or a sending claim whose lease ran out), so a
   duplicate task message or a redelivered one after a lost ack does not send again.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import smtplib
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from apps.accounts.audit import actions as audit_actions
from apps.accounts.audit.services import (
    audit_record,
    changes_between,
    current_values,
    stored_values,
)
from apps.accounts.models import Membership, Organization, User
from apps.cloud.models import Project
from apps.core.sweep import deliveries_take_back
from apps.digests import schedule, selectors
from apps.digests.content import Stopwatch
from apps.digests.emails import digest_message, digest_render
from apps.digests.models import DeliveryStatus, DigestDelivery, DigestSubscription, Holiday

logger = logging.getLogger(__name__)

# A worker that took a delivery and died leaves it "sending"; after this another may take it.
DELIVERY_LEASE = dt.timedelta(minutes=10)
# The sweep sends again what the task's own retries (about 20 minutes) could not, for this
# long after the digest was due: a mail server down for hours loses no digest; one a day old
# is recorded as failed instead (yesterday's figures are in today's digest anyway).
SWEEP_WINDOW = dt.timedelta(days=1)
# A pending delivery untouched this long has no task any more (the broker lost it): longer
# than the longest wait between two retries (10 minutes), so a live retry is never doubled.
SWEEP_IDLE = dt.timedelta(minutes=30)
GAVE_UP = "Not sent within a day of being due."
UNSUBSCRIBED = "Unsubscribed before it was sent."
# What the audit log records of a subscription's schedule and of a holiday.
SCHEDULE_FIELDS = (
    "frequency",
    "weekday",
    "day_of_month",
    "send_time",
    "timezone",
    "workdays_only",
    "is_active",
)
HOLIDAY_FIELDS = ("date", "name")
CLAIM_BATCH = 100
MAX_CLAIM_BATCHES = 200


class TransientDeliveryError(Exception):
    """The mail server could not take the digest now (down, busy, a 4xx): worth a retry."""


@dataclass(frozen=True)
class SendOutcome:
    status: str
    message_id: str = ""
    error: str = ""


def subscription_schedule(
    subscription: DigestSubscription, holidays: Iterable[dt.date] = ()
) -> schedule.Schedule:
    return schedule.Schedule(
        frequency=subscription.frequency,
        send_time=subscription.send_time,
        timezone=subscription.effective_timezone,
        weekday=subscription.weekday,
        day_of_month=subscription.day_of_month,
        workdays_only=subscription.workdays_only,
        holidays=frozenset(holidays),
    )


def _next_send_at(subscription: DigestSubscription, *, after: dt.datetime) -> dt.datetime | None:
    if not subscription.is_active:
        return None
    holidays = selectors.holiday_dates(subscription.organization_id)
    return schedule.next_occurrence(
        subscription_schedule(subscription, holidays), after=after
    ).send_at


@transaction.atomic
def subscription_save(
    *,
    subscription: DigestSubscription,
    projects: list[Project] | None = None,
    now: dt.datetime | None = None,
) -> DigestSubscription:
    """Create or change a subscription; its next send time follows its (new) schedule."""
    before = stored_values(subscription, SCHEDULE_FIELDS)
    projects_before = sorted(subscription.projects.values_list("pk", flat=True)) if before else []
    if subscription.is_active:
        subscription.unsubscribed_at = None
    subscription.next_send_at = _next_send_at(subscription, after=now or timezone.now())
    subscription.save()
    if projects is not None:
        subscription.projects.set(projects)
    after = {
        **current_values(subscription, SCHEDULE_FIELDS),
        "projects": sorted(project.pk for project in projects)
        if projects is not None
        else projects_before,
    }
    if not before:
        action, details = audit_actions.DIGEST_SUBSCRIPTION_CREATED, {"values": after}
    else:
        changed = changes_between({**before, "projects": projects_before}, after)
        if not changed:
            return subscription
        action, details = audit_actions.DIGEST_SUBSCRIPTION_UPDATED, {"changes": changed}
    audit_record(
        organization=subscription.organization,
        action=action,
        target=subscription,
        target_label=subscription.user.email,
        details=details,
    )
    return subscription


@transaction.atomic
def subscription_delete(*, subscription: DigestSubscription) -> None:
    audit_record(
        organization=subscription.organization,
        action=audit_actions.DIGEST_SUBSCRIPTION_DELETED,
        target=subscription,
        target_label=subscription.user.email,
        details={"values": current_values(subscription, SCHEDULE_FIELDS)},
    )
    subscription.delete()


def subscription_unsubscribe(*, subscription_id: int, now: dt.datetime | None = None) -> bool:
    """Turn a digest off (the one-click link). True if it was on."""
    with transaction.atomic():
        turned_off = DigestSubscription.objects.filter(pk=subscription_id, is_active=True).update(
            is_active=False, unsubscribed_at=now or timezone.now(), next_send_at=None
        )
        if turned_off:
            subscription = DigestSubscription.objects.select_related("organization", "user").get(
                pk=subscription_id
            )
            audit_record(
                organization=subscription.organization,
                action=audit_actions.DIGEST_SUBSCRIPTION_UNSUBSCRIBED,
                target=subscription,
                target_label=subscription.user.email,
                details={"changes": {"is_active": {"old": True, "new": False}}},
            )
    return bool(turned_off)


def _reschedule_organization(organization_id: int, *, now: dt.datetime) -> None:
    """Recompute the next send time of an organization's active subscriptions (holidays changed)."""
    for subscription in DigestSubscription.objects.filter(
        organization_id=organization_id, is_active=True
    ).select_related("organization"):
        DigestSubscription.objects.filter(pk=subscription.pk).update(
            next_send_at=_next_send_at(subscription, after=now)
        )


@transaction.atomic
def holiday_save(*, holiday: Holiday, now: dt.datetime | None = None) -> Holiday:
    before = stored_values(holiday, HOLIDAY_FIELDS)
    holiday.full_clean()
    holiday.save()
    after = current_values(holiday, HOLIDAY_FIELDS)
    changed = changes_between(before, after)
    if not before or changed:
        audit_record(
            organization=holiday.organization,
            action=audit_actions.HOLIDAY_UPDATED if before else audit_actions.HOLIDAY_CREATED,
            target=holiday,
            target_label=str(holiday.date),
            details={"changes": changed} if before else {"values": after},
        )
    _reschedule_organization(holiday.organization_id, now=now or timezone.now())
    return holiday


@transaction.atomic
def holiday_delete(*, holiday: Holiday, now: dt.datetime | None = None) -> None:
    organization_id = holiday.organization_id
    audit_record(
        organization=holiday.organization,
        action=audit_actions.HOLIDAY_DELETED,
        target=holiday,
        target_label=str(holiday.date),
        details={"values": current_values(holiday, HOLIDAY_FIELDS)},
    )
    holiday.delete()
    _reschedule_organization(organization_id, now=now or timezone.now())


def subscriptions_claim_due(*, now: dt.datetime) -> list[int]:
    """Claim every subscription due at ``now``; returns the ids of the deliveries created.

    A batch of claims is one transaction: the conditional UPDATEs of ``next_send_at`` and
    the delivery rows commit together (a crash in between cannot lose or double a digest),
    and the sends are queued once they have; one commit per batch, not per digest, is what
    lets a thousand digests due at 09:00 be claimed in seconds.
    """
    due = (
        DigestSubscription.objects.filter(
            is_active=True, next_send_at__isnull=False, next_send_at__lte=now
        )
        .select_related("organization", "user")
        .order_by("next_send_at", "pk")
    )
    holidays_by_org: dict[int, set[dt.date]] = {}
    created = []
    # Batches until nothing is due: every row read is moved past ``now`` (by this claimer or
    # by another), so the loop ends; the bound only guards against a bug turning it endless.
    for _ in range(MAX_CLAIM_BATCHES):
        with transaction.atomic():
            batch = list(due[:CLAIM_BATCH])
            if not batch:
                break
            for subscription in batch:
                if subscription.organization_id not in holidays_by_org:
                    holidays_by_org[subscription.organization_id] = selectors.holiday_dates(
                        subscription.organization_id
                    )
                delivery_id = _claim_one(
                    subscription, now=now, holidays=holidays_by_org[subscription.organization_id]
                )
                if delivery_id is not None:
                    created.append(delivery_id)
    return created


def _claim_one(
    subscription: DigestSubscription, *, now: dt.datetime, holidays: set[dt.date]
) -> int | None:
    plan = subscription_schedule(subscription, holidays)
    assert subscription.next_send_at is not None
    # The schedule may have changed since next_send_at was stored (a holiday added): what is
    # due is recomputed, not trusted.
    occurrence = schedule.latest_due(plan, since=subscription.next_send_at, now=now)
    following = schedule.next_occurrence(plan, after=now).send_at
    with transaction.atomic():
        claimed = DigestSubscription.objects.filter(
            pk=subscription.pk, is_active=True, next_send_at=subscription.next_send_at
        ).update(next_send_at=following)
        if not claimed or occurrence is None:
            return None
        try:
            with transaction.atomic():
                delivery = DigestDelivery.objects.create(
                    organization_id=subscription.organization_id,
                    subscription=subscription,
                    period_start=occurrence.period_start,
                    period_end=occurrence.period_end,
                    scheduled_for=occurrence.send_at,
                    recipient=subscription.user.email,
                )
        except IntegrityError:
            # This period went out already (the schedule was edited back and forth).
            return None
        from apps.digests.tasks import send_digest

        transaction.on_commit(lambda: send_digest.delay(delivery.pk))
        return delivery.pk


def _still_a_member(subscription: DigestSubscription) -> bool:
    return (
        subscription.user.is_active
        and Membership.objects.filter(
            organization_id=subscription.organization_id, user_id=subscription.user_id
        ).exists()
    )


def delivery_claim(*, delivery_id: int, now: dt.datetime) -> bool:
    """Take a delivery for sending: pending, or sending under a lease that ran out."""
    stale = now - DELIVERY_LEASE
    return bool(
        DigestDelivery.objects.filter(pk=delivery_id)
        .filter(
            Q(status=DeliveryStatus.PENDING)
            | Q(status=DeliveryStatus.SENDING, claimed_at__lt=stale)
        )
        .update(status=DeliveryStatus.SENDING, claimed_at=now, updated_at=now)
    )


def is_permanent(error: BaseException) -> bool:
    """A refusal that no retry will change: a bad address, a 5xx reply."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in error.recipients.values()]
        return bool(codes) and all(code >= 500 for code in codes)
    if isinstance(error, smtplib.SMTPResponseException):
        return error.smtp_code >= 500
    return False


# One connection to the mail server per worker process, kept open between digests: at 09:00
# a worker sends hundreds in a row, and a new connection (TCP, EHLO, maybe TLS) for each
# would cost more than the message. Dropped after any error, so the next send reconnects; a
# connection the server closed while idle is reopened once at once (that is no failure).
_connection: tuple[tuple[str, str, int], BaseEmailBackend] | None = None


def _mail_connection() -> tuple[BaseEmailBackend, bool]:
    """The open connection (and whether it was open before) for the current settings."""
    global _connection
    wanted = (settings.EMAIL_BACKEND, settings.EMAIL_HOST, int(settings.EMAIL_PORT))
    if _connection is not None and _connection[0] == wanted:
        return _connection[1], True
    _drop_connection()
    connection = get_connection()
    connection.open()
    _connection = (wanted, connection)
    return connection, False


def _drop_connection() -> None:
    global _connection
    if _connection is not None:
        connection, _connection = _connection[1], None
        with contextlib.suppress(Exception):  # broken already: the send's own error matters
            connection.close()


def _send(message: EmailMultiAlternatives) -> None:
    connection, reused = _mail_connection()
    try:
        message.connection = connection
        message.send()
    except smtplib.SMTPServerDisconnected:
        _drop_connection()
        if not reused:
            raise
        connection, _ = _mail_connection()
        message.connection = connection
        try:
            message.send()
        except BaseException:
            _drop_connection()
            raise
    except BaseException:
        _drop_connection()
        raise


def delivery_send(*, delivery_id: int, final_attempt: bool) -> SendOutcome | None:
    """Render and send a claimed delivery; record the Message-ID or the error.

    Returns None if the delivery was not ours to send (sent already, or taken by another
    worker). A transient failure releases the claim and raises ``TransientDeliveryError`` for
    the task to retry, unless this is the final attempt: then it is recorded as failed.
    """
    now = timezone.now()
    if not delivery_claim(delivery_id=delivery_id, now=now):
        return None
    delivery = DigestDelivery.objects.select_related(
        "subscription__organization", "subscription__user"
    ).get(pk=delivery_id)
    subscription = delivery.subscription
    if not _still_a_member(subscription):
        # Someone who left the organization must not receive its figures any more.
        DigestDelivery.objects.filter(pk=delivery_id).update(
            status=DeliveryStatus.FAILED,
            error="The recipient is no longer a member.",
            updated_at=timezone.now(),
        )
        subscription_unsubscribe(subscription_id=subscription.pk)
        return SendOutcome(status=DeliveryStatus.FAILED, error="not a member")
    if not subscription.is_active:
        # Unsubscribed after this digest was claimed (say while the mail server was down and
        # it waited for a retry or the sweep): the one-click link means no more mail.
        DigestDelivery.objects.filter(pk=delivery_id).update(
            status=DeliveryStatus.FAILED,
            error=UNSUBSCRIBED,
            retryable=False,
            updated_at=timezone.now(),
        )
        return SendOutcome(status=DeliveryStatus.FAILED, error="unsubscribed")
    stopwatch = Stopwatch()
    email = digest_render(
        subscription=delivery.subscription,
        period_start=delivery.period_start,
        period_end=delivery.period_end,
        stopwatch=stopwatch,
    )
    message = digest_message(email, recipient=delivery.recipient)
    message_id = message.extra_headers["Message-ID"]
    attempts = delivery.attempts + 1
    try:
        with stopwatch.measure("smtp"):
            _send(message)
    except (OSError, smtplib.SMTPException) as exc:
        error = f"{type(exc).__name__}: {exc}"
        permanent = is_permanent(exc)
        if permanent or final_attempt:
            DigestDelivery.objects.filter(pk=delivery_id).update(
                status=DeliveryStatus.FAILED,
                attempts=attempts,
                error=error,
                timings_ms=stopwatch.ms,
                # Out of retries but not refused: the sweep tries again later.
                retryable=not permanent,
                updated_at=timezone.now(),
            )
            logger.warning("digest delivery %s failed for good: %s", delivery_id, error)
            return SendOutcome(status=DeliveryStatus.FAILED, error=error)
        DigestDelivery.objects.filter(pk=delivery_id).update(
            status=DeliveryStatus.PENDING,
            attempts=attempts,
            error=error,
            claimed_at=None,
            updated_at=timezone.now(),
        )
        logger.info("digest delivery %s: mail server failed (%s); retrying", delivery_id, error)
        raise TransientDeliveryError(error) from exc
    DigestDelivery.objects.filter(pk=delivery_id).update(
        status=DeliveryStatus.SENT,
        attempts=attempts,
        sent_at=timezone.now(),
        message_id=message_id,
        error="",
        timings_ms=stopwatch.ms,
        updated_at=timezone.now(),
    )
    return SendOutcome(status=DeliveryStatus.SENT, message_id=message_id)


def _unsent(now: dt.datetime) -> Q:
    """Deliveries no task will send: pending with no task (idle), "sending" past the lease
    (the worker died), or failed only because the mail server stayed down. Sent ones and
    permanent failures never match."""
    return (
        Q(status=DeliveryStatus.PENDING, updated_at__lt=now - SWEEP_IDLE)
        | Q(status=DeliveryStatus.SENDING, claimed_at__lt=now - DELIVERY_LEASE)
        | Q(status=DeliveryStatus.FAILED, retryable=True)
    )


def deliveries_sweep(*, now: dt.datetime) -> list[int]:
    """Queue again every delivery due within ``SWEEP_WINDOW`` that no task will send; returns
    their ids. Older ones still unsent are recorded as failed for good.

    Each is taken back to pending by a conditional UPDATE, so two sweeps at once queue it
    once; and sending claims it conditionally too, so a digest is never sent twice.
    """
    requeued = deliveries_take_back(
        DigestDelivery,
        unsent=_unsent(now),
        recent=Q(scheduled_for__gte=now - SWEEP_WINDOW),
        now=now,
        failed=DeliveryStatus.FAILED,
        pending=DeliveryStatus.PENDING,
        gave_up=GAVE_UP,
        reset={"claimed_at": None},
    )
    if requeued:
        from apps.digests.tasks import send_digest

        def queue() -> None:
            for delivery_id in requeued:
                send_digest.delay(delivery_id)

        transaction.on_commit(queue)
    return requeued


def digest_send_latest(*, subscription: DigestSubscription, now: dt.datetime) -> int | None:
    """Queue the digest of the latest period that has ended (the demo's "show me one now").

    Recorded like a scheduled one, so it too goes out once per period: returns the
    delivery's id, or None when that period's digest exists already. The schedule itself
    (``next_send_at``) is left alone.
    """
    plan = subscription_schedule(
        subscription, selectors.holiday_dates(subscription.organization_id)
    )
    occurrence = schedule.latest_due(plan, since=now - dt.timedelta(days=62), now=now)
    if occurrence is None:
        return None
    with transaction.atomic():
        delivery, created = DigestDelivery.objects.get_or_create(
            subscription=subscription,
            period_start=occurrence.period_start,
            defaults={
                "organization_id": subscription.organization_id,
                "period_end": occurrence.period_end,
                "scheduled_for": now,
                "recipient": subscription.user.email,
            },
        )
        if not created:
            return None
        from apps.digests.tasks import send_digest

        transaction.on_commit(lambda: send_digest.delay(delivery.pk))
    return delivery.pk


def subscription_create_default(*, organization: Organization, user: User) -> DigestSubscription:
    """The default digest: weekly, Monday 09:00 in the organization's timezone, everything."""
    return subscription_save(subscription=DigestSubscription(organization=organization, user=user))
