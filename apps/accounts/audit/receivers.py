"""Sign-ins, failed sign-ins, lock-outs and sign-outs, recorded from the signals that say so.

Signing in happens in Django's auth machinery (``authenticate``, ``login``, ``logout``) and
django-axes, not in a service of ours, so their signals are where it is seen: every way in
(the API's sign-in, the admin site, an invitation or a confirmation link that signs in) is
recorded alike. A person is not one organization's: each entry is written to every
organization the account belongs to, so each one's owners see what happened to their member.
A failed attempt at an e-mail address no account has is kept without an organization (the
admin site shows it). The password is never recorded; Django's signal does not carry it.
"""

from __future__ import annotations

from typing import Any

from axes.signals import user_locked_out
from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest

from apps.accounts.audit import actions
from apps.accounts.audit.services import audit_record
from apps.accounts.lockout import REFUSED_ATTR
from apps.accounts.models import Organization, User


def _organizations_of(user: User | None) -> list[Organization | None]:
    if user is None or user.pk is None:
        return [None]
    organizations: list[Organization | None] = list(
        Organization.objects.filter(members=user).order_by("pk")
    )
    return organizations or [None]


def _account(email: str) -> User | None:
    return User.objects.filter(email=email.strip().lower()).first() if email else None


def sign_in_record(
    *,
    action: str,
    request: HttpRequest | None,
    email: str,
    user: User | None = None,
    details: dict[str, Any] | None = None,
) -> None:
    """One entry per organization of the account that ``email`` names (or of ``user``).

    Also the hook for any other lock-out than axes' (a per-account throttle): call it with
    ``action=actions.SIGN_IN_LOCKED_OUT``.
    """
    account = user if user is not None else _account(email)
    for organization in _organizations_of(account):
        audit_record(
            organization=organization,
            action=action,
            target=account,
            target_type="user",
            target_label=account.email if account is not None else email,
            actor=user,
            # A failed or refused attempt is made by whoever typed the address, not (known
            # to be) its owner: shown by the address typed, never linked to the account.
            actor_display=None if user is not None else email,
            details=details,
            request=request,
        )


@receiver(user_logged_in, dispatch_uid="audit_user_logged_in")
def _signed_in(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    if isinstance(user, User):
        sign_in_record(
            action=actions.SIGN_IN_SUCCEEDED, request=request, email=user.email, user=user
        )


@receiver(user_logged_out, dispatch_uid="audit_user_logged_out")
def _signed_out(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    if isinstance(user, User):
        sign_in_record(action=actions.SIGN_OUT, request=request, email=user.email, user=user)


@receiver(user_login_failed, dispatch_uid="audit_user_login_failed")
def _sign_in_failed(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
) -> None:
    email = str(credentials.get("email") or credentials.get("username") or "")
    account = _account(email)
    details: dict[str, Any] = {
        "email": email.strip().lower(),
        "reason": "unknown_email" if account is None else "refused",
    }
    # Set by axes once the address and e-mail are locked out (this attempt locked them, or
    # was refused because they were), and by the per-account back-off (apps/accounts/lockout.py)
    # when it refused the attempt without checking the password.
    if getattr(request, "axes_locked_out", False) or getattr(request, REFUSED_ATTR, False):
        details["locked_out"] = True
    sign_in_record(action=actions.SIGN_IN_FAILED, request=request, email=email, details=details)


@receiver(user_locked_out, dispatch_uid="audit_user_locked_out")
def _locked_out(
    sender: Any, request: HttpRequest | None, username: str | None, **kwargs: Any
) -> None:
    sign_in_record(
        action=actions.SIGN_IN_LOCKED_OUT,
        request=request,
        email=username or "",
        details={"email": (username or "").strip().lower()},
    )
