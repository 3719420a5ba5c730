"""Writes of the recommendations: the run that upserts findings, and people's decisions.

``recommendations_run`` evaluates the rules for one organization as of a moment and stores the
findings by fingerprint: figures are updated in place, one unresolved row per finding, a
finding that disappears resolves its row, one that returns reopens it; a dismissed row stays
dismissed while its finding persists and a snoozed one opens again after its date. Running it
twice on the same data changes nothing the second time. Every status change is an event.

An accepted row is never resolved by a run: its finding disappearing is what following the
advice looks like, and its realised saving is measured for as long as it stays accepted. The
run records that the finding is no longer seen (an event, and ``resolved_at`` as the moment;
the status stays accepted) and, should the finding come back, that it is seen again.
``accepted_at`` is set only while a row is accepted, so a row that leaves "accepted" (dismissed,
reopened, resolved and found again) never shows a realised saving.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone, translation

from apps.accounts.audit import actions as audit_actions
from apps.accounts.audit.services import audit_record, overrides_changes
from apps.accounts.models import Organization, User
from apps.recommendations import messages, rules
from apps.recommendations.evidence import (
    organization_evidence,
    organization_rule_settings,
    parse_reserved_prices,
)
from apps.recommendations.messages import events as reasons
from apps.recommendations.models import (
    Recommendation,
    RecommendationEvent,
    RecommendationSettings,
    Status,
)

# Fields a run rewrites in place; compared first so that an unchanged finding writes nothing.
_FIGURE_FIELDS = (
    "title",
    "words",
    "explanation",
    "monthly_saving",
    "monthly_paid_while_waiting",
    "gpu_hours_waiting_per_month",
    "upsize_reason",
    "monthly_extra_cost",
    "current_samples_per_currency_unit",
    "target_samples_per_currency_unit",
    "currency",
    "saving_formula",
    "price_source",
    "confidence",
    "evidence_days",
    "coverage_pct",
    "risk_level",
    "risk_reason",
    "evidence",
    "action",
    "project_id",
    "role",
)
_STORED_FIELDS = (
    *_FIGURE_FIELDS,
    "status",
    "status_reason",
    "snoozed_until",
    "resolved_at",
    "accepted_at",
    "last_seen_at",
)


@dataclasses.dataclass
class RunResult:
    findings: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    resolved: int = 0
    reopened: int = 0
    # Accepted rows whose finding disappeared in this run (they stay accepted).
    gone_accepted: int = 0


def fingerprint(finding: rules.Finding) -> str:
    """kind + target + parameters, hashed: stable across runs while the finding is the same."""
    text = json.dumps(
        [finding.kind, finding.target, finding.parameters], sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _english(text: rules.Text) -> str:
    # The stored columns hold English (search, webhooks); readers render ``words`` again.
    with translation.override("en"):
        return messages.render(text)


#: The keys of a finding's action and evidence that hold texts (a list of them, or one).
_ACTION_TEXTS = ("steps", "still_billed_when_stopped")
_EVIDENCE_TEXTS = ("when_stopped",)


def _words(finding: rules.Finding, formula: rules.Text | None) -> dict[str, Any]:
    """Every text of a finding as JSON (``Recommendation.words``), by where it is shown."""
    words: dict[str, Any] = {
        "title": messages.text_json(finding.title),
        "explanation": messages.text_json(finding.explanation),
        "risk": messages.text_json(finding.risk.reason),
    }
    if formula is not None:
        words["formula"] = messages.text_json(formula)
    for key in _ACTION_TEXTS:
        if key in finding.action:
            words[key] = [messages.text_json(text) for text in finding.action[key]]
    for key in _EVIDENCE_TEXTS:
        if key in finding.evidence:
            words[key] = messages.text_json(finding.evidence[key])
    return words


def _in_english(figures: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """``figures`` with the texts under ``keys`` in English (a list of texts, or one)."""
    out = dict(figures)
    for key in keys:
        value = out.get(key)
        if isinstance(value, rules.Text):
            out[key] = _english(value)
        elif isinstance(value, list | tuple):
            out[key] = [_english(text) for text in value]
    return out


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _figures(finding: rules.Finding, currency: str) -> dict[str, Any]:
    """The stored figures of a finding; ``currency`` (the organization's) stands in where the
    finding carries no money at all (a thermal alert)."""
    saving, waiting, upsize = finding.saving, finding.paid_while_waiting, finding.upsize
    # The formula and price source of the money the finding does carry: its saving, else
    # what it reports apart from savings.
    money = saving or waiting or upsize
    # JSON round trip: the stored JSON compares equal to a fresh one only in its stored form.
    return {
        "title": _english(finding.title)[:300],
        "words": _json(_words(finding, money.formula if money else None)),
        "explanation": _english(finding.explanation),
        "monthly_saving": saving.monthly_amount if saving else None,
        "monthly_paid_while_waiting": waiting.monthly_amount if waiting else None,
        "gpu_hours_waiting_per_month": waiting.gpu_hours_per_month if waiting else None,
        "upsize_reason": upsize.reason if upsize else "",
        "monthly_extra_cost": upsize.monthly_extra_cost if upsize else None,
        "current_samples_per_currency_unit": (
            upsize.current_samples_per_currency_unit if upsize else None
        ),
        "target_samples_per_currency_unit": (
            upsize.target_samples_per_currency_unit if upsize else None
        ),
        "currency": money.currency if money else currency,
        "saving_formula": _english(money.formula) if money else "",
        "price_source": money.price_source if money else "none",
        "confidence": finding.confidence.level,
        "evidence_days": finding.confidence.evidence_days,
        "coverage_pct": finding.confidence.coverage_pct,
        "risk_level": finding.risk.level,
        "risk_reason": _english(finding.risk.reason),
        "evidence": _json(_in_english(finding.evidence, _EVIDENCE_TEXTS)),
        "action": _json(_in_english(finding.action, _ACTION_TEXTS)),
        "project_id": finding.project_id,
        "role": finding.role,
    }


def recommendations_run(*, organization: Organization, as_of: dt.datetime) -> RunResult:
    """Evaluate every rule for the organization as of ``as_of`` and store the findings."""
    if as_of.tzinfo is None:
        raise ValueError("as_of: must be timezone-aware")
    thresholds, reserved = organization_rule_settings(organization)
    findings: dict[str, rules.Finding] = {}
    base = organization_evidence(
        organization=organization, as_of=as_of, thresholds=thresholds, reserved=reserved
    )
    # A rule with its own lookback reads the fleet's evidence over that span too (by default
    # every rule has the shared one: one read). Read after ``base``: the same instances.
    others = {
        days: {
            ev.instance_id: ev
            for ev in organization_evidence(
                organization=organization,
                as_of=as_of,
                thresholds=thresholds,
                reserved=reserved,
                days=days,
            )
        }
        for days in thresholds.lookbacks()
        if days != thresholds.lookback_days
    }
    per_instance: list[rules.Finding] = []
    for evidence in base:
        windows = {days: by_id[evidence.instance_id] for days, by_id in others.items()}
        per_instance += rules.evaluate(evidence, thresholds, windows)
    # Then a project's alike instances together (fewer at night), over the downshift lookback;
    # it may replace some of the instances' own findings, so it sees them all.
    downshift_days = thresholds.lookback_for("downshift")
    fleet = (
        base
        if downshift_days == thresholds.lookback_days
        else list(others[downshift_days].values())
    )
    grouped = rules.evaluate_groups(fleet, per_instance, thresholds)
    # Last, each instance's plan: the findings that can all be done, priced in sequence; the
    # others are its alternatives (totals add up plans only).
    planned = rules.plan_instances(base, rules.billable_only(base, grouped), thresholds)
    for finding in planned:
        findings[fingerprint(finding)] = finding
    result = RunResult(findings=len(findings))
    with transaction.atomic():
        # Serialize runs of one organization: two concurrent runs would both create a row.
        Organization.objects.select_for_update().filter(pk=organization.pk).first()
        rows = {
            row.fingerprint: row
            for row in Recommendation.objects.for_organization(organization)
            .exclude(status=Status.RESOLVED)
            .select_for_update()
        }
        returning = {
            row.fingerprint: row
            for row in Recommendation.objects.for_organization(organization)
            .filter(status=Status.RESOLVED, fingerprint__in=list(set(findings) - set(rows)))
            .order_by("fingerprint", "-resolved_at", "-id")
        }
        events: list[RecommendationEvent] = []
        created: list[Recommendation] = []
        changed_rows: list[Recommendation] = []
        for key, finding in findings.items():
            row = rows.get(key)
            reopened = False
            if row is None and key in returning:
                row = returning[key]
                events.append(_change(row, Status.OPEN, as_of, reasons.CAME_BACK, None))
                row.resolved_at = None
                row.accepted_at = None
                reopened = True
                result.reopened += 1
            elif row is not None and row.status == Status.ACCEPTED and row.resolved_at:
                # Accepted, its finding had gone and is back (the change undone, or not made).
                events.append(_note(row, as_of, reasons.SEEN_AGAIN))
                row.resolved_at = None
                reopened = True
            if row is None:
                created.append(
                    Recommendation(
                        organization=organization,
                        kind=finding.kind,
                        fingerprint=key,
                        instance_id=finding.instance_id,
                        parameters=json.loads(json.dumps(finding.parameters)),
                        first_seen_at=as_of,
                        last_seen_at=as_of,
                        status=Status.OPEN,
                        status_reason=reasons.FOUND,
                        **_figures(finding, organization.currency),
                    )
                )
                result.created += 1
                continue
            changed = _apply_figures(row, finding, organization.currency)
            if row.status == Status.SNOOZED and row.snoozed_until and row.snoozed_until <= as_of:
                events.append(_change(row, Status.OPEN, as_of, reasons.SNOOZE_ENDED, None))
                row.snoozed_until = None
                changed = True
            if row.last_seen_at < as_of:
                row.last_seen_at = as_of
                changed = True
            if changed or reopened:
                changed_rows.append(row)
                result.updated += 1
            else:
                result.unchanged += 1
        for key, row in rows.items():
            if key in findings:
                continue
            if row.status == Status.ACCEPTED:
                # The advice was followed: stay accepted (and measured); note it once.
                if row.resolved_at is None:
                    events.append(_note(row, as_of, reasons.NO_LONGER_SEEN))
                    row.resolved_at = as_of
                    changed_rows.append(row)
                    result.gone_accepted += 1
                continue
            events.append(_change(row, Status.RESOLVED, as_of, reasons.GONE, None))
            row.resolved_at = as_of
            row.snoozed_until = None
            row.accepted_at = None
            changed_rows.append(row)
            result.resolved += 1
        # Bulk writes: a first run over a large fleet creates a row and an event per finding.
        # Updates go first so that rows leaving "resolved" are counted by the partial unique
        # constraint before any new row could be inserted beside them.
        if changed_rows:
            stamp = timezone.now()
            for row in changed_rows:
                row.updated_at = stamp  # bulk_update does not apply auto_now
            Recommendation.objects.bulk_update(
                changed_rows, [*_STORED_FIELDS, "updated_at"], batch_size=500
            )
        _insert(created)
        events += [
            RecommendationEvent(
                recommendation=row, at=as_of, to_status=Status.OPEN, reason=reasons.FOUND
            )
            for row in created
        ]
        RecommendationEvent.objects.bulk_create(events, batch_size=1000)
    return result


def _insert(rows: list[Recommendation]) -> None:
    """``bulk_create``, through COPY on PostgreSQL: a first run over a large fleet inserts a
    row per finding, and Django's bulk insert there quotes every explanation and JSON document
    into array literals in Python (twice the time of COPY). The ids are drawn from the table's
    sequence first, so the rows can be referred to (their events) as after ``bulk_create``."""
    if connection.vendor != "postgresql" or len(rows) < 2:
        Recommendation.objects.bulk_create(rows, batch_size=500)
        return
    table = Recommendation._meta.db_table
    fields = Recommendation._meta.concrete_fields
    columns = ", ".join(connection.ops.quote_name(str(field.column)) for field in fields)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [table, len(rows)],
        )
        for row, (pk,) in zip(rows, cursor.fetchall(), strict=True):
            row.pk = pk
        with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(
                    [
                        field.get_db_prep_save(field.pre_save(row, True), connection)
                        for field in fields
                    ]
                )
    for row in rows:
        row._state.adding, row._state.db = False, connection.alias


def _apply_figures(row: Recommendation, finding: rules.Finding, currency: str) -> bool:
    changed = False
    for name, value in _figures(finding, currency).items():
        if getattr(row, name) != value:
            setattr(row, name, value)
            changed = True
    return changed


def _change(
    row: Recommendation, to: str, at: dt.datetime, reason: str, actor: User | None
) -> RecommendationEvent:
    """Change the status (the caller saves the row) and return the event recording it."""
    event = RecommendationEvent(
        recommendation=row, actor=actor, at=at, from_status=row.status, to_status=to, reason=reason
    )
    row.status = to
    row.status_reason = reason
    return event


def _note(row: Recommendation, at: dt.datetime, reason: str) -> RecommendationEvent:
    """An event that changes nothing of the status (from and to are the same), only says why."""
    return RecommendationEvent(
        recommendation=row, at=at, from_status=row.status, to_status=row.status, reason=reason
    )


# --- decisions ---------------------------------------------------------------------------------

_ACTIONABLE = {
    "accept": {Status.OPEN, Status.SNOOZED, Status.DISMISSED},
    "dismiss": {Status.OPEN, Status.SNOOZED, Status.ACCEPTED},
    "snooze": {Status.OPEN, Status.DISMISSED},
    "reopen": {Status.ACCEPTED, Status.DISMISSED, Status.SNOOZED},
}


def _decide(
    *,
    recommendation: Recommendation,
    action: str,
    to: str,
    actor: User | None,
    now: dt.datetime,
    reason: str,
) -> Recommendation:
    with transaction.atomic():
        row = Recommendation.objects.select_for_update().get(pk=recommendation.pk)
        if row.status not in _ACTIONABLE[action]:
            raise ValidationError(
                {"status": [f"A {row.status} recommendation cannot be {action}ed."]}
            )
        event = _change(row, to, now, reason, actor)
        # Set only while accepted: the realised saving is measured from it.
        row.accepted_at = now if to == Status.ACCEPTED else None
        # Only an accepted row carries a gone finding's moment; any decision starts afresh
        # (the next run resolves the row if its finding is still gone).
        row.resolved_at = None
        if to != Status.SNOOZED:
            row.snoozed_until = None
        row.save()
        event.save()
    return row


def recommendation_accept(
    *, recommendation: Recommendation, actor: User | None, now: dt.datetime, reason: str = ""
) -> Recommendation:
    """Accept: the change will be (or was) made; realised savings are tracked from now."""
    return _decide(
        recommendation=recommendation,
        action="accept",
        to=Status.ACCEPTED,
        actor=actor,
        now=now,
        reason=reason or reasons.ACCEPTED,
    )


def recommendation_dismiss(
    *, recommendation: Recommendation, actor: User | None, now: dt.datetime, reason: str
) -> Recommendation:
    """Dismiss with a reason; it stays dismissed while its finding persists."""
    if not reason.strip():
        raise ValidationError({"reason": ["Say why it is dismissed."]})
    return _decide(
        recommendation=recommendation,
        action="dismiss",
        to=Status.DISMISSED,
        actor=actor,
        now=now,
        reason=reason.strip(),
    )


def recommendation_snooze(
    *,
    recommendation: Recommendation,
    actor: User | None,
    now: dt.datetime,
    until: dt.datetime,
    reason: str = "",
) -> Recommendation:
    """Snooze until a future moment; the first run after it opens the recommendation again."""
    if until.tzinfo is None:
        raise ValidationError({"until": ["Give a time zone offset."]})
    if until <= now:
        raise ValidationError({"until": ["Must be in the future."]})
    row = _decide(
        recommendation=recommendation,
        action="snooze",
        to=Status.SNOOZED,
        actor=actor,
        now=now,
        reason=reason or reasons.snoozed_until(until),
    )
    Recommendation.objects.filter(pk=row.pk).update(snoozed_until=until)
    row.snoozed_until = until
    return row


def recommendation_reopen(
    *, recommendation: Recommendation, actor: User | None, now: dt.datetime, reason: str = ""
) -> Recommendation:
    return _decide(
        recommendation=recommendation,
        action="reopen",
        to=Status.OPEN,
        actor=actor,
        now=now,
        reason=reason or reasons.REOPENED,
    )


# --- settings ----------------------------------------------------------------------------------


def recommendation_settings_update(
    *,
    organization: Organization,
    thresholds: Mapping[str, Any] | None = None,
    reserved_prices: list[Any] | None = None,
) -> RecommendationSettings:
    """Merge threshold overrides (None drops one) and/or replace the RI price table.

    A refused threshold is a ValidationError on ``thresholds.<name>``, so a form can show the
    reason beside the field. A null for a name that is neither a threshold nor stored is
    refused too (a typo would otherwise "reset" nothing and say nothing); a stored override
    of a threshold that no longer exists can still be dropped.
    """
    known = {field.name for field in dataclasses.fields(rules.RuleThresholds)}
    with transaction.atomic():
        row, _ = RecommendationSettings.objects.select_for_update().get_or_create(
            organization=organization
        )
        thresholds_before = dict(row.thresholds or {})
        prices_before = row.reserved_prices
        if thresholds is not None:
            merged = dict(row.thresholds or {})
            for key, value in thresholds.items():
                if value is None and key not in merged and key not in known:
                    raise ValidationError({f"thresholds.{key}": ["unknown threshold"]})
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            try:
                rules.DEFAULT_RULE_THRESHOLDS.with_overrides(merged)
            except rules.ThresholdError as error:
                raise ValidationError({f"thresholds.{error.name}": [error.reason]}) from None
            row.thresholds = merged
        if reserved_prices is not None:
            try:
                parse_reserved_prices(reserved_prices, organization.currency)
            except ValueError as error:
                raise ValidationError({"reserved_prices": [str(error)]}) from None
            row.reserved_prices = reserved_prices
        row.save()
        details: dict[str, Any] = {}
        changed = overrides_changes(thresholds_before, row.thresholds or {})
        if changed:
            details["changes"] = changed
        if reserved_prices is not None and reserved_prices != prices_before:
            details["reserved_prices"] = {"old": prices_before, "new": reserved_prices}
        if details:
            audit_record(
                organization=organization,
                action=audit_actions.RECOMMENDATION_SETTINGS_UPDATED,
                target=row,
                target_label="",
                details=details,
            )
    return row
