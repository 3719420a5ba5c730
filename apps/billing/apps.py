from __future__ import annotations

from typing import TYPE_CHECKING

from django.apps import AppConfig

if TYPE_CHECKING:
    from apps.billing.models import BalanceSnapshot
    from apps.billing.sync import BillsResult
    from apps.cloud.sync.registry import SyncJob


def run_bills_sync(job: SyncJob) -> list[BillsResult]:
    from apps.billing.months import sync_bill_months

    return sync_bill_months(
        job.account,
        job.client,
        now=job.now,
        backfill_days=job.backfill_days,
        progress=job.progress,
    )


def run_balance_sync(job: SyncJob) -> BalanceSnapshot:
    from apps.billing.sync import sync_balance

    return sync_balance(job.account, job.client, now=job.now)


class BillingConfig(AppConfig):
    name = "apps.billing"
    label = "billing"

    def ready(self) -> None:
        # Billing owns bill lines and balances, so it tells the cloud runner how to sync them
        # and keeps its bill lines' projects in step with the cloud's tag rules; cloud itself
        # never imports billing (billing depends on cloud, not the other way round).
        from apps.billing import receivers
        from apps.cloud.models import SyncKind
        from apps.cloud.projects import projects_reassigned
        from apps.cloud.sync import registry

        registry.register(SyncKind.BILLS, run_bills_sync)
        registry.register(SyncKind.BALANCE, run_balance_sync)
        projects_reassigned.connect(
            receivers.reassign_bill_line_projects, dispatch_uid="billing.bill_line_projects"
        )
