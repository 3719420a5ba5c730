"""History imported by a backfill: which alerts are about it, and the one summary that reports it.

Connecting a cloud account imports its past: the first bills sync reads the bill months of the
last ``SYNC_BACKFILL_DAYS`` days, the first metrics sync as many days of metrics, and the
analysis then labels them. Judged one by one, that history raised an alert per anomalous day,
crossed budget threshold and metric condition holding at the moment of import: a new sign-up
was sent 25 e-mails in 20 minutes about weeks it had just imported. None of them is news.

**How the product knows what was imported.** Each account's ``SyncState`` of a kind records
``backfilled_until``: the moment its first successful run synced up to (``sync_release``).
Everything before that moment arrived with the backfill; later runs bring live data. For an
organization, the boundary of a kind (bills, metrics) is the latest ``backfilled_until`` of
its accounts; an account whose first sync of the kind has not succeeded yet (still importing;
not disabled and not failing) puts the boundary at the moment of the evaluation: whatever is
there so far was imported. An account without any sync state (none was ever planned) imports
nothing.

**Which alerts are about imported history.** An alert is, when what it reports was already
true of the data before the boundary:

- a cost anomaly of day D: the part of D before the boundary (bill lines that began before
  the bills' boundary; analysed hours that began before the metrics' one) is anomalous on its
  own, against the same baseline. A day that ended before the boundary is so whenever it is
  anomalous; a day after it never is; the day of the import is only when the imported hours
  were enough, so a spike later that day alerts as usual;
- a budget threshold: the month's spend (or forecast) as of the bills' boundary had crossed it;
- a metric threshold: the minutes judged end before the metrics' boundary; its recovery is
  about history too when the alert it closes was (nobody was told that one opened).

Such an alert is recorded as usual (the history lists it, marked ``imported``; an anomaly or
threshold is still raised once, so live evaluations do not raise it again) but is sent to
nobody. Once no account is importing any more, the first full evaluation (the one that follows
the analysis of the backfilled data, ``receivers.enqueue_after_analysis``) raises **one**
summary (kind ``history``) of the alerts not reported yet: how many of each kind, over which
days, and the largest anomaly. It goes to the owners and admins (or the recipients named for
the organization) and to the recipients of the projects it names, once each. Nothing imported
that raised nothing: no summary. Its ``dedup_key`` is the organization and the boundary, so
it is made once per import: a later straggler is attached to it without a second e-mail, and
only connecting another account (a new import, a later boundary) can bring another one.

The boundary is the organization's, not each account's: while a second account is being
imported, the alerts of the first are recorded too and come in that import's summary (a
delay of the import's length, never a loss); an account that fails to connect holds nothing
up (what a failing first sync left half-imported is judged as live).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction

from apps.accounts.models import Organization
from apps.alerts.models import AlertEvent, AlertKind, Severity
from apps.alerts.services import alert_event_raise
from apps.cloud.models import CloudAccount, SyncKind, SyncState
from apps.costs.spend import first_billed_at

_COUNTED = ("anomalies", "budget_thresholds", "metric_thresholds")
#: Accounts whose first sync will not succeed without a person's help hold nothing up.
_NOT_IMPORTING = (CloudAccount.Status.DISABLED, CloudAccount.Status.FAILING)


@dataclass(frozen=True)
class HistoryBoundary:
    """Up to when an organization's bills and metrics are imported history (None: none is)."""

    bills: dt.datetime | None
    metrics: dt.datetime | None
    # An account's first sync of bills or metrics has not succeeded yet.
    importing: bool

    @property
    def until(self) -> dt.datetime | None:
        """The later of the two: the end of the imported history as a whole."""
        moments = [m for m in (self.bills, self.metrics) if m is not None]
        return max(moments) if moments else None


def history_boundary(organization: Organization, *, as_of: dt.datetime) -> HistoryBoundary:
    """The organization's boundary of imported history as of ``as_of`` (see the module)."""
    rows = SyncState.objects.filter(
        account__organization=organization, kind__in=(SyncKind.BILLS, SyncKind.METRICS)
    ).values_list("kind", "backfilled_until", "last_success_at", "account__status")
    found: dict[str, dt.datetime] = {}
    importing = False
    for kind, backfilled_until, last_success_at, status in rows:
        if backfilled_until is not None:
            moment = backfilled_until
        elif last_success_at is None and status not in _NOT_IMPORTING:
            moment, importing = as_of, True
        else:
            continue
        found[kind] = max(found.get(kind, moment), moment)
    return HistoryBoundary(
        bills=found.get(SyncKind.BILLS), metrics=found.get(SyncKind.METRICS), importing=importing
    )


