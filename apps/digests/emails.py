"""The digest e-mail: subject, plain text and HTML from templates, charts as inline PNG parts.

The message is ``multipart/related`` holding a ``multipart/alternative`` (text, then HTML)
and the two PNGs, each with a Content-ID the HTML refers to as ``cid:...``: mail clients show
the charts without fetching anything. Written in the recipient's language (``User.language``)
with Django's translation machinery; the unsubscribe headers follow RFC 8058 (one-click).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import zoneinfo
from decimal import ROUND_HALF_UP, Decimal
from email.mime.image import MIMEImage
from email.utils import make_msgid
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _

from apps.digests import schedule
from apps.digests.content import DigestContent, Stopwatch, digest_content
from apps.digests.models import DigestSubscription, Frequency
from apps.digests.selectors import UNALLOCATED, Mover, RecommendationLine
from apps.digests.tokens import unsubscribe_url
from apps.recommendations.messages import render_json
from apps.recommendations.rules import KINDS

SPEND_CID = "spend-chart"
HEATMAP_CID = "utilization-heatmap"
PHASE_ORDER = ("training", "evaluation", "data_processing", "idle", "unknown")


@dataclasses.dataclass(frozen=True)
class DigestEmail:
    subject: str
    text: str
    html: str
    images: dict[str, bytes]  # Content-ID (without brackets) -> PNG
    headers: dict[str, str]
    period_start: dt.datetime
    period_end: dt.datetime


def money(amount: Decimal, currency: str) -> str:
    """An amount to the cent with thousands separators, as the digest prints every figure."""
    return f"{amount:,.2f} {currency}"


def hours(value: Decimal | str) -> str:
    """GPU-hours to one decimal with thousands separators ("1,234.5"), as the digest prints
    every duration: the number format of both its languages (CLDR's en and zh write "," and ".";
    Django's zh_Hans format, with no separator, is not what a Chinese reader sees elsewhere)."""
    return f"{Decimal(value).quantize(Decimal('0.1'), rounding=ROUND_HALF_UP):,.1f}"


def _change(current: Decimal, previous: Decimal) -> str:
    if previous == 0:
        return "—"
    pct = (current - previous) / previous * 100
    return f"{pct:+.1f}%"


def _recommendation_title(row: RecommendationLine) -> str:
    """The title the rules' words say, in the reader's language; for a row stored before
    rules said words, the rule's English title, or in another language the kind and the
    target (the kind labels are in the catalog)."""
    if row.words.get("title"):
        return render_json(row.words["title"], row.title)
    label = dict(KINDS).get(row.kind)
    translated = _(label) if label else None
    if translated is None or translated == label or not row.target_name:
        return row.title
    # Not a colon: the saving follows the title after one ("关停闲置实例 · train-a: 每月 ...").
    return f"{translated} · {row.target_name}"


def _phase_labels() -> dict[str, str]:
    return {
        "training": _("Training"),
        "evaluation": _("Evaluation"),
        "data_processing": _("Data processing"),
        "idle": _("Idle"),
        "unknown": _("Unknown"),
    }


def _period_label(start: dt.datetime, end: dt.datetime, tz: dt.tzinfo) -> str:
    first = start.astimezone(tz).date()
    last = (end.astimezone(tz) - dt.timedelta(microseconds=1)).date()
    return first.isoformat() if first == last else f"{first.isoformat()} – {last.isoformat()}"


def _mover_name(mover: Mover) -> str:
    # The figures are computed once for every reader (and cached); the row of spend no project
    # claims is named here, in the reader's language.
    return _("Unallocated") if mover.name == UNALLOCATED else mover.name


def _movers(movers: list[Mover], currency: str) -> list[dict[str, str]]:
    return [
        {
            "name": _mover_name(mover),
            "current": money(mover.current, currency),
            "previous": money(mover.previous, currency),
            "change": f"{'+' if mover.change > 0 else ''}{money(mover.change, currency)}",
            "change_pct": _change(mover.current, mover.previous),
        }
        for mover in movers
    ]


def digest_context(
    *, subscription: DigestSubscription, content: DigestContent, tz_name: str
) -> dict[str, Any]:
    """What the templates show; every amount formatted by ``money`` from the figures."""
    figures = content.figures
    tz = zoneinfo.ZoneInfo(tz_name)
    currency = figures.currency
    current, *previous = figures.periods
    phases = figures.phases
    labels = _phase_labels()
    base = settings.PUBLIC_URL
    frequency_names = {
        Frequency.DAILY: _("Daily"),
        Frequency.WEEKLY: _("Weekly"),
        Frequency.MONTHLY: _("Monthly"),
    }
    return {
        "organization_name": figures.organization_name,
        "frequency": frequency_names[Frequency(subscription.frequency)],
        "scope": ", ".join(figures.project_names) if figures.project_names else None,
        "timezone": tz_name,
        "period_label": _period_label(current.start, current.end, tz),
        "currency": currency,
        "spend": money(current.cost, currency),
        "spend_rows": [
            {
                "label": _period_label(period.start, period.end, tz),
                "cost": money(period.cost, currency),
                "change": _change(current.cost, period.cost),
                "current": index == 0,
            }
            for index, period in enumerate(figures.periods)
        ],
        "change_vs_previous": _change(current.cost, previous[0].cost) if previous else "—",
        "project_movers": _movers(figures.project_movers, currency),
        "instance_movers": _movers(figures.instance_movers, currency),
        "gpu_hours": hours(phases["gpu_hours"]),
        "gpu_cost": money(Decimal(phases["cost"]), currency),
        "wasted_cost": money(Decimal(phases["wasted_cost"]), currency),
        "idle_cost": money(Decimal(phases["idle_cost"]), currency),
        "data_bound_cost": money(Decimal(phases["data_bound_cost"]), currency),
        "phases": [
            {
                "label": labels[key],
                "gpu_hours": hours(phases["phases"][key]["gpu_hours"]),
                "cost": money(Decimal(phases["phases"][key]["cost"]), currency),
                "waste": key in ("idle", "data_processing"),
            }
            for key in PHASE_ORDER
            if key in phases["phases"]
        ],
        "recommendations": [
            {
                "title": _recommendation_title(row),
                "saving": money(row.monthly_saving, row.currency),
                # The detail page; the list takes no id parameter.
                "link": f"{base}/recommendations/{row.id}",
            }
            for row in figures.recommendations
        ],
        "budgets": [
            {
                "name": line.name,
                "project": line.project_name,
                "month": line.month,
                "amount": money(line.amount, line.currency),
                "spent": money(line.spent, line.currency),
                "forecast": money(line.forecast, line.currency),
                "percent_used": f"{line.percent_used}%",
                "forecast_pct": f"{line.forecast_pct}%",
                "over": line.over,
                "forecast_over": line.forecast_over,
            }
            for line in figures.budgets
        ],
        "failing_accounts": [
            {"name": row.name, "error": row.last_error} for row in figures.failing_accounts
        ],
        "spend_cid": SPEND_CID,
        "heatmap_cid": HEATMAP_CID,
        "dashboard_url": f"{base}/",
        # Digest subscriptions are kept on the Reports page (there is no settings tab for them).
        "settings_url": f"{base}/reports",
        "unsubscribe_url": unsubscribe_url(subscription.pk),
    }


def digest_periods(
    subscription: DigestSubscription, period_start: dt.datetime, period_end: dt.datetime
) -> list[tuple[dt.datetime, dt.datetime]]:
    """The digest's period and the two before it, in the subscriber's timezone."""
    before = schedule.previous_periods(period_start, period_end, subscription.effective_timezone, 2)
    return [(period_start, period_end), *before]


def digest_render(
    *,
    subscription: DigestSubscription,
    period_start: dt.datetime,
    period_end: dt.datetime,
    stopwatch: Stopwatch | None = None,
    use_cache: bool = True,
) -> DigestEmail:
    """The digest of ``subscription`` for ``[period_start, period_end)``, in its reader's language."""
    stopwatch = stopwatch or Stopwatch()
    tz_name = subscription.effective_timezone
    projects = [project.pk for project in subscription.projects.all()]
    content = digest_content(
        organization=subscription.organization,
        project_ids=projects or None,
        periods=digest_periods(subscription, period_start, period_end),
        tz_name=tz_name,
        stopwatch=stopwatch,
        use_cache=use_cache,
    )
    with stopwatch.measure("templates"), translation.override(subscription.user.language):
        context = digest_context(subscription=subscription, content=content, tz_name=tz_name)
        subject = render_to_string("digests/email/subject.txt", context)
        text = render_to_string("digests/email/digest.txt", context)
        html = render_to_string("digests/email/digest.html", context)
    return DigestEmail(
        subject=" ".join(subject.split()),
        text=text.strip() + "\n",
        html=html,
        images={SPEND_CID: content.spend_png, HEATMAP_CID: content.heatmap_png},
        headers={
            # RFC 8058: a POST to this URL unsubscribes, without a session or a confirmation.
            "List-Unsubscribe": f"<{context['unsubscribe_url']}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
        period_start=period_start,
        period_end=period_end,
    )


def digest_message(
    email: DigestEmail, *, recipient: str, message_id: str | None = None
) -> EmailMultiAlternatives:
    """The MIME message of a rendered digest, with its Message-ID (made here if not given)."""
    domain = settings.DEFAULT_FROM_EMAIL.rsplit("@", 1)[-1].strip(">") or "localhost"
    message = EmailMultiAlternatives(
        subject=email.subject,
        body=email.text,
        to=[recipient],
        headers={**email.headers, "Message-ID": message_id or make_msgid("digest", domain)},
    )
    message.attach_alternative(email.html, "text/html")
    # The images belong to the HTML: "related", not "mixed", so clients show them inline.
    message.mixed_subtype = "related"  # type: ignore[attr-defined]
    for cid, png in email.images.items():
        image = MIMEImage(png, "png")
        image.add_header("Content-ID", f"<{cid}>")
        image.add_header("Content-Disposition", "inline", filename=f"{cid}.png")
        message.attach(image)
    return message
