from django.contrib import admin
from django.urls import include, path, re_path

from apps.core import health, views
from apps.exports.prometheus import MetricsView

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("admin/", admin.site.urls),
    path("api/", include("config.api_urls")),
    # Prometheus scrapes outside /api/v1 (an API key authorises it; OpenMetrics text).
    path("metrics", MetricsView.as_view(), name="metrics"),
    # Everything else belongs to the React app (except /static/, served by whitenoise).
    re_path(r"^(?!api/|admin/|static/)(?P<path>.*)$", views.spa_index, name="spa"),
]
