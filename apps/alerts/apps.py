from django.apps import AppConfig


class AlertsConfig(AppConfig):
    """Budgets, cost anomalies and metric thresholds, and who is told when they are crossed."""

    name = "apps.alerts"
    label = "alerts"
    verbose_name = "Alerts"
