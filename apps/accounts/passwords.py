"""One-time set-password links, for an owner created by ``manage.py create_organization``.

Django's PasswordResetTokenGenerator signs the user id with the current password hash and last
login, so a link stops working once it has been used (the hash changes) and after
PASSWORD_RESET_TIMEOUT (Django's default: 3 days).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from apps.accounts.models import User


def set_password_link(user: User) -> str:
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    return f"{settings.PUBLIC_URL}/set-password?uid={uid}&token={token}"


def set_password_user(*, uid: str, token: str) -> User | None:
    """The user a valid, unused, unexpired link names; None otherwise."""
    try:
        pk = int(force_str(urlsafe_base64_decode(uid)))
    except (TypeError, ValueError, OverflowError, UnicodeDecodeError):
        return None
    user = User.objects.filter(pk=pk, is_active=True).first()
    if user is None or not default_token_generator.check_token(user, token):
        return None
    return user
