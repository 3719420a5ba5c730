"""Signed, expiring e-mail verification links.

The errors are in the active language (the API's reader's, apps/api/language.py): the
verify-email page shows them as the server says them.

The token is signed with SECRET_KEY (django.core.signing) and carries the user id and the
address it was sent to, so it needs no table, and a link sent to an old address stops working
once the address changes. It expires after EMAIL_VERIFICATION_VALID_HOURS.
"""

from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.utils.translation import gettext as _

from apps.accounts.models import User

SALT = "accounts.verify-email"


class InvalidVerificationToken(Exception):
    """The link is malformed, tampered with, expired or no longer matches the account."""


def verification_token_make(user: User) -> str:
    return signing.dumps({"user": user.pk, "email": user.email}, salt=SALT, compress=True)


def verification_link(token: str) -> str:
    return f"{settings.PUBLIC_URL}/verify-email?token={token}"


def verification_token_user(token: str) -> User:
    """The account a valid token was issued for; raises InvalidVerificationToken otherwise."""
    max_age_seconds = settings.EMAIL_VERIFICATION_VALID_HOURS * 3600
    try:
        payload = signing.loads(token, salt=SALT, max_age=max_age_seconds)
    except signing.SignatureExpired as exc:
        raise InvalidVerificationToken(
            _("This link has expired. Sign in to have a new one sent.")
        ) from exc
    except signing.BadSignature as exc:
        raise InvalidVerificationToken(_("This link is not valid.")) from exc
    user = User.objects.filter(pk=payload.get("user"), email=payload.get("email")).first()
    if user is None:
        raise InvalidVerificationToken(_("This link is not valid."))
    return user
