from django.apps import AppConfig


class CostsConfig(AppConfig):
    """The cost and utilization reports: bill lines allocated by project, tag and phase."""

    name = "apps.costs"
    label = "costs"
    verbose_name = "Costs"
