from django.apps import AppConfig


class CostsConfig(AppConfig):
    """The cost and utilization reports: bill lines allocated by project, tag and phase."""

    name = "apps.costs"
    label = "costs"
    verbose_name = "Costs"

    def ready(self) -> None:
        # The daily cost rollup follows the bill lines (billing cannot import costs).
        from apps.billing.signals import bill_lines_changed
        from apps.costs.services import on_bill_lines_changed

        bill_lines_changed.connect(on_bill_lines_changed, dispatch_uid="costs.cost_days")
