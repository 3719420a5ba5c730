from __future__ import annotations

from typing import TYPE_CHECKING

from django.apps import AppConfig
from django.conf import settings

if TYPE_CHECKING:
    from apps.cloud.sync.registry import SyncJob
    from apps.metrics.ingest import MetricsResult


def run_metrics_sync(job: SyncJob) -> MetricsResult:
    from apps.metrics.ingest import MetricsLimits, sync_metrics

    # Read at each run, not at start-up, so a changed setting applies to the next sync.
    limits = MetricsLimits(settings.MONITOR_MAX_INSTANCES, settings.MONITOR_MAX_POINTS)
    return sync_metrics(
        job.account,
        job.client,
        now=job.now,
        backfill_days=job.backfill_days,
        limits=limits,
        progress=job.progress,
    )


class MetricsConfig(AppConfig):
    name = "apps.metrics"
    label = "metrics"
    verbose_name = "Metrics"

    def ready(self) -> None:
        # Metrics owns the Cloud Monitor ingest; the cloud runner only looks the kind up.
        from apps.cloud.models import SyncKind
        from apps.cloud.sync import registry

        registry.register(SyncKind.METRICS, run_metrics_sync)
