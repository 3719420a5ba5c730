from django.apps import AppConfig


class AlertsConfig(AppConfig):
    """Budgets, cost anomalies and metric thresholds, and who is told when they are crossed."""

    name = "apps.alerts"
    label = "alerts"
    verbose_name = "Alerts"

    def ready(self) -> None:
        # The analysis must not import alerts (apps depend in one direction): it signals.
        from apps.alerts import receivers
        from apps.analysis.signals import analysis_completed
        from apps.cloud.sync.signals import sync_completed

        analysis_completed.connect(
            receivers.enqueue_after_analysis, dispatch_uid="alerts.after_analysis"
        )
        sync_completed.connect(receivers.enqueue_after_sync, dispatch_uid="alerts.after_sync")
