"""Routes of /api/v1 and the OpenAPI schema and docs.

The composition root wires every app's endpoints here, so apps/api stays plumbing that
imports no domain app (DESIGN.md: apps depend in one direction).
"""

from django.urls import URLPattern, URLResolver, include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from apps.accounts import api as accounts_api
from apps.accounts import signup as accounts_signup
from apps.accounts.audit import api as audit_api
from apps.alerts import api as alerts_api
from apps.analysis import api as analysis_api
from apps.api import views as api_views
from apps.automation import api as automation_api
from apps.cloud import api as cloud_api
from apps.costs import api as costs_api
from apps.costs import usage_api, utilization_api
from apps.digests import api as digests_api
from apps.exports import api as exports_api
from apps.metrics.agent import api as agent_api
from apps.recommendations import api as recommendations_api

router = DefaultRouter(trailing_slash=False)
router.register("organizations", accounts_api.OrganizationViewSet, basename="organization")
router.register("members", accounts_api.MemberViewSet, basename="member")
router.register("invitations", accounts_api.InvitationViewSet, basename="invitation")
router.register("api-keys", accounts_api.ApiKeyViewSet, basename="api-key")
router.register("audit-log", audit_api.AuditEntryViewSet, basename="audit-entry")
router.register("cloud-accounts", cloud_api.CloudAccountViewSet, basename="cloud-account")
router.register("projects", cloud_api.ProjectViewSet, basename="project")
router.register("project-tag-keys", cloud_api.ProjectTagKeyViewSet, basename="project-tag-key")
router.register("instances", cloud_api.InstanceViewSet, basename="instance")
router.register(
    "recommendations", recommendations_api.RecommendationViewSet, basename="recommendation"
)
router.register(
    "digest-subscriptions", digests_api.DigestSubscriptionViewSet, basename="digest-subscription"
)
router.register("holidays", digests_api.HolidayViewSet, basename="holiday")
router.register("budgets", alerts_api.BudgetViewSet, basename="budget")
router.register("alert-rules", alerts_api.ThresholdRuleViewSet, basename="alert-rule")
router.register("alert-recipients", alerts_api.AlertRecipientViewSet, basename="alert-recipient")
router.register("alerts", alerts_api.AlertViewSet, basename="alert")
router.register(
    "automation/actions", automation_api.AutomationActionViewSet, basename="automation-action"
)

v1: list[URLPattern | URLResolver] = [
    path("auth/csrf", accounts_api.CsrfView.as_view(), name="auth-csrf"),
    path("auth/login", accounts_api.LoginView.as_view(), name="auth-login"),
    path("auth/logout", accounts_api.LogoutView.as_view(), name="auth-logout"),
    path("auth/signup", accounts_signup.SignupView.as_view(), name="auth-signup"),
    path("auth/verify-email", accounts_signup.VerifyEmailView.as_view(), name="auth-verify-email"),
    path(
        "auth/verify-email/resend",
        accounts_signup.ResendVerificationView.as_view(),
        name="auth-verify-email-resend",
    ),
    path("auth/set-password", accounts_signup.SetPasswordView.as_view(), name="auth-set-password"),
    path("me", accounts_api.MeView.as_view(), name="me"),
    path("me/organization", accounts_api.SwitchOrganizationView.as_view(), name="me-organization"),
    path(
        "invitations/accept", accounts_api.InvitationAcceptView.as_view(), name="invitation-accept"
    ),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path(
        "instances/<int:pk>/phases",
        analysis_api.InstancePhasesView.as_view(),
        name="instance-phases",
    ),
    path(
        "instances/<int:pk>/profile",
        analysis_api.InstanceProfileView.as_view(),
        name="instance-profile",
    ),
    path("analysis/summary", analysis_api.AnalysisSummaryView.as_view(), name="analysis-summary"),
    path(
        "analysis/settings", analysis_api.AnalysisSettingsView.as_view(), name="analysis-settings"
    ),
    path(
        "recommendations/settings",
        recommendations_api.RecommendationSettingsView.as_view(),
        name="recommendation-settings",
    ),
    path(
        "recommendations/<int:pk>/automation",
        automation_api.RecommendationAutomationView.as_view(),
        name="recommendation-automation",
    ),
    path(
        "automation/settings",
        automation_api.AutomationSettingsView.as_view(),
        name="automation-settings",
    ),
    path("digests/unsubscribe", digests_api.UnsubscribeView.as_view(), name="digest-unsubscribe"),
    path("alerts/settings", alerts_api.AlertSettingsView.as_view(), name="alert-settings"),
    path("exports/costs.csv", exports_api.CostsCsvView.as_view(), name="exports-costs-csv"),
    path("exports/focus.csv", exports_api.FocusCsvView.as_view(), name="exports-focus-csv"),
    path("exports/focus", exports_api.FocusPageView.as_view(), name="exports-focus"),
    path("costs", costs_api.CostReportView.as_view(), name="costs"),
    path("utilization", utilization_api.UtilizationView.as_view(), name="utilization"),
    path("usage/instances", usage_api.InstanceUsageView.as_view(), name="usage-instances"),
    path("usage/projects", usage_api.ProjectUsageView.as_view(), name="usage-projects"),
    path(
        "utilization/hour-of-week",
        utilization_api.HourOfWeekView.as_view(),
        name="utilization-hour-of-week",
    ),
    path(
        "instances/<int:pk>/timeseries",
        utilization_api.InstanceTimeseriesView.as_view(),
        name="instance-timeseries",
    ),
    path("ingest/gpu-samples", agent_api.IngestGpuSamplesView.as_view(), name="ingest-gpu-samples"),
    path("", include(router.urls)),
]

urlpatterns = [
    path("v1/", include((v1, "api"), namespace="v1")),
    # The Swagger UI runs within the Content-Security-Policy (no inline script): the "split"
    # view serves its start-up script as a file (`?script`). There is no Redoc page: Redoc
    # fetches its logo from cdn.redoc.ly and runs its search in a blob: worker.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="v1:schema"), name="api-docs"),
    # Last: any other /api/ path is a JSON 404 in the error shape (not Django's HTML page).
    re_path(r"^", api_views.api_not_found, name="api-not-found"),
]
