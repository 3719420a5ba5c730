"""Self-service sign-up: create the person and their organization, confirm the e-mail address;
and the one-time set-password link of an owner created by ``manage.py create_organization``.

Not organization-scoped: nobody is signed in yet. Each endpoint is rate-limited per client IP
(SIGNUP_RATE_LIMIT), since each one sends an e-mail or checks a secret.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import login
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_protect
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts import services
from apps.accounts.models import User
from apps.accounts.passwords import set_password_user
from apps.accounts.selectors import memberships_for_user
from apps.accounts.serializers import (
    MeSerializer,
    ResendVerificationSerializer,
    SetPasswordSerializer,
    SignupCreatedSerializer,
    SignupSerializer,
    VerifyEmailSerializer,
    me_payload,
)
from apps.accounts.verification import InvalidVerificationToken, verification_token_user
from apps.api.exceptions import error_body
from apps.api.tenancy import SESSION_KEY
from apps.api.throttling import AddressRateThrottle


class SignupRateThrottle(AddressRateThrottle):
    """Per client IP, every caller (signed in or not): sign-ups cost an e-mail each."""

    scope = "signup"

    def get_rate(self) -> str:
        # Read per request, so a test or an operator can change it without a restart.
        return settings.SIGNUP_RATE_LIMIT

    def allow_request(self, request: Request, view: APIView) -> bool:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: APIView) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def confirmation_message(email: str) -> str:
    return (
        f"We sent a confirmation link to {email}. Open it to start using GPU Ledger "
        f"(it works for {settings.EMAIL_VERIFICATION_VALID_HOURS} hours)."
    )


@method_decorator(csrf_protect, name="dispatch")
class SignupView(APIView):
    """Create an account and its organization; the account works once its e-mail is confirmed."""

    permission_classes = [AllowAny]
    authentication_classes: list[type] = []
    throttle_classes = [SignupRateThrottle]

    @extend_schema(request=SignupSerializer, responses={201: SignupCreatedSerializer})
    def post(self, request: Request) -> Response:
        serializer = SignupSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        user, _ = services.signup_create(
            email=data["email"],
            password=data["password"],
            name=data["name"],
            organization_name=data["organization_name"],
            timezone_name=data["timezone"],
            currency=data["currency"],
            language=data["language"],
        )
        return Response(
            {"email": user.email, "message": confirmation_message(user.email)},
            status=status.HTTP_201_CREATED,
        )


@method_decorator(csrf_protect, name="dispatch")
class VerifyEmailView(APIView):
    """Open the e-mailed link: confirms the address and signs the person in."""

    permission_classes = [AllowAny]
    authentication_classes: list[type] = []
    throttle_classes = [SignupRateThrottle]

    @extend_schema(request=VerifyEmailSerializer, responses=MeSerializer)
    def post(self, request: Request) -> Response:
        serializer = VerifyEmailSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            user = verification_token_user(serializer.validated_data["token"])
        except InvalidVerificationToken as exc:
            return Response(
                error_body("invalid", str(exc), {"token": [str(exc)]}),
                status=status.HTTP_400_BAD_REQUEST,
            )
        user = services.email_verify(user=user)
        return _signed_in(request, user)


def _signed_in(request: Request, user: User) -> Response:
    """Sign ``user`` in on this session, showing their first organization."""
    login(request._request, user, backend="django.contrib.auth.backends.ModelBackend")
    memberships = list(memberships_for_user(user))
    current = memberships[0].organization if memberships else None
    if current is not None:
        request.session[SESSION_KEY] = current.pk
    return Response(me_payload(user, current=current, memberships=memberships))


@method_decorator(csrf_protect, name="dispatch")
class SetPasswordView(APIView):
    """Choose a password through a one-time link; signs the person in."""

    permission_classes = [AllowAny]
    authentication_classes: list[type] = []
    throttle_classes = [SignupRateThrottle]

    @extend_schema(request=SetPasswordSerializer, responses=MeSerializer)
    def post(self, request: Request) -> Response:
        serializer = SetPasswordSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        user = set_password_user(uid=data["uid"], token=data["token"])
        if user is None:
            message = _(
                "This link is invalid, used or expired. Ask your administrator for a new one."
            )
            return Response(
                error_body("invalid", message, {"token": [message]}),
                status=status.HTTP_400_BAD_REQUEST,
            )
        user = services.password_set(user=user, password=data["password"])
        return _signed_in(request, user)


@method_decorator(csrf_protect, name="dispatch")
class ResendVerificationView(APIView):
    """Send the confirmation link again. Answers the same whether or not the address waits
    for one, so it tells nobody which addresses have accounts."""

    permission_classes = [AllowAny]
    authentication_classes: list[type] = []
    throttle_classes = [SignupRateThrottle]

    @extend_schema(request=ResendVerificationSerializer, responses={202: SignupCreatedSerializer})
    def post(self, request: Request) -> Response:
        serializer = ResendVerificationSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        email = serializer.validated_data["email"].strip().lower()
        services.verification_email_resend(email=email)
        return Response(
            {"email": email, "message": confirmation_message(email)},
            status=status.HTTP_202_ACCEPTED,
        )
