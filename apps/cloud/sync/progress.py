"""A running sync's progress, saved for the UI: ``SyncState.progress["run"]``.

The runner hands every sync a ``progress(done, planned)`` callback (metrics count requests);
the recorder saves it at most every ``SAVE_INTERVAL_SECONDS`` (a metrics backfill calls it
after every window, which can be several times a second), and always at the start and the end,
so the UI can poll one row per kind: running with done/planned, then done (or failed) with a
one-line summary of the result. Other keys of ``progress`` belong to the sync functions (a
bills cursor), so only the ``run`` key is replaced, under a row lock.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from apps.cloud.models import SyncState

logger = logging.getLogger(__name__)

PROGRESS_KEY = "run"
SAVE_INTERVAL_SECONDS = 2.0


class RunState:
    RUNNING = "running"
    # Stopped by a transient error (throttled, network); the task retries it with backoff.
    RETRYING = "retrying"
    DONE = "done"
    FAILED = "failed"


def _summary(result: Any) -> str:
    if isinstance(result, list):
        return ", ".join(map(str, result))
    return "" if result is None else str(result)


class ProgressRecorder:
    """Saves the progress of one run of (account, kind); ``clock`` is for tests."""

    def __init__(
        self,
        account_id: int,
        kind: str,
        *,
        interval_seconds: float = SAVE_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.account_id = account_id
        self.kind = kind
        self.interval_seconds = interval_seconds
        self.clock = clock
        self.run: dict[str, Any] = {}
        self.saved_at: float | None = None
        self.saves = 0

    def start(self) -> None:
        now = timezone.now().isoformat()
        self.run = {
            "state": RunState.RUNNING,
            "done": 0,
            "planned": None,
            "started_at": now,
            "updated_at": now,
            "finished_at": None,
            "summary": "",
        }
        self._save()

    def report(self, done: int, planned: int) -> None:
        # The first report is saved at once: it turns the bar from "starting" to a fraction.
        first = self.run.get("planned") is None
        self.run.update(done=done, planned=planned)
        if first or self.saved_at is None or self.clock() - self.saved_at >= self.interval_seconds:
            self.run["updated_at"] = timezone.now().isoformat()
            self._save()

    def finish(self, *, result: Any = None, error: str = "", transient: bool = False) -> None:
        now = timezone.now().isoformat()
        failed = RunState.RETRYING if transient else RunState.FAILED
        self.run.update(
            state=failed if error else RunState.DONE,
            updated_at=now,
            finished_at=now,
            summary=error or _summary(result),
        )
        if not error and self.run.get("planned") is not None:
            self.run["done"] = self.run["planned"]
        self._save()

    def fail(self, error: BaseException) -> None:
        """Record a failed run without ever raising: the sync's own error is what matters, and
        a broken transaction (the error may be a database one) must not replace it."""
        try:
            self.finish(
                error=str(error) or type(error).__name__,
                transient=bool(getattr(error, "is_transient", False)),
            )
        except DatabaseError:
            logger.warning(
                "sync %s of account %s: could not save its failure", self.kind, self.account_id
            )

    def _save(self) -> None:
        self.saved_at = self.clock()
        self.saves += 1
        with transaction.atomic():
            state = (
                SyncState.objects.select_for_update()
                .filter(account_id=self.account_id, kind=self.kind)
                .first()
            )
            if state is None:  # a run outside the schedule (no row): nothing to show
                return
            progress = dict(state.progress or {})
            progress[PROGRESS_KEY] = dict(self.run)
            SyncState.objects.filter(pk=state.pk).update(progress=progress)


def run_progress(state: SyncState, *, now: datetime | None = None) -> dict[str, Any] | None:
    """The saved progress of the last run of ``state``'s kind, for the API (None: never ran)."""
    run = (state.progress or {}).get(PROGRESS_KEY)
    if not run:
        return None
    run = dict(run)
    if run.get("state") in (RunState.RUNNING, RunState.RETRYING):
        # A worker killed mid-run never writes "failed". It stopped when neither its lease nor
        # its last report is younger than a lease (the backfill command holds no lease).
        now = now or timezone.now()
        lease = timedelta(seconds=settings.SYNC_LEASE_SECONDS)
        updated_at = parse_datetime(run.get("updated_at") or "")
        leased = state.leased_until is not None and state.leased_until > now
        recent = updated_at is not None and updated_at + lease > now
        if not (leased or recent):
            run["state"] = RunState.FAILED
            run["summary"] = "Interrupted; it resumes at the next sync."
    return run
