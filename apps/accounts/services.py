"""Writes for accounts: users, organizations, memberships, invitations, API keys.

Each service takes keyword-only arguments, runs in one transaction and raises
``django.core.exceptions.ValidationError`` with a message a user can act on.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from apps.accounts.audit import actions as audit_actions
from apps.accounts.audit.services import (
    api_key_display,
    audit_record,
    changes_between,
    stored_values,
)
from apps.accounts.models import (
    ApiKey,
    ApiKeyScope,
    Invitation,
    Language,
    Membership,
    Organization,
    User,
)
from apps.accounts.roles import Role

API_KEY_PREFIX = "glk_"


def _sha256(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _unique_slug(name: str) -> str:
    base = slugify(name)[:50] or "org"
    slug, n = base, 1
    while Organization.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


@transaction.atomic
def user_create(*, email: str, password: str | None, name: str = "", language: str = "en") -> User:
    email = email.strip().lower()
    if User.objects.filter(email=email).exists():
        raise ValidationError({"email": _("A user with this e-mail address already exists.")})
    if language not in Language.values:
        raise ValidationError({"language": f"{language!r} is not a language of the dashboard."})
    return User.objects.create_user(email=email, password=password, name=name, language=language)


def password_validate(*, password: str, email: str, name: str = "") -> None:
    """Django's password validators (length, common, numeric, similar to the e-mail or name),
    raised as an error of the ``password`` field."""
    try:
        validate_password(password, user=User(email=email, name=name))
    except ValidationError as exc:
        raise ValidationError({"password": exc.messages}) from exc


@transaction.atomic
def signup_create(
    *,
    email: str,
    password: str,
    name: str,
    organization_name: str,
    timezone_name: str = "Asia/Shanghai",
    currency: str = "CNY",
    language: str = "en",
) -> tuple[User, Organization]:
    """A self-service sign-up: the person, their organization (as owner), and the e-mail with
    the confirmation link (sent by the e-mail worker after commit). The account cannot sign
    in until the link is opened."""
    from apps.accounts.tasks import send_verification_email

    email = email.strip().lower()
    # Both problems at once, so the form shows every field to fix in one round.
    errors: dict[str, list[str]] = {}
    if User.objects.filter(email=email).exists():
        errors["email"] = [_("A user with this e-mail address already exists.")]
    try:
        password_validate(password=password, email=email, name=name)
    except ValidationError as exc:
        errors.update(exc.message_dict)
    if errors:
        raise ValidationError(errors)
    # The language the sign-up page was shown in (the browser's, or the one picked there) becomes the
    # account's, so the dashboard does not switch language at the first sign-in.
    user = user_create(email=email, password=password, name=name, language=language)
    user.email_verification_pending = True
    user.save(update_fields=["email_verification_pending"])
    organization = organization_create(
        name=organization_name, owner=user, timezone_name=timezone_name, currency=currency
    )
    transaction.on_commit(lambda: send_verification_email.delay(user.pk))
    return user, organization


def verification_email_resend(*, email: str) -> bool:
    """Send the confirmation link again to an account still waiting for it; False otherwise
    (unknown or confirmed addresses get no e-mail, and the caller is told nothing more)."""
    from apps.accounts.tasks import send_verification_email

    user = User.objects.filter(email=email.strip().lower(), email_verification_pending=True).first()
    if user is None:
        return False
    transaction.on_commit(lambda: send_verification_email.delay(user.pk))
    return True


@transaction.atomic
def password_set(*, user: User, password: str) -> User:
    """Set a password from a one-time link: validated, and the address counts as confirmed
    (the link reached the person through the operator who created the account)."""
    password_validate(password=password, email=user.email, name=user.name)
    user.set_password(password)
    user.email_verification_pending = False
    user.save(update_fields=["password", "email_verification_pending"])
    return user


@transaction.atomic
def email_verify(*, user: User) -> User:
    """Confirm the address; a second use of the link is refused, so it cannot sign in again."""
    updated = User.objects.filter(pk=user.pk, email_verification_pending=True).update(
        email_verification_pending=False
    )
    if not updated:
        raise ValidationError({"token": _("This address is confirmed already: sign in.")})
    user.email_verification_pending = False
    return user


@transaction.atomic
def organization_create(
    *,
    name: str,
    owner: User,
    slug: str | None = None,
    timezone_name: str = "Asia/Shanghai",
    currency: str = "CNY",
) -> Organization:
    organization = Organization(
        name=name, slug=slug or _unique_slug(name), timezone=timezone_name, currency=currency
    )
    organization.full_clean()
    organization.save()
    Membership.objects.create(organization=organization, user=owner, role=Role.OWNER)
    audit_record(
        organization=organization,
        action=audit_actions.ORGANIZATION_CREATED,
        target=organization,
        details={"name": name, "timezone": timezone_name, "currency": currency},
        # A sign-up creates the organization before anyone is signed in: its owner did.
        actor_fallback=owner,
    )
    return organization


@transaction.atomic
def user_update_preferences(*, user: User, language: str) -> User:
    """Store the person's own dashboard preferences (today the language)."""
    user.language = language
    user.full_clean(validate_unique=False)
    user.save(update_fields=["language"])
    return user


