from django.apps import AppConfig


class DigestsConfig(AppConfig):
    """Scheduled e-mailed cost digests, each sent once per subscriber and period."""

    name = "apps.digests"
    label = "digests"
    verbose_name = "Digests"
