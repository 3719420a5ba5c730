"""Who hears of an alert, and how it is sent: e-mail (text + HTML) and the signed webhook.

Sending is split from deciding: ``deliveries_plan`` writes one ``AlertDelivery`` row per
address (unique per event, channel and address, so planning twice adds nothing), and the
``email`` queue's tasks send each row once, retrying transient failures.

The webhook body is JSON; its signature is HMAC-SHA256 over ``"<timestamp>.<body>"`` with the
organization's secret, sent as ``X-GPU-Ledger-Signature: t=<timestamp>,v1=<hex digest>``. A
receiver recomputes the digest and compares in constant time; the timestamp lets it refuse
replays of old messages.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import EmailMultiAlternatives
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import translation

from apps.accounts.models import Membership
from apps.accounts.roles import Role
from apps.alerts.models import (
    AlertDelivery,
    AlertEvent,
    AlertKind,
    AlertRecipient,
    AlertSettings,
    Channel,
)
from apps.alerts.wording import kind_label, localized_wording, severity_label
from apps.core.crypto import decrypt_str
from apps.core.outbound import OutboundRefused, guarded_urlopen, outbound_check

#: Who is told when an organization has named nobody.
DEFAULT_ROLES = (Role.OWNER, Role.ADMIN)
SIGNATURE_HEADER = "X-GPU-Ledger-Signature"
WEBHOOK_TIMEOUT_S = 10


def recipient_languages(event: AlertEvent) -> dict[str, str]:
    """The addresses of the people ``event`` concerns, each with its reader's language.

    A recipient row of a project hears only of that project's alerts; one without a project
    hears of all. The summary of an imported history concerns every project of the alerts it
    reports. Only current, active members with a confirmed address are written to.
    """
    members = Membership.objects.for_organization(event.organization).filter(
        user__is_active=True, user__email_verification_pending=False
    )
    routes = list(AlertRecipient.objects.for_organization(event.organization))
    if not routes:
        chosen = members.filter(role__in=DEFAULT_ROLES)
    else:
        projects = {None, event.project_id}
        if event.kind == AlertKind.HISTORY:
            projects |= set(event.summarized.values_list("project_id", flat=True))
        applies = [r for r in routes if r.project_id in projects]
        roles = {r.role for r in applies if r.role}
        user_ids = {r.user_id for r in applies if r.user_id}
        chosen = members.filter(Q(role__in=roles) | Q(user_id__in=user_ids))
    return dict(sorted(chosen.order_by().values_list("user__email", "user__language")))


def recipient_emails(event: AlertEvent) -> list[str]:
    """The addresses of the people ``event`` concerns, sorted and without repeats."""
    return list(recipient_languages(event))


def deliveries_plan(event: AlertEvent) -> list[AlertDelivery]:
    """The event's deliveries (created once): one per recipient, and the webhook if enabled.

    Each e-mail delivery records the language it is written in (its reader's, when planned);
    the webhook's JSON carries the stored English wording and the figures, for machines.
    """
    planned = [
        AlertDelivery(event=event, channel=Channel.EMAIL, address=address, language=language)
        for address, language in recipient_languages(event).items()
    ]
    webhook = (
        AlertSettings.objects.filter(organization_id=event.organization_id, webhook_enabled=True)
        .exclude(webhook_url="")
        .first()
    )
    if webhook is not None:
        planned.append(
            AlertDelivery(
                event=event, channel=Channel.WEBHOOK, address=webhook.webhook_url, language="en"
            )
        )
    AlertDelivery.objects.bulk_create(planned, ignore_conflicts=True)
    return list(AlertDelivery.objects.filter(event=event, status="pending"))


# --- e-mail -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RenderedAlert:
    subject: str
    text: str
    html: str


def alert_link(event: AlertEvent) -> str:
    """The page that shows what the alert is about, to anyone it goes to: the instance's, else
    the project's, else the Overview (budgets). The alert history itself is on the alerts
    settings tab, which only owners and admins see, and recipients may be any role."""
    if event.instance_id is not None:
        return f"{settings.PUBLIC_URL}/instances/{event.instance_id}"
    if event.project is not None:
        return f"{settings.PUBLIC_URL}/projects/{event.project.slug}"
    return f"{settings.PUBLIC_URL}/"


def alert_email_render(event: AlertEvent, language: str = "en") -> RenderedAlert:
    """The alert e-mail from templates/alerts/email/ (subject, text part, HTML part).

    Written in ``language`` (``User.language``: ``en`` or ``zh-hans``) with Django's
    translation machinery and the catalog in apps/alerts/locale; the evidence is printed as
    stored (keys and figures), so it reads the same in every language.
    """
    with translation.override(language):
        title, message = localized_wording(event)
        context = {
            "event": event,
            "language": translation.get_language(),
            "title": title,
            "message": message,
            "kind": kind_label(event.kind),
            "severity": severity_label(event.severity),
            "organization_name": event.organization.name,
            "evidence": sorted((event.evidence or {}).items()),
            "link": alert_link(event),
        }
        subject = render_to_string("alerts/email/alert_subject.txt", context)
        text = render_to_string("alerts/email/alert_body.txt", context)
        html = render_to_string("alerts/email/alert_body.html", context)
    return RenderedAlert(
        subject=" ".join(subject.strip().splitlines()), text=text.rstrip("\n"), html=html
    )


def alert_email_send(delivery: AlertDelivery) -> str:
    """Send the e-mail of ``delivery`` through Django's e-mail backend; returns its Message-ID."""
    rendered = alert_email_render(delivery.event, delivery.language)
    message = EmailMultiAlternatives(
        subject=rendered.subject, body=rendered.text, to=[delivery.address]
    )
    message.attach_alternative(rendered.html, "text/html")
    message.extra_headers["X-GPU-Ledger-Alert"] = f"{delivery.event.kind}:{delivery.event_id}"
    email_message = message.message()
    message_id = str(email_message["Message-ID"])
    message.extra_headers["Message-ID"] = message_id
    message.send(fail_silently=False)
    return message_id


# --- webhook ------------------------------------------------------------------------------


def webhook_payload(event: AlertEvent) -> dict[str, Any]:
    return {
        "id": event.pk,
        "kind": event.kind,
        "severity": event.severity,
        "title": event.title,
        "message": event.message,
        "organization": event.organization.slug,
        "project": event.project.name if event.project is not None else None,
        "instance": event.instance.provider_id if event.instance is not None else None,
        "evidence": event.evidence,
        "started_at": event.started_at.isoformat(),
        "resolved_at": event.resolved_at.isoformat() if event.resolved_at else None,
        "recovery_of": event.recovery_of_id,
    }


def webhook_signature(secret: str, timestamp: int, body: bytes) -> str:
    """``t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>." + body>``."""
    digest = hmac.new(
        secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256
    ).hexdigest()
    return f"t={timestamp},v1={digest}"


def webhook_url_check(url: str) -> None:
    """Refuse a webhook URL that outbound requests may not reach (apps.core.outbound): the
    server would POST there for the tenant. A 400 on ``webhook_url``."""
    parts = urllib.parse.urlsplit(url)
    if not url or not parts.hostname:
        return  # empty: no webhook; malformed: the field's validator says so
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        outbound_check(parts.hostname, port)
    except (OutboundRefused, ValueError) as exc:
        raise ValidationError({"webhook_url": [str(exc)]}) from exc


class WebhookRejected(Exception):
    """The receiver answered 4xx (other than 408/429): sending again would not help."""


def webhook_send(delivery: AlertDelivery) -> int:
    """POST the event as signed JSON; returns the HTTP status.

    Connection errors, timeouts, 5xx, 408 and 429 raise ``OSError`` (``URLError``) for a retry;
    other 4xx raise ``WebhookRejected``.
    """
    webhook = AlertSettings.objects.get(organization_id=delivery.event.organization_id)
    body = json.dumps(webhook_payload(delivery.event), sort_keys=True).encode()
    timestamp = int(time.time())
    request = urllib.request.Request(
        delivery.address,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": "GPU-Ledger-Alerts/1",
            SIGNATURE_HEADER: webhook_signature(
                decrypt_str(webhook.webhook_secret_encrypted), timestamp, body
            ),
        },
    )
    try:
        # Only to public addresses (or hosts the operator allows), redirects included.
        with guarded_urlopen(request, timeout=WEBHOOK_TIMEOUT_S) as response:
            return int(response.status)
    except OutboundRefused as exc:
        raise WebhookRejected(str(exc)) from exc
    except urllib.error.HTTPError as exc:
        if exc.code >= 500 or exc.code in (408, 429):
            raise
        raise WebhookRejected(f"HTTP {exc.code} {exc.reason}") from exc
