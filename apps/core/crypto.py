"""Encryption at rest for secrets (cloud SecretKeys).

FIELD_ENCRYPTION_KEY holds one or more comma-separated Fernet keys. The first key encrypts;
every key decrypts, so a key is rotated by putting the new one first, running
``manage.py rotate_secrets`` (which re-encrypts with the first key) and then dropping the old one.
A DEBUG process without a key derives one from SECRET_KEY so the demo works out of the box.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


class DecryptionError(Exception):
    """The stored value was encrypted with a key that is no longer configured."""


def _configured_keys() -> list[str]:
    raw = settings.FIELD_ENCRYPTION_KEY
    if raw:
        return [key.strip() for key in raw.split(",") if key.strip()]
    digest = hashlib.sha256(("field-encryption:" + settings.SECRET_KEY).encode()).digest()
    return [base64.urlsafe_b64encode(digest).decode()]


@cache
def _fernet(keys: tuple[str, ...]) -> MultiFernet:
    try:
        return MultiFernet([Fernet(key.encode()) for key in keys])
    except ValueError as exc:
        raise ImproperlyConfigured(
            "FIELD_ENCRYPTION_KEY must be comma-separated Fernet keys "
            "(generate one with: python -c 'from cryptography.fernet import Fernet; "
            "print(Fernet.generate_key().decode())')"
        ) from exc


def encrypt_str(plaintext: str) -> str:
    return _fernet(tuple(_configured_keys())).encrypt(plaintext.encode()).decode()


def decrypt_str(token: str) -> str:
    try:
        return _fernet(tuple(_configured_keys())).decrypt(token.encode()).decode()
    except InvalidToken as exc:
        raise DecryptionError("secret cannot be decrypted with the configured keys") from exc


def reencrypt_str(token: str) -> str:
    """Re-encrypt ``token`` with the first (newest) key; used when rotating keys."""
    return _fernet(tuple(_configured_keys())).rotate(token.encode()).decode()
