"""Backfill an account: inventory, prices, N days of metrics and the bill months they touch.

Resumable: metrics are stored window by window with a per-instance watermark, and each bill
month is replaced atomically, so an interrupted backfill continues where it stopped when run
again. Runs in this process (no worker needed) through the same sync code as the workers.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from tqdm import tqdm

from apps.cloud import services
from apps.cloud.models import CloudAccount, SyncKind
from apps.cloud.providers.tencent.errors import CloudError
from apps.cloud.sync import runner


class Command(BaseCommand):
    help = "Backfill a cloud account's inventory, prices, metrics and bills."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--account", type=int, required=True, help="CloudAccount id")
        parser.add_argument("--days", type=int, default=30)
        parser.add_argument("--no-progress", action="store_true", help="no progress bar (logs, CI)")

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
        now = timezone.now()
        bar = tqdm(
            total=0,
            unit="req",
            desc="metrics",
            disable=options["no_progress"],
            file=self.stderr._out,
        )

        def progress(done: int, planned: int) -> None:
            bar.total = planned
            bar.n = done
            bar.refresh()

        try:
            for kind in runner.ORDER:
                result = runner.run_kind(
                    account,
                    kind,
                    now=now,
                    progress=progress if kind == SyncKind.METRICS else None,
                    backfill_days=days,
                )
                runner.sync_release(
                    account.pk,
                    kind,
                    next_run_at=now + runner.INTERVALS[kind],
                    success_at=timezone.now(),
                )
                shown = ", ".join(map(str, result)) if isinstance(result, list) else result
                self.stdout.write(f"{kind}: {shown}")
        except CloudError as error:
            if not error.is_transient:
                services.cloud_account_mark_failing(account_id=account.pk, message=str(error))
            raise CommandError(f"{kind} failed: {error}") from error
        finally:
            bar.close()
        services.cloud_account_mark_ok(account_id=account.pk)
        self.stdout.write(self.style.SUCCESS(f"Backfilled {account} ({days} days)."))
