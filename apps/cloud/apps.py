from __future__ import annotations

from typing import TYPE_CHECKING

from django.apps import AppConfig

if TYPE_CHECKING:
    from apps.cloud.sync.inventory import InventoryResult
    from apps.cloud.sync.prices import PricesResult
    from apps.cloud.sync.registry import SyncJob


def run_inventory_sync(job: SyncJob) -> InventoryResult:
    from apps.cloud.sync.inventory import sync_inventory

    return sync_inventory(job.account, job.client, now=job.now)


def run_prices_sync(job: SyncJob) -> PricesResult:
    from apps.cloud.sync.prices import sync_prices

    return sync_prices(job.account, job.client)


class CloudConfig(AppConfig):
    name = "apps.cloud"
    label = "cloud"

    def ready(self) -> None:
        # Cloud owns the inventory and the price catalog; metrics and billing register the
        # kinds whose data they own in their own ready().
        from apps.cloud.models import SyncKind
        from apps.cloud.sync import registry

        registry.register(SyncKind.INVENTORY, run_inventory_sync)
        registry.register(SyncKind.PRICES, run_prices_sync)