def _imported_from(organization: Organization) -> dt.date | None:
    """The first local day of the bills this import brought: those of the accounts backfilled
    since the organization's previous summary (all of them, at the first)."""
    previous = (
        AlertEvent.objects.for_organization(organization)
        .filter(kind=AlertKind.HISTORY)
        .order_by("-started_at")
        .values_list("started_at", flat=True)
        .first()
    )
    states = SyncState.objects.filter(
        account__organization=organization,
        kind__in=(SyncKind.BILLS, SyncKind.METRICS),
        backfilled_until__isnull=False,
    )
    if previous is not None:
        states = states.filter(backfilled_until__gt=previous)
    first = first_billed_at(organization, account_ids=states.values("account_id"))
    if first is None:
        return None
    return first.astimezone(zoneinfo.ZoneInfo(organization.timezone)).date()


def _rise(event: AlertEvent) -> float:
    figures = event.evidence or {}
    try:
        return float(figures["value"]) - float(figures["baseline_median"])
    except (KeyError, TypeError, ValueError):
        return 0.0


def _largest_anomaly(events: list[AlertEvent]) -> AlertEvent | None:
    """The anomaly with the largest rise above its median: spend first (money), else idle."""
    anomalies = [e for e in events if e.kind == AlertKind.ANOMALY]
    spend = [e for e in anomalies if (e.evidence or {}).get("metric") == "spend"]
    pool = spend or anomalies
    return max(pool, key=lambda e: (_rise(e), -e.pk)) if pool else None


def _evidence(
    organization: Organization, boundary: HistoryBoundary, events: list[AlertEvent]
) -> dict[str, Any]:
    assert boundary.until is not None
    tz = zoneinfo.ZoneInfo(organization.timezone)
    until_day = boundary.until.astimezone(tz).date()
    first_day = _imported_from(organization)
    kinds = [e.kind for e in events]
    evidence: dict[str, Any] = {
        "imported_until": boundary.until.isoformat(),
        "imported_from_day": first_day.isoformat() if first_day else None,
        "imported_days": (until_day - first_day).days + 1 if first_day else None,
        "anomalies": kinds.count(AlertKind.ANOMALY),
        "budget_thresholds": kinds.count(AlertKind.BUDGET),
        "metric_thresholds": kinds.count(AlertKind.THRESHOLD),
    }
    evidence["alerts"] = sum(evidence[key] for key in _COUNTED)
    largest = _largest_anomaly(events)
    if largest is not None:
        figures = largest.evidence
        evidence |= {
            "largest_anomaly_id": largest.pk,
            "largest_anomaly": largest.title,
            "largest_anomaly_value": figures.get("value"),
            "largest_anomaly_median": figures.get("baseline_median"),
            "largest_anomaly_unit": figures.get("unit"),
        }
    return evidence


def history_summarize(*, organization: Organization, as_of: dt.datetime) -> list[AlertEvent]:
    """Raise the one summary of the imported alerts not reported yet, once nothing is being
    imported any more; returns it (or nothing)."""
    boundary = history_boundary(organization, as_of=as_of)
    if boundary.importing or boundary.until is None:
        return []
    pending = list(
        AlertEvent.objects.for_organization(organization)
        .filter(imported=True, summary__isnull=True)
        .exclude(kind=AlertKind.HISTORY)
        .order_by("pk")
    )
    if not pending:
        return []
    dedup_key = f"history:{organization.pk}:{boundary.until.isoformat()}"
    ids = [event.pk for event in pending]
    existing = AlertEvent.objects.filter(dedup_key=dedup_key).first()
    if existing is not None:
        # Reported after the summary of this import: attached to it, nobody told again.
        AlertEvent.objects.filter(pk__in=ids, summary__isnull=True).update(summary=existing)
        return []
    try:
        with transaction.atomic():
            return [
                alert_event_raise(
                    organization=organization,
                    started_at=as_of,
                    kind=AlertKind.HISTORY,
                    severity=Severity.INFO,
                    dedup_key=dedup_key,
                    evidence=_evidence(organization, boundary, pending),
                    summarizes=ids,
                )
            ]
    except IntegrityError:
        return []  # raised by a concurrent run
