from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    name = "apps.analysis"
    label = "analysis"
    verbose_name = "Utilization analysis"

    def ready(self) -> None:
        # A new cloud account's first costs should not wait for the hourly tick; the cloud
        # announces the end of its backfill by a signal, since it must not import the analysis.
        from apps.analysis import receivers
        from apps.cloud.signals import backfill_completed

        backfill_completed.connect(
            receivers.analyse_backfilled_organization,
            dispatch_uid="analysis.analyse_backfilled_organization",
        )
