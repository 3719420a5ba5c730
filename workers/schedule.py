"""The one beat schedule of GPU Ledger: every periodic task, in one place."""

from datetime import timedelta

BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    # Fans out every due sync (inventory 5 min, metrics 5 min, bills and balance hourly,
    # prices daily); the per-account leases make a duplicate tick harmless.
    "cloud.dispatch-due": {"task": "cloud.dispatch_due", "schedule": timedelta(minutes=1)},
    "metrics.prune-raw": {"task": "metrics.prune_raw", "schedule": timedelta(hours=24)},
    # Folds the small "recent points" rows into their day arrays, off the ingest path.
    "metrics.compact-recent": {"task": "metrics.compact_recent", "schedule": timedelta(hours=1)},
    # Incremental: only instances/days with metric data newer than their last analysis.
    "analysis.analyse-recent": {"task": "analysis.analyse_recent", "schedule": timedelta(hours=1)},
    # Full recompute of the last 14 days (thresholds changed, late or re-imported data).
    "analysis.analyse-full": {"task": "analysis.analyse_full", "schedule": timedelta(hours=24)},
    "accounts.purge-expired-invitations": {
        "task": "accounts.purge_expired_invitations",
        "schedule": timedelta(hours=6),
    },
}
