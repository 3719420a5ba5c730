"""The signed token of a one-click unsubscribe link (RFC 8058): it names one subscription.

Signed with the project's SECRET_KEY (Django's signing, a salt of its own), so it cannot be
forged or pointed at another subscription; it does not expire, because an unsubscribe link in
a months-old digest must still work. It only ever turns a digest off.
"""

from __future__ import annotations

from django.conf import settings
from django.core import signing

SALT = "digests.unsubscribe"


def unsubscribe_token_make(subscription_id: int) -> str:
    return signing.dumps({"subscription": subscription_id}, salt=SALT, compress=False)


def unsubscribe_token_read(token: str) -> int | None:
    """The subscription id the token names, or None for a token that is not ours."""
    try:
        payload = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        return None
    value = payload.get("subscription") if isinstance(payload, dict) else None
    return value if isinstance(value, int) else None


def unsubscribe_url(subscription_id: int) -> str:
    token = unsubscribe_token_make(subscription_id)
    return f"{settings.PUBLIC_URL}/api/v1/digests/unsubscribe?token={token}"
