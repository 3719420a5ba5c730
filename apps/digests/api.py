"""Digest endpoints: one's own subscriptions (CRUD and preview), holidays, one-click unsubscribe.

Subscriptions are a person's own: listed, changed and previewed only by the person who holds
them, in the request's organization (anyone else's, in any organization, is a 404). Holidays
belong to the organization: every member reads them, owners and admins edit them. The
unsubscribe endpoint is addressed by a signed token, not a session (RFC 8058).
"""

from __future__ import annotations

import base64
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.utils import timezone, translation
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, permissions
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import JSONRenderer, StaticHTMLRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView

from apps.accounts.roles import MANAGER_ROLES, Role
from apps.api.permissions import IsOrganizationMember, IsSignedInPerson
from apps.api.schema import ApiAutoSchema, ErrorSerializer
from apps.api.tenancy import session_user
from apps.api.viewsets import OrganizationScopedViewSet
from apps.digests import schedule, selectors, services
from apps.digests.emails import digest_render
from apps.digests.models import DigestSubscription, Holiday
from apps.digests.serializers import (
    DigestPreviewSerializer,
    DigestSubscriptionSerializer,
    HolidaySerializer,
    UnsubscribeSerializer,
)
from apps.digests.tokens import unsubscribe_token_read

EVERY_ROLE = frozenset(Role)


class DigestSubscriptionViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    OrganizationScopedViewSet,
):
    """The signed-in person's digests of the current organization."""

    queryset = DigestSubscription.objects.all()
    serializer_class = DigestSubscriptionSerializer
    # A viewer may subscribe to a digest too: it is their own mailbox, not the organization's.
    permission_classes = [IsSignedInPerson, IsOrganizationMember]
    write_roles = EVERY_ROLE

    def get_queryset(self) -> QuerySet:
        return selectors.subscriptions_of(
            organization=self.tenant.organization,
            user=session_user(self.request),
            now=timezone.now(),
        ).order_by("created_at", "id")

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "organization": self.tenant.organization}

    def _save(self, serializer: BaseSerializer[DigestSubscription], **fields: Any) -> None:
        data = dict(serializer.validated_data)
        projects = data.pop("projects", None)
        subscription = serializer.instance or DigestSubscription(**fields)
        for name, value in data.items():
            setattr(subscription, name, value)
        serializer.instance = services.subscription_save(
            subscription=subscription, projects=projects
        )

    def perform_create(self, serializer: BaseSerializer[DigestSubscription]) -> None:
        self._save(
            serializer, organization=self.tenant.organization, user=session_user(self.request)
        )

    def perform_update(self, serializer: BaseSerializer[DigestSubscription]) -> None:
        self._save(serializer)

    def perform_destroy(self, instance: DigestSubscription) -> None:
        services.subscription_delete(subscription=instance)

    @extend_schema(responses=DigestPreviewSerializer, parameters=[])
    @action(detail=True, methods=["get"])
    def preview(self, request: Request, pk: str | None = None) -> Response:
        """The digest that goes out next, rendered now by the same code that sends it (its
        period may still be running, so its figures are those so far)."""
        subscription = self.get_object()
        plan = services.subscription_schedule(
            subscription, selectors.holiday_dates(subscription.organization_id)
        )
        upcoming = schedule.next_occurrence(plan, after=timezone.now())
        email = digest_render(
            subscription=subscription,
            period_start=upcoming.period_start,
            period_end=upcoming.period_end,
            use_cache=False,
        )
        body = {
            "subject": email.subject,
            "html": email.html,
            "text": email.text,
            "period_start": email.period_start,
            "period_end": email.period_end,
            "images": {
                cid: "data:image/png;base64," + base64.b64encode(png).decode()
                for cid, png in email.images.items()
            },
        }
        return Response(DigestPreviewSerializer(body).data)


class HolidayViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    OrganizationScopedViewSet,
):
    """The organization's holidays: workdays-only digests skip them."""

    queryset = Holiday.objects.order_by("date")
    serializer_class = HolidaySerializer
    write_roles = MANAGER_ROLES

    def perform_create(self, serializer: BaseSerializer[Holiday]) -> None:
        holiday = Holiday(organization=self.tenant.organization, **serializer.validated_data)
        serializer.instance = services.holiday_save(holiday=holiday)

    def perform_update(self, serializer: BaseSerializer[Holiday]) -> None:
        holiday = serializer.instance
        assert holiday is not None
        for name, value in serializer.validated_data.items():
            setattr(holiday, name, value)
        serializer.instance = services.holiday_save(holiday=holiday)

    def perform_destroy(self, instance: Holiday) -> None:
        services.holiday_delete(holiday=instance)


_TOKEN = OpenApiParameter(
    "token",
    {"type": "string", "minLength": 1, "pattern": r"\S"},
    required=True,
    description="The signed token of the digest's unsubscribe link (no session or API key "
    "is needed: the token is the credential). Missing or blank: 400.",
)
_TOKEN_NOT_FOUND = OpenApiResponse(
    ErrorSerializer, description="The token is not one of ours, or its digest no longer exists."
)


class _JsonOnlySchema(ApiAutoSchema):
    """The unsubscribe page is for people: the API's documented answer stays the JSON."""

    def map_renderers(self, attribute: str) -> list[Any]:
        return [found for found in super().map_renderers(attribute) if "html" not in found]


class UnsubscribeView(APIView):
    """One-click unsubscribe (RFC 8058): a POST with the signed token, no session needed.

    A GET only says which digest the link is for (link scanners fetch links; they must not
    unsubscribe anybody). The same URL is the "Unsubscribe" link in the digest's body, so a
    browser (which asks for text/html) gets a small page in the subscriber's language: a
    confirm button that POSTs the token here, then the result. A mail client's one-click POST
    and the API's callers still get JSON.
    """

    permission_classes = [permissions.AllowAny]
    authentication_classes: list[type] = []
    # Content negotiation picks the page for a browser's Accept (text/html), JSON otherwise.
    renderer_classes = [JSONRenderer, StaticHTMLRenderer]
    schema = _JsonOnlySchema()

    def _subscription(self, request: Request) -> DigestSubscription:
        token = request.query_params.get("token", "").strip()
        if not token:
            raise ValidationError({"token": ["The unsubscribe link's token is required."]})
        subscription_id = unsubscribe_token_read(token)
        # A token that is not ours and one of a deleted subscription look alike: not found.
        return get_object_or_404(
            DigestSubscription.objects.select_related("organization", "user"),
            pk=subscription_id or 0,
        )

    def _answer(
        self, request: Request, subscription: DigestSubscription, *, unsubscribed: bool
    ) -> Response:
        if request.accepted_renderer.format != "html":
            return Response({"unsubscribed": unsubscribed})
        with translation.override(subscription.user.language):
            page = render_to_string(
                "digests/unsubscribe.html",
                {
                    "unsubscribed": unsubscribed,
                    "organization_name": subscription.organization.name,
                    "email": subscription.user.email,
                    "action": request.get_full_path(),
                    "reports_url": f"{settings.PUBLIC_URL}/reports",
                },
            )
        return Response(page)

    @extend_schema(
        parameters=[_TOKEN],
        responses={200: UnsubscribeSerializer, 404: _TOKEN_NOT_FOUND},
        auth=[],
    )
    def get(self, request: Request) -> Response:
        subscription = self._subscription(request)
        return self._answer(request, subscription, unsubscribed=not subscription.is_active)

    @extend_schema(
        parameters=[_TOKEN],
        request=None,
        responses={200: UnsubscribeSerializer, 404: _TOKEN_NOT_FOUND},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        subscription = self._subscription(request)
        services.subscription_unsubscribe(subscription_id=subscription.pk)
        return self._answer(request, subscription, unsubscribed=True)
