from django.apps import AppConfig


class ExportsConfig(AppConfig):
    """What leaves the product for other tools: CSV and FOCUS exports, Prometheus metrics."""

    name = "apps.exports"
    label = "exports"
    verbose_name = "Exports"
