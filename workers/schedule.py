"""The one beat schedule of GPU Ledger: every periodic task, in one place.

Every entry expires a little before its next tick: after an outage of the workers (or the
broker), the backlog holds one tick per interval, and all but the newest are discarded unrun
instead of running the same periodic job many times. A beat-sent run's retries (see
workers/defaults.py) carry the same expiry, so they too end before the next tick takes over.
"""

from datetime import timedelta


def every(interval: timedelta, task: str) -> dict[str, object]:
    """A beat entry for ``task`` each ``interval``, expiring after 90% of it."""
    return {
        "task": task,
        "schedule": interval,
        "options": {"expires": interval.total_seconds() * 0.9},
    }


BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    # Fans out every due sync (inventory 5 min, metrics 5 min, bills and balance hourly,
    # prices daily); the per-account leases make a duplicate tick harmless.
    "cloud.dispatch-due": every(timedelta(minutes=1), "cloud.dispatch_due"),
    "metrics.prune-raw": every(timedelta(hours=24), "metrics.prune_raw"),
    # The agent's per-GPU points, on the same horizon as the raw days.
    "metrics.prune-agent-points": every(timedelta(hours=24), "metrics.prune_agent_points"),
    # Folds the small "recent points" rows into their day arrays, off the ingest path.
    "metrics.compact-recent": every(timedelta(hours=1), "metrics.compact_recent"),
    # Incremental: only instances/days with metric data newer than their last analysis.
    "analysis.analyse-recent": every(timedelta(hours=1), "analysis.analyse_recent"),
    # Full recompute of the last 14 days (thresholds changed, late or re-imported data).
    "analysis.analyse-full": every(timedelta(hours=24), "analysis.analyse_full"),
    "accounts.purge-expired-invitations": every(
        timedelta(hours=6), "accounts.purge_expired_invitations"
    ),
    # The audit log keeps AUDIT_RETENTION_DAYS (a year); older entries go once a day.
    "accounts.purge-audit-log": every(timedelta(hours=24), "accounts.purge_audit_log"),
    # Claims the digests due now (each subscriber's local send time); the conditional UPDATE
    # of next_send_at makes a doubled tick harmless.
    "digests.claim-due": every(timedelta(minutes=2), "digests.claim_due"),
    # Mail the send tasks' own retries (minutes) could not deliver: queued again for a day, so
    # an SMTP outage of hours loses nothing; a conditional UPDATE per row queues each once.
    "digests.sweep-undelivered": every(timedelta(minutes=15), "digests.sweep_undelivered"),
    "alerts.sweep-undelivered": every(timedelta(minutes=15), "alerts.sweep_undelivered"),
    # Metric thresholds follow the metrics sync (every 5 min); budgets and anomalies the bills
    # (hourly). Each alert is made once by a constraint, so a duplicate tick raises nothing.
    "alerts.evaluate-thresholds": every(timedelta(minutes=5), "alerts.evaluate_thresholds_all"),
    "alerts.evaluate-costs": every(timedelta(hours=1), "alerts.evaluate_costs_all"),
    # Automation: the stops and starts due now (a conditional UPDATE claims each action, so a
    # doubled tick makes one cloud call), and the next week of every plan's actions.
    "automation.execute-due": every(timedelta(minutes=1), "automation.execute_due"),
    "automation.materialise": every(timedelta(hours=1), "automation.materialise"),
}
