from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"

    def ready(self) -> None:
        # Sign-ins, failures, lock-outs and sign-outs go to the audit log.
        # The per-account back-off counts wrong passwords and forgets them at a sign-in.
        from apps.accounts import lockout  # noqa: F401
        from apps.accounts.audit import receivers  # noqa: F401
