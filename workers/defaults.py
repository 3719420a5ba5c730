"""Task defaults shared by every GPU Ledger task.

Tasks are idempotent (running one twice changes nothing more), so they acknowledge late: a
worker that dies mid-task leaves the message on the broker and another worker redoes it.

Retries are for transient errors only, and every task names them: ``retry_on`` is the tuple of
exceptions Celery retries (``autoretry_for``) with exponential backoff (5 s, doubled per
retry, at most 10 min) and full jitter, at most ``max_retries`` times; ``NEVER_RETRY`` says a
task is not retried at all (a dispatcher or purge whose next scheduled run does the same work).
Any other exception fails the task at once.
"""

from typing import Any

#: ``retry_on`` of a task that is never retried.
NEVER_RETRY: tuple[type[BaseException], ...] = ()
#: How many times a retried task is retried unless it says otherwise.
DEFAULT_MAX_RETRIES = 5

TASK_DEFAULTS: dict[str, Any] = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "retry_backoff": 5,  # seconds, doubled per retry
    "retry_backoff_max": 600,
    "retry_jitter": True,  # full jitter: a random wait up to the backoff, so retries spread out
    "soft_time_limit": 300,
    "time_limit": 360,
}


def task_options(
    *, name: str, retry_on: tuple[type[BaseException], ...], **overrides: Any
) -> dict[str, Any]:
    """Options for ``@shared_task(**task_options(name=..., queue=..., retry_on=...))``.

    ``name`` is explicit so renaming a module cannot orphan queued work; ``retry_on`` is
    explicit so no task retries (or fails to retry) by accident.
    """
    if not name:
        raise ValueError(
            "every task needs an explicit name: renaming a module must not orphan queued work"
        )
    max_retries = overrides.pop("max_retries", DEFAULT_MAX_RETRIES if retry_on else 0)
    if not isinstance(max_retries, int) or max_retries < 0:
        raise ValueError(f"{name}: max_retries must be a finite count, got {max_retries!r}")
    if not retry_on and max_retries:
        raise ValueError(f"{name}: a task that is never retried cannot have max_retries")
    if retry_on and not max_retries:
        raise ValueError(f"{name}: retry_on needs max_retries of at least 1")
    return {
        **TASK_DEFAULTS,
        **overrides,
        "name": name,
        "autoretry_for": tuple(retry_on),
        "max_retries": max_retries,
    }
