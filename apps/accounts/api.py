"""Account endpoints: sign-in, me, organizations, members, invitations, API keys."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, login, logout
from django.db.models import QuerySet
from django.http import Http404, JsonResponse
from django.middleware.csrf import get_token
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_protect, ensure_csrf_cookie
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView

from apps.accounts import lockout, services
from apps.accounts.models import ApiKey, Invitation, Membership, Organization, User
from apps.accounts.roles import MANAGER_ROLES, Role
from apps.accounts.selectors import memberships_for_user, organization_for_user
from apps.accounts.serializers import (
    ApiKeyCreatedSerializer,
    ApiKeySerializer,
    InvitationAcceptSerializer,
    InvitationSerializer,
    LoginSerializer,
    MembershipSerializer,
    MeSerializer,
    MeUpdateSerializer,
    OrganizationCreateSerializer,
    OrganizationSerializer,
    SwitchOrganizationSerializer,
    me_payload,
)
from apps.api.exceptions import error_body
from apps.api.permissions import IsSignedInPerson
from apps.api.tenancy import SESSION_KEY, resolve_tenant, session_user
from apps.api.viewsets import OrganizationScopedViewSet


def _me_response(request: Request) -> Response:
    user = session_user(request)
    memberships = list(memberships_for_user(user))
    tenant = resolve_tenant(request)
    current = tenant.organization if tenant else None
    return Response(me_payload(user, current=current, memberships=memberships))


class CsrfView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    @extend_schema(responses=inline_serializer("Csrf", {"csrfToken": serializers.CharField()}))
    @method_decorator(ensure_csrf_cookie)
    def get(self, request: Request) -> Response:
        return Response({"csrfToken": get_token(request)})


@method_decorator(csrf_protect, name="dispatch")
class LoginView(APIView):
    """Session sign-in for the browser. CSRF is enforced even though nobody is signed in yet."""

    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    @extend_schema(request=LoginSerializer, responses=MeSerializer)
    def post(self, request: Request) -> Response | JsonResponse:
        serializer = LoginSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = authenticate(
            request._request,
            email=serializer.validated_data["email"].lower(),
            password=serializer.validated_data["password"],
        )
        if user is None:
            if getattr(request._request, lockout.LOCKED_UNTIL_ATTR, None) is not None:
                # The account is locked (or this wrong password locked it): 429, Retry-After.
                return lockout.lockout_response(request._request)
            # django-axes replaces this with its 429 lockout response once the limit is hit.
            return Response(
                error_body(
                    "invalid_credentials", _("The e-mail address or the password is wrong.")
                ),
                status=status.HTTP_400_BAD_REQUEST,
            )
        if getattr(user, "email_verification_pending", False):
            # The password was right, so saying why is safe and saves a support request.
            return Response(
                error_body(
                    "email_not_verified",
                    _(
                        "Confirm your e-mail address first: open the link we sent to %(email)s. "
                        "No e-mail? Send it again from here."
                    )
                    % {"email": user},
                ),
                status=status.HTTP_403_FORBIDDEN,
            )
        login(request._request, user)
        request.user = user
        return _me_response(request)


class LogoutView(APIView):
    """Ends the browser session. An API key has no session: revoke the key to end it."""

    permission_classes = [AllowAny]

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        if isinstance(request.auth, ApiKey):
            # Django's logout would sign out a person (and axes log one); a key is neither,
            # and a key request never carries the session cookie's person.
            return Response(status=status.HTTP_204_NO_CONTENT)
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    permission_classes = [IsSignedInPerson]

    @extend_schema(responses=MeSerializer)
    def get(self, request: Request) -> Response:
        return _me_response(request)

    @extend_schema(request=MeUpdateSerializer, responses=MeSerializer)
    def patch(self, request: Request) -> Response:
        """Change the signed-in person's own preferences; answers with the updated /me. A
        preference left out is kept (an empty body changes nothing)."""
        serializer = MeUpdateSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        if "language" in serializer.validated_data:
            services.user_update_preferences(
                user=session_user(request), language=serializer.validated_data["language"]
            )
        return _me_response(request)


class SwitchOrganizationView(APIView):
    """Organization switcher: remembers the chosen organization in the session."""

    permission_classes = [IsSignedInPerson]

    @extend_schema(request=SwitchOrganizationSerializer, responses=MeSerializer)
    def post(self, request: Request) -> Response:
        serializer = SwitchOrganizationSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        organization = organization_for_user(
            session_user(request), slug=serializer.validated_data["organization"]
        )
        if organization is None:
            raise Http404("No such organization.")
        request.session[SESSION_KEY] = organization.pk
        request._tenant = None  # type: ignore[attr-defined]
        return _me_response(request)


class OrganizationViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """The caller's organizations. Create one to become its owner; owners and admins edit it."""

    serializer_class = OrganizationSerializer
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_queryset(self) -> QuerySet[Organization]:
        if getattr(self, "swagger_fake_view", False):
            return Organization.objects.none()
        tenant = resolve_tenant(self.request)
        if tenant and tenant.api_key:
            return Organization.objects.filter(pk=tenant.organization.pk)
        return Organization.objects.filter(members=session_user(self.request)).order_by("name")

    def get_serializer_context(self) -> dict[str, Any]:
        # DRF builds a fresh dict on each call (typed as a read-only Mapping); this copy is ours.
        context = dict(super().get_serializer_context())
        tenant = resolve_tenant(self.request)
        if tenant and tenant.api_key:
            context["roles"] = {tenant.organization.pk: tenant.role}
        elif self.request.user.is_authenticated:
            context["roles"] = {
                m.organization_id: m.role for m in memberships_for_user(self.request.user)
            }
        return context

    def get_permissions(self) -> list:
        # Reading lists the caller's own organizations (possibly none). Any signed-in person
        # may create one; changing one needs a manager role in *that* organization, checked
        # per object below, not in the organization the session currently shows.
        if self.action in ("list", "retrieve"):
            return [IsAuthenticated()]
        return [IsSignedInPerson()]

    def check_object_permissions(self, request: Request, obj: Organization) -> None:
        super().check_object_permissions(request, obj)
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            role = self.get_serializer_context()["roles"].get(obj.pk)
            if role not in MANAGER_ROLES:
                self.permission_denied(
                    request, message="Only owners and admins can change the organization."
                )

    @extend_schema(request=OrganizationCreateSerializer, responses={201: OrganizationSerializer})
    def create(self, request: Request) -> Response:
        serializer = OrganizationCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        organization = services.organization_create(
            name=serializer.validated_data["name"],
            owner=session_user(request),
            timezone_name=serializer.validated_data["timezone"],
            currency=serializer.validated_data["currency"],
        )
        data = OrganizationSerializer(
            organization, context={"roles": {organization.pk: Role.OWNER}}
        ).data
        return Response(data, status=status.HTTP_201_CREATED)

    def perform_update(self, serializer: BaseSerializer[Organization]) -> None:
        assert serializer.instance is not None, "an update always edits an existing object"
        services.organization_update(organization=serializer.instance, **serializer.validated_data)


class MemberViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    OrganizationScopedViewSet,
):
    queryset = Membership.objects.select_related("user").order_by("created_at", "id")
    serializer_class = MembershipSerializer
    write_roles = MANAGER_ROLES
    http_method_names = ["get", "patch", "delete", "head", "options"]

    def perform_update(self, serializer: BaseSerializer[Membership]) -> None:
        assert serializer.instance is not None, "an update always edits an existing object"
        services.membership_update_role(
            membership=serializer.instance,
            role=serializer.validated_data.get("role", serializer.instance.role),
            actor_role=self.tenant.role,
        )

    def perform_destroy(self, instance: Membership) -> None:
        services.membership_delete(membership=instance, actor_role=self.tenant.role)


class InvitationViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    OrganizationScopedViewSet,
):
    queryset = Invitation.objects.select_related("invited_by").order_by("-created_at", "-id")
    serializer_class = InvitationSerializer
    write_roles = MANAGER_ROLES

    def perform_create(self, serializer: BaseSerializer[Invitation]) -> None:
        if serializer.validated_data.get("role") == Role.OWNER and self.tenant.role != Role.OWNER:
            self.permission_denied(self.request, message="Only an owner can invite another owner.")
        serializer.instance = services.invitation_create(
            organization=self.tenant.organization,
            email=serializer.validated_data["email"],
            role=serializer.validated_data.get("role", Role.VIEWER),
            invited_by=session_user(self.request),
        )

    def perform_destroy(self, instance: Invitation) -> None:
        services.invitation_revoke(invitation=instance)


class InvitationAcceptView(APIView):
    """Accept an invitation: signed in as the invited address, or by creating that account."""

    permission_classes = [AllowAny]

    @extend_schema(request=InvitationAcceptSerializer, responses=MeSerializer)
    def post(self, request: Request) -> Response:
        serializer = InvitationAcceptSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        invitation = services.invitation_by_token(data["token"])
        if invitation is None:
            return Response(
                error_body(
                    "invalid",
                    _("This invitation is invalid, used or expired."),
                    {"token": [_("Invalid.")]},
                ),
                status=status.HTTP_400_BAD_REQUEST,
            )
        user = request.user if request.user.is_authenticated and request.user.pk else None
        if user is None:
            if User.objects.filter(email=invitation.email).exists():
                return Response(
                    error_body(
                        "not_authenticated",
                        _("Sign in as %(email)s to accept.") % {"email": invitation.email},
                    ),
                    status=status.HTTP_401_UNAUTHORIZED,
                )
            if not data.get("password"):
                return Response(
                    error_body(
                        "invalid",
                        _("Choose a password."),
                        {"password": [_("This field is required.")]},
                    ),
                    status=status.HTTP_400_BAD_REQUEST,
                )
            user = services.user_create(
                email=invitation.email,
                password=data["password"],
                name=data["name"],
                language=data["language"],
            )
            login(request._request, user, backend="django.contrib.auth.backends.ModelBackend")
            request.user = user
        membership = services.invitation_accept(token=data["token"], user=user)
        request.session[SESSION_KEY] = membership.organization_id
        return _me_response(request)


class ApiKeyViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    OrganizationScopedViewSet,
):
    """API keys of the organization. DELETE revokes (the key stays listed, marked revoked)."""

    queryset = ApiKey.objects.order_by("-created_at", "-id")
    serializer_class = ApiKeySerializer
    write_roles = MANAGER_ROLES

    @extend_schema(request=ApiKeySerializer, responses={201: ApiKeyCreatedSerializer})
    def create(self, request: Request) -> Response:
        serializer = ApiKeySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        api_key, raw_key = services.api_key_create(
            organization=self.tenant.organization,
            name=serializer.validated_data["name"],
            scope=serializer.validated_data["scope"],
            # An API-key request has a principal without a pk: no person to credit.
            created_by=request.user if isinstance(request.user, User) else None,
        )
        api_key.key = raw_key  # type: ignore[attr-defined]
        return Response(ApiKeyCreatedSerializer(api_key).data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance: ApiKey) -> None:
        services.api_key_revoke(api_key=instance)

    @action(detail=True, methods=["post"])
    def revoke(self, request: Request, pk: str | None = None) -> Response:
        api_key = services.api_key_revoke(api_key=self.get_object())
        return Response(ApiKeySerializer(api_key).data)
