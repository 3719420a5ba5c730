"""Backfill an account: inventory, prices, N days of metrics and the bill months they touch.

Resumable: metrics are stored window by window with a per-instance watermark, and each bill
month is replaced atomically, so an interrupted backfill continues where it stopped when run
again. Runs in this process (no worker needed) through the same sync code as the workers.

Bills and metrics have rate limits of their own (DescribeBillDetail 5/s, GetMonitorData 20/s),
so they are read side by side, as the workers read them: the backfill takes as long as the
longer of the two, not their sum. Bills name the instances the inventory no longer lists
(terminated before the account was connected), so a last metrics pass after both reads those
instances' metrics; every other instance is caught up by then and costs no request. Inside a
caller's transaction (a test) or on SQLite, whose writers lock each other out, they run one
after the other.

A bad day does not stop it: each call retries transient errors for its retry budget (see
apps/cloud/providers/tencent/client.py), and a kind whose call still fails is run again, from
where it stopped, after a backoff. Only a permanent error (wrong key, missing permission, a
request the cloud rejects) or the ``--deadline`` stops it, with a summary of what is done and
what is left per kind. A rerun skips what is complete: a kind that succeeded within its
interval is not run again, and metrics read only what is newer than each instance's watermark.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from tqdm import tqdm

from apps.cloud import services
from apps.cloud.models import CloudAccount, SyncKind
from apps.cloud.providers.tencent.client import RetryPolicy
from apps.cloud.providers.tencent.errors import CloudError
from apps.cloud.sync import runner

DEFAULT_DEADLINE_SECONDS = 6 * 3600
# Kinds of one stage run side by side; stages run in order (see the module docstring).
STAGES: list[list[str]] = [
    [SyncKind.INVENTORY],
    [SyncKind.PRICES],
    [SyncKind.METRICS, SyncKind.BILLS],
    [SyncKind.METRICS],
    [SyncKind.BALANCE],
]


class DeadlineReached(Exception):
    """The ``--deadline`` passed; raised between units of work, never half-way through one."""


@dataclass
class KindOutcome:
    """What happened to one kind, for the summary."""

    kind: str
    state: str = "left"  # done, skipped, left
    detail: str = "not started"
    attempts: int = 0
    progress: tuple[int, int] | None = field(default=None)  # (requests done, planned) of metrics

    def line(self) -> str:
        text = f"{self.kind}: {self.state}: {self.detail}"
        if self.attempts > 1:
            text += f" (run {self.attempts} times through transient errors)"
        return text


class Command(BaseCommand):
    help = "Backfill a cloud account's inventory, prices, metrics and bills."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--account", type=int, required=True, help="CloudAccount id")
        parser.add_argument("--days", type=int, default=30)
        parser.add_argument("--no-progress", action="store_true", help="no progress bar (logs, CI)")
        parser.add_argument(
            "--deadline",
            type=float,
            default=DEFAULT_DEADLINE_SECONDS,
            help="stop after this many seconds, with a summary of what is left "
            f"(default {DEFAULT_DEADLINE_SECONDS})",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="run inventory, prices, bills and balance even if they succeeded within "
            "their interval",
        )
        parser.add_argument(
            "--as-of",
            default=None,
            help="ISO 8601 moment to sync up to (default: now), for replays",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        account = (
            CloudAccount.objects.select_related("organization")
            .filter(pk=options["account"])
            .first()
        )
        if account is None:
            raise CommandError(f"No cloud account with id {options['account']}.")
        days = options["days"]
        if not 1 <= days <= 186:
            raise CommandError(
                "--days must be between 1 and 186 (Cloud Monitor keeps minute data for 31 days)."
            )
        if options["deadline"] <= 0:
            raise CommandError("--deadline must be a positive number of seconds.")
        now = _as_of(options["as_of"])
        deadline_at = time.monotonic() + options["deadline"]
        # Every call's retries end at the deadline too, so a stalled call cannot outlive it.
        policy = RetryPolicy.from_settings(deadline=deadline_at)
        client = services.cloud_account_client(account, retry=policy)
        outcomes: dict[str, KindOutcome] = {kind: KindOutcome(kind) for kind in runner.ORDER}
        bar = tqdm(
            total=0,
            unit="req",
            desc="metrics",
            disable=options["no_progress"],
            file=self.stderr._out,
        )

        def progress(done: int, planned: int) -> None:
            outcomes[SyncKind.METRICS].progress = (done, planned)
            bar.total = planned
            bar.n = done
            bar.refresh()
            # Between windows (each stored atomically): the one safe place to stop in metrics.
            if time.monotonic() >= deadline_at:
                raise DeadlineReached

        failed: list[str] = []  # kinds in the order they stopped: the first one is the cause

        def run(kind: str) -> None:
            try:
                run_kind(kind)
            except BaseException:
                failed.append(kind)
                raise

        def run_kind(kind: str) -> None:
            outcome = outcomes[kind]
            if outcome.state == "done":
                # The metrics pass after the bills: only instances the bills taught us about.
                before, attempts = outcome.detail, outcome.attempts
                outcome.state, outcome.attempts = "left", 0
                result = self._run_until_done(
                    account,
                    kind,
                    outcome,
                    now=now,
                    client=client,
                    policy=policy,
                    days=days,
                    deadline_at=deadline_at,
                    progress=progress,
                )
                outcome.detail = (
                    f"{before}; then {outcome.detail} of instances only the bills name"
                    if getattr(result, "requests", 0)
                    else before
                )
                outcome.attempts = attempts + outcome.attempts - 1
                return
            last = (
                None
                if options["force"] or kind == SyncKind.METRICS
                else runner.synced_within_interval(account.pk, kind, now=timezone.now())
            )
            if last is not None:
                outcome.state = "skipped"
                outcome.detail = f"synced at {last:%Y-%m-%d %H:%M} UTC, within its interval"
                self.stdout.write(outcome.line())
                return
            self._run_until_done(
                account,
                kind,
                outcome,
                now=now,
                client=client,
                policy=policy,
                days=days,
                deadline_at=deadline_at,
                progress=progress if kind == SyncKind.METRICS else None,
            )
            self.stdout.write(outcome.line())

        side_by_side = connection.vendor != "sqlite" and not connection.in_atomic_block
        try:
            for stage in STAGES:
                if side_by_side:
                    _run_at_once(stage, run, client)
                else:
                    for kind in stage:
                        run(kind)
        except CloudError as error:
            # Permanent: a person has to act (new key, a CAM permission); retrying cannot help.
            services.cloud_account_mark_failing(account_id=account.pk, message=str(error))
            self._summary(outcomes)
            raise CommandError(f"{failed[0]} failed: {error}") from error
        except DeadlineReached:
            self._summary(outcomes)
            raise CommandError(
                f"Deadline of {options['deadline']:g} s reached; run the backfill again to "
                "continue where it stopped."
            ) from None
        finally:
            bar.close()
        services.cloud_account_mark_ok(account_id=account.pk)
        self._summary(outcomes)
        self.stdout.write(self.style.SUCCESS(f"Backfilled {account} ({days} days)."))

    def _run_until_done(
        self,
        account: CloudAccount,
        kind: str,
        outcome: KindOutcome,
        *,
        now: datetime,
        client: Any,
        policy: RetryPolicy,
        days: int,
        deadline_at: float,
        progress: Any,
    ) -> Any:
        """Run one kind until it succeeds; transient failures run it again (it resumes)."""
        while True:
            if time.monotonic() >= deadline_at:
                raise DeadlineReached
            outcome.attempts += 1
            try:
                result = runner.run_kind(
                    account, kind, now=now, client=client, progress=progress, backfill_days=days
                )
            except CloudError as error:
                # The lease the heartbeat took must not block the workers after we stop.
                runner.sync_release(account.pk, kind, next_run_at=now, error=str(error))
                outcome.detail = f"stopped at {error.code}: {error}"
                if not error.is_transient:
                    raise
                wait_seconds = policy.delay(outcome.attempts - 1)
                if time.monotonic() + wait_seconds >= deadline_at:
                    raise DeadlineReached from None
                self.stderr.write(f"{kind}: {error} Running it again in {wait_seconds:.1f} s.")
                time.sleep(wait_seconds)
                continue
            except DeadlineReached:
                runner.sync_release(account.pk, kind, next_run_at=now, error="")
                outcome.detail = "stopped at the deadline"
                raise
            runner.sync_release(
                account.pk,
                kind,
                next_run_at=timezone.now() + runner.INTERVALS[SyncKind(kind)],
                success_at=timezone.now(),
                as_of=now,
            )
            outcome.state = "done"
            outcome.detail = (
                ", ".join(map(str, result)) if isinstance(result, list) else str(result)
            )
            return result

    def _summary(self, outcomes: dict[str, KindOutcome]) -> None:
        self.stdout.write("Summary:")
        for outcome in outcomes.values():
            line = outcome.line()
            if outcome.state == "left" and outcome.progress is not None:
                done, planned = outcome.progress
                line += f"; {planned - done} of {planned} requests of this run left"
            self.stdout.write(f"  {line}")


def _run_at_once(kinds: list[str], run: Callable[[str], None], client: Any) -> None:
    """Run ``kinds`` at once: the first in this thread, each other in a thread of its own.

    The first kind to fail stops the others (their next request raises the same error, see
    ``TencentClient.stop``), and its error is raised here once all have stopped.
    """
    first, *others = kinds
    failures: list[BaseException] = []
    lock = threading.Lock()

    def fail(error: BaseException) -> None:
        with lock:
            if not failures:
                client.stop(error)
            failures.append(error)

    def in_thread(kind: str) -> None:
        try:
            run(kind)
        except BaseException as error:
            fail(error)
        finally:
            connection.close()  # this thread's own database connection

    threads = [threading.Thread(target=in_thread, args=(kind,), name=kind) for kind in others]
    for thread in threads:
        thread.start()
    try:
        run(first)
    except BaseException as error:
        fail(error)
    finally:
        for thread in threads:
            thread.join()
    if failures:
        raise failures[0]


def _as_of(value: str | None) -> datetime:
    if not value:
        return timezone.now()
    moment = parse_datetime(value)
    if moment is None or moment.tzinfo is None:
        raise CommandError("--as-of must be an ISO 8601 time with a zone, e.g. 2026-11-03T04:30Z.")
    return moment
