"""Re-encrypt every stored cloud secret with the newest FIELD_ENCRYPTION_KEY.

Key rotation: put the new key first in FIELD_ENCRYPTION_KEY (keeping the old one after it),
run this command, then remove the old key.
"""

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from apps.cloud.models import CloudAccount
from apps.core.crypto import reencrypt_str


class Command(BaseCommand):
    help = "Re-encrypt cloud account secrets with the first key of FIELD_ENCRYPTION_KEY."

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        accounts = CloudAccount.objects.select_for_update().only("pk", "secret_key_encrypted")
        for account in accounts:
            account.secret_key_encrypted = reencrypt_str(account.secret_key_encrypted)
            account.save(update_fields=["secret_key_encrypted", "updated_at"])
        self.stdout.write(f"Re-encrypted {len(accounts)} cloud account secret(s).")
