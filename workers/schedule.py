"""The one beat schedule. Later issues add the sync, analysis and digest entries here."""

from datetime import timedelta

BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "accounts.purge-expired-invitations": {
        "task": "accounts.purge_expired_invitations",
        "schedule": timedelta(hours=6),
    },
}
