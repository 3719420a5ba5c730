"""API representations of accounts."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.password_validation import (
    MinimumLengthValidator,
    get_default_password_validators,
)
from rest_framework import serializers

from apps.accounts.models import (
    ApiKey,
    ApiKeyScope,
    Currency,
    Invitation,
    Language,
    Membership,
    Organization,
    User,
    validate_timezone,
)
from apps.api.serializers import StrictModelSerializer, StrictSerializer


class NewPasswordField(serializers.CharField):
    """A password being chosen: Django's validators check it (in the service, with the person
    it is for); the schema states the one limit a schema can, the minimum length."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        kwargs.setdefault("style", {"input_type": "password"})
        super().__init__(**kwargs)

    def request_schema(self) -> dict[str, Any]:
        lengths = [
            validator.min_length
            for validator in get_default_password_validators()
            if isinstance(validator, MinimumLengthValidator)
        ]
        return {"minLength": max(lengths, default=1)}


def timezone_field(**kwargs: Any) -> serializers.CharField:
    # validate_timezone here (not only in the model) so the schema states the zones as an enum.
    return serializers.CharField(max_length=64, validators=[validate_timezone], **kwargs)


class UserSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = ["id", "email", "name"]


class OrganizationSerializer(StrictModelSerializer):
    role = serializers.SerializerMethodField()

    class Meta:
        model = Organization
        fields = ["id", "slug", "name", "timezone", "currency", "role"]
        read_only_fields = ["id", "slug", "role"]

    def get_role(self, organization: Organization) -> str | None:
        roles: dict[int, str] = self.context.get("roles", {})
        return roles.get(organization.pk)


class OrganizationCreateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=100)
    timezone = timezone_field(default="Asia/Shanghai")
    # The model's choices (not a plain list), so the schema has one currency enum, not three.
    currency = serializers.ChoiceField(choices=Currency.choices, default=Currency.CNY)


class MeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    email = serializers.EmailField()
    name = serializers.CharField()
    language = serializers.ChoiceField(
        choices=Language.choices, help_text="The dashboard's language chosen by this person."
    )
    organization = OrganizationSerializer(allow_null=True)
    organizations = OrganizationSerializer(many=True)
    caught_mail_dir = serializers.CharField(
        allow_blank=True,
        help_text="Where this installation's mail catcher keeps the e-mails it sends (the demo); "
        "empty when e-mail really goes out.",
    )


class MeUpdateSerializer(StrictSerializer):
    """The signed-in person's own preferences (PATCH /me)."""

    language = serializers.ChoiceField(choices=Language.choices)


class LoginSerializer(StrictSerializer):
    email = serializers.EmailField()
    password = serializers.CharField(trim_whitespace=False, style={"input_type": "password"})


class SignupSerializer(StrictSerializer):
    email = serializers.EmailField()
    password = NewPasswordField(
        help_text="Checked by Django's password validators: at least the length stated, not a "
        "common password, not all digits, not like the e-mail or name.",
    )
    name = serializers.CharField(max_length=150)
    organization_name = serializers.CharField(max_length=100)
    timezone = timezone_field(default="Asia/Shanghai")
    currency = serializers.ChoiceField(choices=Currency.choices, default=Currency.CNY)
    language = serializers.ChoiceField(
        choices=Language.choices,
        default=Language.EN,
        help_text="The dashboard's language for the new account (the sign-up page's).",
    )


class SignupCreatedSerializer(serializers.Serializer):
    email = serializers.EmailField(help_text="Where the confirmation link was sent.")
    message = serializers.CharField()


class VerifyEmailSerializer(StrictSerializer):
    token = serializers.CharField(max_length=500)


class SetPasswordSerializer(StrictSerializer):
    uid = serializers.CharField(max_length=64)
    token = serializers.CharField(max_length=100)
    password = NewPasswordField()


class ResendVerificationSerializer(StrictSerializer):
    email = serializers.EmailField()


class SwitchOrganizationSerializer(StrictSerializer):
    organization = serializers.SlugField(help_text="The slug of one of your organizations.")


class MembershipSerializer(StrictModelSerializer):
    user = UserSerializer(read_only=True)

    class Meta:
        model = Membership
        fields = ["id", "user", "role", "created_at"]
        read_only_fields = ["id", "user", "created_at"]


class InvitationSerializer(StrictModelSerializer):
    invited_by = serializers.EmailField(source="invited_by.email", read_only=True, allow_null=True)

    class Meta:
        model = Invitation
        fields = [
            "id",
            "email",
            "role",
            "invited_by",
            "created_at",
            "expires_at",
            "accepted_at",
            "sent_at",
        ]
        read_only_fields = [
            "id",
            "invited_by",
            "created_at",
            "expires_at",
            "accepted_at",
            "sent_at",
        ]


class InvitationAcceptSerializer(StrictSerializer):
    token = serializers.CharField(max_length=100)
    name = serializers.CharField(max_length=150, required=False, default="")
    language = serializers.ChoiceField(
        choices=Language.choices,
        default=Language.EN,
        help_text="The dashboard's language for an account created here (the page's); "
        "ignored when signed in.",
    )
    password = NewPasswordField(required=False)


class ApiKeySerializer(StrictModelSerializer):
    scope = serializers.ChoiceField(choices=ApiKeyScope.choices, default=ApiKeyScope.READ)

    class Meta:
        model = ApiKey
        fields = ["id", "name", "prefix", "scope", "created_at", "last_used_at", "revoked_at"]
        read_only_fields = ["id", "prefix", "created_at", "last_used_at", "revoked_at"]


class ApiKeyCreatedSerializer(ApiKeySerializer):
    key = serializers.CharField(read_only=True, help_text="The full key. Shown once; store it now.")

    class Meta(ApiKeySerializer.Meta):
        fields = [*ApiKeySerializer.Meta.fields, "key"]


def me_payload(
    user: User, *, current: Organization | None, memberships: list[Membership]
) -> dict[str, Any]:
    roles = {m.organization_id: m.role for m in memberships}
    context = {"roles": roles}
    return {
        "id": user.pk,
        "email": user.email,
        "name": user.name,
        "language": user.language,
        "organization": OrganizationSerializer(current, context=context).data if current else None,
        "organizations": OrganizationSerializer(
            [m.organization for m in memberships], many=True, context=context
        ).data,
        "caught_mail_dir": settings.CAUGHT_MAIL_DIR,
    }
