"""The words of an alert (title and message) in the active language, from its figures.

One source for both: ``alert_event_raise`` stores the English wording on the event (the
history, the API and the webhook show it), and the e-mail renders the same sentences again in
each recipient's language (``translation.override``), from the event's evidence and the
objects it names. The figures are formatted the same in every language, so a reader of
either can check them against the evidence printed below the message.

When something the sentence names is gone (a deleted budget or rule, an instance removed),
the stored English wording is used: an alert never goes out with a hole in it.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.alerts.models import AlertEvent, AlertKind, BudgetBasis, Comparison, Severity
from apps.cloud.models import Instance
from apps.costs import forecast as costs_forecast
from apps.metrics.constants import Metric

SPEND = "spend"  # the anomaly metric of daily spend (apps.alerts.evaluation.anomalies)
GPU_HOURS_UNIT = "GPU-hours"


class WordingUnavailable(Exception):
    """An object the sentence names no longer exists."""


def forecast_method(stored: str) -> str:
    """How a budget's forecast is made, in the active language.

    The sentence is the costs app's (``apps.costs.forecast.METHOD``, English); it is said again
    here with its run-rate days. Any other sentence (a method costs changed since) is shown as
    it is rather than as a translation of words it no longer says."""
    if stored != costs_forecast.METHOD:
        return stored
    return _(
        "Bill month (Beijing time), amortized: cost of the month's complete days + the "
        "average daily cost of the last %(days)s complete days without purchases x the days "
        "left, today included + the purchases and refunds already billed for those days."
    ) % {"days": costs_forecast.RUN_RATE_DAYS}


def rule_name(name: str) -> str:
    """A threshold rule's name in the active language.

    The rules every organization starts with (``services.DEFAULT_RULES``) are named by us, in
    English, so their names are ours to translate; a name a person gave or changed is theirs and
    is shown as they wrote it."""
    return {
        "GPU underused": _("GPU underused"),
        "GPU memory nearly full": _("GPU memory nearly full"),
        "GPU running hot": _("GPU running hot"),
    }.get(name, name)


def kind_label(kind: str) -> str:
    return {
        AlertKind.BUDGET: _("Budget threshold"),
        AlertKind.ANOMALY: _("Cost anomaly"),
        AlertKind.THRESHOLD: _("Metric threshold"),
        AlertKind.RECOVERY: _("Metric threshold cleared"),
        AlertKind.HISTORY: _("Imported history"),
        AlertKind.AUTOMATION: _("Automation"),
    }[AlertKind(kind)]


def severity_label(severity: str) -> str:
    return {
        Severity.INFO: _("Info"),
        Severity.WARNING: _("Warning"),
        Severity.CRITICAL: _("Critical"),
    }[Severity(severity)]


def metric_label(metric: str) -> str:
    return {
        Metric.GPU_UTIL_PCT: _("GPU utilization (%)"),
        Metric.GPU_MEM_USED_PCT: _("GPU memory used (%)"),
        Metric.GPU_MEM_USED_MB: _("GPU memory used (MB per card)"),
        Metric.GPU_TEMP_C: _("GPU temperature (°C)"),
        Metric.GPU_POWER_W: _("GPU power draw (W)"),
        Metric.CPU_UTIL_PCT: _("CPU utilization (%)"),
        Metric.MEM_UTIL_PCT: _("Host memory utilization (%)"),
    }[Metric(metric)]


def rule_description(*, metric: str, comparison: str, threshold: float, minutes: int) -> str:
    """``GPU utilization (%) below 30 for 10 min``."""
    values = {"metric": metric_label(metric), "threshold": f"{threshold:g}", "minutes": minutes}
    if comparison == Comparison.BELOW:
        return _("%(metric)s below %(threshold)s for %(minutes)s min") % values
    return _("%(metric)s above %(threshold)s for %(minutes)s min") % values


def instance_name(instance: Instance) -> str:
    return f"{instance.name} ({instance.provider_id})" if instance.name else instance.provider_id


def event_wording(event: AlertEvent) -> tuple[str, str]:
    """(title, message) of ``event`` in the active language.

    Raises ``WordingUnavailable`` when an object it names is gone; ``localized_wording`` then
    falls back to the stored text.
    """
    if event.kind == AlertKind.BUDGET:
        return _budget(event)
    if event.kind == AlertKind.ANOMALY:
        return _anomaly(event)
    if event.kind == AlertKind.THRESHOLD:
        return _threshold(event)
    if event.kind == AlertKind.HISTORY:
        return _history(event)
    if event.kind == AlertKind.AUTOMATION:
        return _automation(event)
    return _recovery(event)


def localized_wording(event: AlertEvent) -> tuple[str, str]:
    """``event_wording``, or the stored (English) title and message if it cannot be built.

    An event recorded with its own words (not by an evaluator) lacks the figures the
    sentences need: that shows as a missing key or a malformed value, and its words are used.
    """
    try:
        return event_wording(event)
    except (WordingUnavailable, KeyError, IndexError, TypeError, ValueError):
        return event.title, event.message


def _money(value: object) -> str:
    return f"{Decimal(str(value)):,}"


def _budget(event: AlertEvent) -> tuple[str, str]:
    if event.budget is None or (event.project_id is not None and event.project is None):
        raise WordingUnavailable("budget")
    figures = event.evidence
    currency = figures["currency"]
    values = {
        "name": event.budget.name,
        "month": figures["month"],
        "threshold": max(figures["thresholds_pct"]),
        "spent": f"{_money(figures['spent'])} {currency}",
        "budget": f"{_money(figures['budget_amount'])} {currency}",
        "percent": figures["percent_used"],
        "daily": f"{_money(figures['daily_average'])} {currency}",
        "forecast": f"{_money(figures['forecast'])} {currency}",
        "forecast_pct": figures["forecast_pct"],
        "days_left": figures["days_left"],
        "project": event.project.name if event.project is not None else "",
    }
    if figures["basis"] == BudgetBasis.ACTUAL:
        title = _("Budget %(name)s: %(threshold)s %% spent in %(month)s") % values
        if event.project is not None:
            message = _(
                "Project %(project)s has spent %(spent)s of its %(budget)s budget for "
                "%(month)s (%(percent)s %%)."
            )
        else:
            message = _(
                "The organization has spent %(spent)s of its %(budget)s budget for "
                "%(month)s (%(percent)s %%)."
            )
        return title, message % values
    title = _("Budget %(name)s: forecast to reach %(threshold)s %% in %(month)s") % values
    if event.project is not None:
        message = _(
            "At the last 7 days' average of %(daily)s a day, project %(project)s will spend "
            "%(forecast)s in %(month)s: %(forecast_pct)s %% of its %(budget)s budget "
            "(%(spent)s spent so far, %(days_left)s days left)."
        )
    else:
        message = _(
            "At the last 7 days' average of %(daily)s a day, the organization will spend "
            "%(forecast)s in %(month)s: %(forecast_pct)s %% of its %(budget)s budget "
            "(%(spent)s spent so far, %(days_left)s days left)."
        )
    return title, message % values


def _anomaly(event: AlertEvent) -> tuple[str, str]:
    figures = event.evidence
    # dedup_key: "anomaly:<metric>:<subject>:<id>:<day>"; subject is "project" or "instance".
    subject = (event.dedup_key or "").split(":")[2]
    unit = figures["unit"]
    shown_unit = _("GPU-hours") if unit == GPU_HOURS_UNIT else unit
    if subject == "project":
        if event.project is None:
            raise WordingUnavailable("project")
        subject_name = _("project %(name)s") % {"name": event.project.name}
    else:
        if event.instance is None:
            raise WordingUnavailable("instance")
        subject_name = _("instance %(name)s") % {"name": instance_name(event.instance)}
    values = {
        "subject": subject_name,
        "day": figures["day"],
        "value": f"{figures['value']:,.2f} {shown_unit}",
        "median": f"{figures['baseline_median']:,.2f} {shown_unit}",
        "line": f"{figures['alert_line']:,.2f}",
        "mad": f"{figures['baseline_mad']:,.2f}",
    }
    if "spread" in figures:
        # Raised with the MAD's floor (anomalies' module docstring): the spread is named.
        values |= {
            "days": figures["baseline_days_with_data"],
            "spread": f"{figures['spread']:,.2f}",
        }
        if figures["metric"] == SPEND:
            title = _("Spend of %(subject)s far above normal on %(day)s") % values
            message = _(
                "Spend of %(subject)s on %(day)s was %(value)s, against a median of "
                "%(median)s over the %(days)s days with data before it (alert line %(line)s: "
                "median + k x 1.4826 x spread %(spread)s, the MAD %(mad)s or its floor)."
            )
        else:
            title = _("Idle GPU-hours of %(subject)s far above normal on %(day)s") % values
            message = _(
                "Idle GPU-hours of %(subject)s on %(day)s was %(value)s, against a median of "
                "%(median)s over the %(days)s days with data before it (alert line %(line)s: "
                "median + k x 1.4826 x spread %(spread)s, the MAD %(mad)s or its floor)."
            )
    elif figures["metric"] == SPEND:
        title = _("Spend of %(subject)s far above normal on %(day)s") % values
        message = _(
            "Spend of %(subject)s on %(day)s was %(value)s, against a 30-day median of "
            "%(median)s (alert line %(line)s: median + k x 1.4826 x MAD %(mad)s)."
        )
    else:  # an alert raised before the floor existed
        title = _("Idle GPU-hours of %(subject)s far above normal on %(day)s") % values
        message = _(
            "Idle GPU-hours of %(subject)s on %(day)s was %(value)s, against a 30-day median "
            "of %(median)s (alert line %(line)s: median + k x 1.4826 x MAD %(mad)s)."
        )
    message = message % values
    if subject == "project" and event.instance is not None:
        cause = _("Most of the rise is instance %(name)s.")
        message = f"{message} {cause % {'name': instance_name(event.instance)}}"
    return title, message


def _rule_parts(event: AlertEvent) -> dict[str, str]:
    if event.rule is None or event.instance is None:
        raise WordingUnavailable("rule or instance")
    rule = event.rule
    return {
        "rule": rule_name(rule.name),
        "instance": instance_name(event.instance),
        "condition": rule_description(
            metric=rule.metric,
            comparison=rule.comparison,
            threshold=rule.threshold,
            minutes=rule.duration_minutes,
        ),
    }


def _threshold(event: AlertEvent) -> tuple[str, str]:
    figures = event.evidence
    values = {
        **_rule_parts(event),
        "observed": figures["observed_minutes"],
        "min": figures["min"],
        "max": figures["max"],
        "avg": figures["avg"],
    }
    title = _("%(rule)s: %(instance)s") % values
    message = _(
        "Instance %(instance)s: %(condition)s (last %(observed)s observed minutes between "
        "%(min)s and %(max)s, average %(avg)s)."
    )
    return title, message % values


def _utc(moment: dt.datetime) -> str:
    return f"{moment.astimezone(dt.UTC):%Y-%m-%d %H:%M}"


def _recovery(event: AlertEvent) -> tuple[str, str]:
    if event.recovery_of is None:
        raise WordingUnavailable("recovered alert")
    values = {
        **_rule_parts(event),
        "start": _utc(event.recovery_of.started_at),
        "end": _utc(event.started_at),
    }
    # A judged clearance carries the minutes it was judged on; a closed watch carries none.
    if "observed_minutes" in event.evidence:
        why = _("the condition cleared")
    else:
        why = _("it is no longer watched (instance stopped or rule disabled)")
    title = _("%(rule)s cleared: %(instance)s") % values
    message = _(
        "Instance %(instance)s is no longer %(condition)s: %(why)s. The alert lasted from "
        "%(start)s UTC to %(end)s UTC."
    ) % {**values, "why": why}
    return title, message


def _history(event: AlertEvent) -> tuple[str, str]:
    """The summary of an imported history (``apps.alerts.evaluation.history``)."""
    figures = event.evidence
    count = int(figures["alerts"])
    values: dict[str, object] = {
        "count": count,
        "last": figures["imported_until"][:10],
        "first": figures.get("imported_from_day"),
        "days": figures.get("imported_days"),
        "anomalies": figures["anomalies"],
        "budgets": figures["budget_thresholds"],
        "thresholds": figures["metric_thresholds"],
    }
    title = (
        ngettext(
            "What the imported history shows: %(count)s alert",
            "What the imported history shows: %(count)s alerts",
            count,
        )
        % values
    )
    if values["first"] is not None:
        lead = _(
            "The history imported from your cloud accounts (%(days)s days, %(first)s to "
            "%(last)s) would have raised these alerts."
        )
    else:
        lead = _(
            "The history imported from your cloud accounts (to %(last)s) would have raised these alerts."
        )
    counts = _(
        "Cost anomalies: %(anomalies)s. Budget thresholds crossed: %(budgets)s. Metric "
        "thresholds holding at the import: %(thresholds)s. They are in the alert history and "
        "were not sent one by one."
    )
    parts = [lead % values, counts % values]
    if "largest_anomaly_id" in figures:
        largest = AlertEvent.objects.filter(
            pk=figures["largest_anomaly_id"], organization_id=event.organization_id
        ).first()
        name = localized_wording(largest)[0] if largest is not None else figures["largest_anomaly"]
        unit = figures.get("largest_anomaly_unit") or ""
        shown_unit = _("GPU-hours") if unit == GPU_HOURS_UNIT else unit
        parts.append(
            _("The largest anomaly: %(name)s (%(value)s against a median of %(median)s).")
            % {
                "name": name,
                "value": f"{float(figures['largest_anomaly_value']):,.2f} {shown_unit}",
                "median": f"{float(figures['largest_anomaly_median']):,.2f} {shown_unit}",
            }
        )
    return title, " ".join(parts)


def _automation(event: AlertEvent) -> tuple[str, str]:
    """Automation (``apps.automation``) carrying out a recommendation: a stop planned after a
    grace, a stop skipped because the instance was busy, a start or stop the cloud refused."""
    if event.instance is None:
        raise WordingUnavailable("instance")
    figures = event.evidence
    values = {**figures, "instance": instance_name(event.instance)}
    what = figures["event"]
    if what == "stop_planned":
        title = _("Automation will stop %(instance)s") % values
        message = _(
            "The recommendation to stop idle instance %(instance)s was accepted and automated: "
            "GPU Ledger stops it (STOP_CHARGING, disks keep billing) at %(at)s, %(grace_hours)s "
            "hours from now, unless it is busy then or tagged gpu-ledger:automation=off."
        )
    elif what == "skipped_busy":
        title = _("Automation did not stop %(instance)s: it was busy") % values
        message = _(
            "Instance %(instance)s was due to stop at %(due_at)s, but its GPU was busy over "
            "the last 15 minutes (utilization %(gpu_util_pct)s %%, memory used "
            "%(gpu_mem_used_pct)s %%; threshold %(threshold_pct)s %%). It keeps running."
        )
    elif what == "start_failed":
        title = _("Automation could not start %(instance)s") % values
        message = _(
            "Instance %(instance)s was due to start at %(due_at)s and the cloud refused "
            "(%(reason)s). GPU Ledger retries; check the instance."
        )
    elif what == "stop_failed":
        title = _("Automation could not stop %(instance)s") % values
        message = _(
            "Instance %(instance)s was due to stop at %(due_at)s and the cloud refused "
            "(%(reason)s). It keeps running (and billing)."
        )
    elif what == "gave_up":
        title = _("Automation gave up on %(instance)s") % values
        message = _(
            "The %(action)s of instance %(instance)s due at %(due_at)s failed after the last "
            "retry. Check the instance now."
        )
    else:  # not_confirmed
        title = _("Automation could not confirm %(instance)s") % values
        message = _(
            "The %(action)s of instance %(instance)s due at %(due_at)s was sent, but the cloud "
            "did not report the new state in time. Check the instance."
        )
    return title, message % values
