from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"

    def ready(self) -> None:
        # Sign-ins, failures, lock-outs and sign-outs go to the audit log.
        from apps.accounts.audit import receivers  # noqa: F401
