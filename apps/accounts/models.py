"""Users, organizations, memberships, invitations and API keys."""

from __future__ import annotations

from typing import ClassVar

from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from apps.accounts.roles import Role
from apps.core.models import OrganizationQuerySet, OrganizationScopedModel, TimestampedModel
from apps.core.timezones import TIMEZONES


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def create_user(self, email: str, password: str | None = None, **extra: object) -> User:
        if not email:
            raise ValueError("An e-mail address is required")
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **extra: object) -> User:
        extra.setdefault("is_staff", True)
        extra.setdefault("is_superuser", True)
        return self.create_user(email, password, **extra)


class Language(models.TextChoices):
    # The teams renting Tencent GPUs mostly read Chinese. Django's language codes: the dashboard
    # ships a catalog for each, e-mails (digests, alerts) render under translation.override.
    EN = "en", "English"
    ZH_HANS = "zh-hans", "简体中文"


class User(AbstractBaseUser, PermissionsMixin):
    """A person; logs in with an e-mail address (stored lower-case, unique)."""

    email = models.EmailField(unique=True)
    name = models.CharField(max_length=150, blank=True)
    is_active = models.BooleanField(default=True)
    is_staff = models.BooleanField(default=False)
    # Set for a self-service sign-up until the person opens the e-mailed link; such an account
    # cannot sign in yet. Everyone else (invited, created by an operator) is trusted as is.
    email_verification_pending = models.BooleanField(default=False)
    # The language of the dashboard on every browser (the browser's own is used only until they
    # choose one) and of what is written to this person (e-mailed digests and alerts).
    language = models.CharField(max_length=8, choices=Language.choices, default=Language.EN)
    date_joined = models.DateTimeField(default=timezone.now)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []

    def __str__(self) -> str:
        return self.email


TIMEZONE_SET = frozenset(TIMEZONES)


def validate_timezone(value: str) -> None:
    # The schema states TIMEZONES as an enum (apps/api/schema.py): one list for both.
    if value not in TIMEZONE_SET:
        raise ValidationError(f"{value!r} is not a known IANA timezone (e.g. Asia/Shanghai).")


class Currency(models.TextChoices):
    # Tencent's China site bills in CNY, the international site in USD.
    CNY = "CNY", "Chinese yuan"
    USD = "USD", "US dollar"


class Organization(TimestampedModel):
    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=60, unique=True)
    timezone = models.CharField(
        max_length=64, default="Asia/Shanghai", validators=[validate_timezone]
    )
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.CNY)
    members = models.ManyToManyField(User, through="Membership", related_name="organizations")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(OrganizationScopedModel):
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.VIEWER)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "user"], name="membership_unique_user")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.organization} as {self.role}"


class InvitationQuerySet(OrganizationQuerySet):
    def pending(self) -> InvitationQuerySet:
        return self.filter(accepted_at__isnull=True, expires_at__gt=timezone.now())


class Invitation(OrganizationScopedModel):
    """An e-mailed invitation to join an organization; the token is stored only as a hash."""

    email = models.EmailField()
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.VIEWER)
    token_hash = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(User, null=True, on_delete=models.SET_NULL, related_name="+")
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    # Set by the e-mail task once the message was handed to the mail server.
    sent_at = models.DateTimeField(null=True, blank=True)

    objects: ClassVar = InvitationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Invitation of {self.email} to {self.organization}"


class ApiKeyScope(models.TextChoices):
    READ = "read", "Read only"
    WRITE = "write", "Read and write"
    # For the on-instance agent: sends GPU samples and work counters, reads nothing.
    INGEST = "ingest", "Agent ingest only"


class ApiKey(OrganizationScopedModel):
    """A bearer key for finance tooling: ``glk_<prefix>_<secret>``, stored as prefix + SHA-256.

    The key has 190+ bits of randomness, so a fast hash is enough: no dictionary can find it,
    and authentication stays cheap on every request.
    """

    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=8, unique=True)
    key_hash = models.CharField(max_length=64)
    scope = models.CharField(max_length=8, choices=ApiKeyScope.choices, default=ApiKeyScope.READ)
    created_by = models.ForeignKey(User, null=True, on_delete=models.SET_NULL, related_name="+")
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix})"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class SignInThrottle(models.Model):
    """Failed sign-ins at one e-mail address, from any client address: the per-account
    back-off of apps/accounts/lockout.py. Keyed by the address typed, whether an account has
    it or not, so that the answers tell nobody which addresses have accounts."""

    email = models.CharField(max_length=320, unique=True)
    # Wrong passwords since the last sign-in that got through (or the last quiet day).
    failures = models.PositiveIntegerField(default=0)
    # Lock-outs in a row: the back-off's exponent.
    lockouts = models.PositiveIntegerField(default=0)
    last_failure_at = models.DateTimeField(db_index=True)
    locked_until = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.email}: {self.failures} failures, {self.lockouts} lock-outs"


# The audit log's model lives in its own module of this app (apps/accounts/audit/).
from apps.accounts.audit.models import AuditEntry  # noqa: E402

__all__ = [
    "ApiKey",
    "ApiKeyScope",
    "AuditEntry",
    "Currency",
    "Invitation",
    "Language",
    "Membership",
    "Organization",
    "SignInThrottle",
    "User",
]
