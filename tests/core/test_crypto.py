import pytest
from cryptography.fernet import Fernet

from apps.core.crypto import DecryptionError, decrypt_str, encrypt_str, reencrypt_str


def test_it_round_trips_a_secret_without_storing_it_in_clear() -> None:
    token = encrypt_str("my-secret-key")
    assert "my-secret-key" not in token
    assert decrypt_str(token) == "my-secret-key"


def test_it_rotates_keys_new_first_old_still_decrypts(settings) -> None:
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.FIELD_ENCRYPTION_KEY = old
    token = encrypt_str("s3cret")
    settings.FIELD_ENCRYPTION_KEY = f"{new},{old}"
    assert decrypt_str(token) == "s3cret"
    rotated = reencrypt_str(token)
    settings.FIELD_ENCRYPTION_KEY = new
    assert decrypt_str(rotated) == "s3cret"
    with pytest.raises(DecryptionError):
        decrypt_str(token)
