"""Task defaults shared by every GPU Ledger task.

Tasks are idempotent (running one twice changes nothing more), so they acknowledge late: a
worker that dies mid-task leaves the message on the broker and another worker redoes it.
Retries are for transient errors only, bounded, with exponential backoff and jitter.
"""

from typing import Any

TASK_DEFAULTS: dict[str, Any] = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "max_retries": 5,
    "retry_backoff": 5,  # seconds, doubled per retry
    "retry_backoff_max": 600,
    "retry_jitter": True,
    "soft_time_limit": 300,
    "time_limit": 360,
}


def task_options(**overrides: Any) -> dict[str, Any]:
    """Options for ``@shared_task(**task_options(name=..., queue=...))``."""
    if "name" not in overrides:
        raise ValueError(
            "every task needs an explicit name: renaming a module must not orphan queued work"
        )
    return {**TASK_DEFAULTS, **overrides}
