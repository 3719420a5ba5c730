from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    name = "apps.analysis"
    label = "analysis"
    verbose_name = "Utilization analysis"

    def ready(self) -> None:
        # A new cloud account's first costs should not wait for the hourly tick; the cloud
        # announces the end of its backfill by a signal, since it must not import the analysis.
        from apps.analysis import receivers
        from apps.analysis.billed_hours import on_bill_lines_changed
        from apps.billing.signals import bill_lines_changed
        from apps.cloud.signals import backfill_completed

        # The billed-hours rollup follows the bill lines (billing cannot import the analysis).
        bill_lines_changed.connect(on_bill_lines_changed, dispatch_uid="analysis.billed_hours")
        backfill_completed.connect(
            receivers.analyse_backfilled_organization,
            dispatch_uid="analysis.analyse_backfilled_organization",
        )