@transaction.atomic
def organization_update(*, organization: Organization, **changes: str) -> Organization:
    before = stored_values(organization, changes)
    for field, value in changes.items():
        setattr(organization, field, value)
    organization.full_clean()
    organization.save()
    changed = changes_between(before, changes)
    if changed:
        audit_record(
            organization=organization,
            action=audit_actions.ORGANIZATION_UPDATED,
            target=organization,
            details={"changes": changed},
        )
    return organization


def _ensure_an_owner_remains(membership: Membership) -> None:
    other_owners = (
        Membership.objects.for_organization(membership.organization)
        .filter(role=Role.OWNER)
        .exclude(pk=membership.pk)
        .select_for_update()
    )
    if membership.role == Role.OWNER and not other_owners.exists():
        raise ValidationError({"role": _("An organization needs at least one owner.")})


@transaction.atomic
def membership_update_role(*, membership: Membership, role: str, actor_role: str) -> Membership:
    if Role.OWNER in (role, membership.role) and actor_role != Role.OWNER:
        raise ValidationError({"role": _("Only an owner can grant or take away the owner role.")})
    if role != Role.OWNER:
        _ensure_an_owner_remains(membership)
    old_role = membership.role
    membership.role = role
    membership.save(update_fields=["role", "updated_at"])
    if old_role != role:
        audit_record(
            organization=membership.organization,
            action=audit_actions.MEMBER_ROLE_CHANGED,
            target=membership,
            target_label=membership.user.email,
            details={"changes": {"role": {"old": old_role, "new": role}}},
        )
    return membership


@transaction.atomic
def membership_delete(*, membership: Membership, actor_role: str) -> None:
    if membership.role == Role.OWNER and actor_role != Role.OWNER:
        raise ValidationError({"role": _("Only an owner can remove an owner.")})
    _ensure_an_owner_remains(membership)
    audit_record(
        organization=membership.organization,
        action=audit_actions.MEMBER_REMOVED,
        target=membership,
        target_label=membership.user.email,
        details={"email": membership.user.email, "role": membership.role},
    )
    membership.delete()


@transaction.atomic
def invitation_create(
    *, organization: Organization, email: str, role: str, invited_by: User | None
) -> Invitation:
    """Create an invitation and e-mail it (after commit, by the e-mail worker)."""
    from apps.accounts.tasks import send_invitation_email

    email = email.strip().lower()
    if Membership.objects.for_organization(organization).filter(user__email=email).exists():
        raise ValidationError({"email": _("This person is already a member.")})
    if Invitation.objects.for_organization(organization).pending().filter(email=email).exists():
        raise ValidationError({"email": _("This person already has a pending invitation.")})
    token = secrets.token_urlsafe(32)
    invitation = Invitation.objects.create(
        organization=organization,
        email=email,
        role=role,
        invited_by=invited_by,
        token_hash=_sha256(token),
        expires_at=timezone.now() + timedelta(days=settings.INVITATION_VALID_DAYS),
    )
    audit_record(
        organization=organization,
        action=audit_actions.INVITATION_CREATED,
        target=invitation,
        target_label=email,
        details={"email": email, "role": role},
    )
    transaction.on_commit(lambda: send_invitation_email.delay(invitation.pk, token))
    return invitation


def invitation_by_token(token: str) -> Invitation | None:
    return (
        Invitation.objects.pending()
        .select_related("organization")
        .filter(token_hash=_sha256(token))
        .first()
    )


@transaction.atomic
def invitation_accept(*, token: str, user: User) -> Membership:
    invitation = invitation_by_token(token)
    if invitation is None:
        raise ValidationError({"token": _("This invitation is invalid, used or expired.")})
    if invitation.email != user.email:
        raise ValidationError(
            {"token": _("This invitation was sent to %(email)s.") % {"email": invitation.email}}
        )
    invitation.accepted_at = timezone.now()
    invitation.save(update_fields=["accepted_at", "updated_at"])
    membership, joined = Membership.objects.get_or_create(
        organization=invitation.organization, user=user, defaults={"role": invitation.role}
    )
    audit_record(
        organization=invitation.organization,
        action=audit_actions.INVITATION_ACCEPTED,
        target=invitation,
        target_label=invitation.email,
        details={"email": invitation.email, "role": invitation.role},
        actor=user,
    )
    if joined:
        audit_record(
            organization=invitation.organization,
            action=audit_actions.MEMBER_JOINED,
            target=membership,
            target_label=user.email,
            details={"email": user.email, "role": membership.role},
            actor=user,
        )
    return membership


