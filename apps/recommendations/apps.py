from django.apps import AppConfig


class RecommendationsConfig(AppConfig):
    name = "apps.recommendations"
    label = "recommendations"
    verbose_name = "Recommendations"

    def ready(self) -> None:
        # The analysis must not import recommendations (apps depend in one direction), so it
        # sends a signal after each run and this app reacts to it.
        from apps.analysis.signals import analysis_completed
        from apps.recommendations import receivers

        analysis_completed.connect(
            receivers.enqueue_after_analysis, dispatch_uid="recommendations.after_analysis"
        )
