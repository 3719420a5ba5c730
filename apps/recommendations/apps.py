from django.apps import AppConfig


class RecommendationsConfig(AppConfig):
    name = "apps.recommendations"
    label = "recommendations"
    verbose_name = "Recommendations"
