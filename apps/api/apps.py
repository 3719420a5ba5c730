from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "apps.api"
    label = "api"

    def ready(self) -> None:
        # Registers the OpenAPI extensions of our authentication classes.
        from apps.api import schema  # noqa: F401