@transaction.atomic
def invitation_revoke(*, invitation: Invitation) -> None:
    audit_record(
        organization=invitation.organization,
        action=audit_actions.INVITATION_REVOKED,
        target=invitation,
        target_label=invitation.email,
        details={"email": invitation.email, "role": invitation.role},
    )
    invitation.delete()


@transaction.atomic
def invitation_send_claim(*, invitation_id: int) -> Invitation | None:
    """Claim an invitation's one e-mail: the invitation (with its organization and inviter), or
    None when it is sent already or gone.

    The conditional UPDATE is the claim, so a duplicate task message or a second worker cannot
    send it twice. It commits before the caller sends: call it outside a transaction.
    """
    claimed = Invitation.objects.filter(pk=invitation_id, sent_at__isnull=True).update(
        sent_at=timezone.now()
    )
    if not claimed:
        return None
    return Invitation.objects.select_related("organization", "invited_by").get(pk=invitation_id)


@transaction.atomic
def invitation_send_release(*, invitation_id: int) -> None:
    """Give back a claim whose send failed, so the retry can claim it again."""
    Invitation.objects.filter(pk=invitation_id).update(sent_at=None)


@transaction.atomic
def invitations_purge_expired() -> int:
    """Delete the invitations that expired unaccepted; how many."""
    deleted, _ = Invitation.objects.filter(
        accepted_at__isnull=True, expires_at__lt=timezone.now()
    ).delete()
    return deleted


@transaction.atomic
def api_key_create(
    *, organization: Organization, name: str, scope: str, created_by: User | None
) -> tuple[ApiKey, str]:
    """Create an API key; the returned plain key is never stored and cannot be shown again."""
    if scope not in ApiKeyScope.values:
        raise ValidationError({"scope": f"Scope must be one of {', '.join(ApiKeyScope.values)}."})
    while True:
        prefix = secrets.token_hex(4)
        if not ApiKey.objects.filter(prefix=prefix).exists():
            break
    raw_key = (
        f"{API_KEY_PREFIX}{prefix}_{secrets.token_urlsafe(32).replace('-', 'A').replace('_', 'z')}"
    )
    api_key = ApiKey.objects.create(
        organization=organization,
        name=name,
        prefix=prefix,
        key_hash=_sha256(raw_key),
        scope=scope,
        created_by=created_by,
    )
    audit_record(
        organization=organization,
        action=audit_actions.API_KEY_CREATED,
        target=api_key,
        target_label=api_key_display(api_key),
        details={"name": name, "scope": scope, "prefix": prefix},
    )
    return api_key, raw_key


@transaction.atomic
def api_key_revoke(*, api_key: ApiKey) -> ApiKey:
    if api_key.revoked_at is None:
        api_key.revoked_at = timezone.now()
        api_key.save(update_fields=["revoked_at", "updated_at"])
        audit_record(
            organization=api_key.organization,
            action=audit_actions.API_KEY_REVOKED,
            target=api_key,
            target_label=api_key_display(api_key),
            details={"name": api_key.name, "scope": api_key.scope, "prefix": api_key.prefix},
        )
    return api_key


LAST_USED_RESOLUTION = timedelta(minutes=1)


def api_key_authenticate(raw_key: str) -> ApiKey | None:
    """Return the active key matching ``raw_key``, recording its use (at most once a minute)."""
    if not raw_key.startswith(API_KEY_PREFIX):
        return None
    prefix = raw_key[len(API_KEY_PREFIX) :].split("_", 1)[0]
    api_key = ApiKey.objects.select_related("organization").filter(prefix=prefix).first()
    if api_key is None or api_key.revoked_at is not None:
        return None
    if not secrets.compare_digest(api_key.key_hash, _sha256(raw_key)):
        return None
    now = timezone.now()
    if api_key.last_used_at is None or now - api_key.last_used_at > LAST_USED_RESOLUTION:
        # A conditional update, so concurrent requests do not pile up writes.
        ApiKey.objects.filter(pk=api_key.pk).update(last_used_at=now)
        api_key.last_used_at = now
    return api_key
