from django.apps import AppConfig


class CostsConfig(AppConfig):
    """The cost and utilization reports: bill lines allocated by project, tag and phase."""

    name = "apps.costs"
    label = "costs"
    verbose_name = "Costs"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate, post_save

        from apps.accounts.models import Organization
        from apps.billing.signals import bill_lines_changed
        from apps.cloud.projects import projects_reassigned
        from apps.cloud.signals import instance_tags_changed
        from apps.costs.services import (
            on_allocation_inputs_changed,
            on_bill_lines_changed,
            on_organization_saved,
            on_post_migrate,
        )

        # The daily cost rollup follows its inputs where they change, never on a GET: the bill
        # lines (billing cannot import costs), the organization's timezone (local days move)
        # and a migration that dropped the rollup.
        bill_lines_changed.connect(on_bill_lines_changed, dispatch_uid="costs.cost_days")
        post_save.connect(
            on_organization_saved, sender=Organization, dispatch_uid="costs.organization_tz"
        )
        post_migrate.connect(on_post_migrate, sender=self, dispatch_uid="costs.post_migrate")
        # Why unallocated money has no project follows the tags and the project tag keys.
        projects_reassigned.connect(
            on_allocation_inputs_changed, dispatch_uid="costs.unallocated_reasons_keys"
        )
        instance_tags_changed.connect(
            on_allocation_inputs_changed, dispatch_uid="costs.unallocated_reasons_tags"
        )
