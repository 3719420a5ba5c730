"""Create an organization and its owner, for self-hosted installations (no sign-up needed).

    manage.py create_organization --owner ops@example.com --name "ML Lab" \\
        [--timezone Europe/Berlin] [--currency USD] [--password-file PATH]

The owner is created if missing. Their password comes from ``--password-file`` (first line)
or the ``OWNER_PASSWORD`` environment variable, checked by Django's password validators;
without either, the command prints a one-time set-password link (nothing is ever prompted,
so it works in scripts and containers). An existing user keeps their password.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import validate_email
from django.db import transaction

from apps.accounts import services
from apps.accounts.models import Currency, User, validate_timezone
from apps.accounts.passwords import set_password_link

PASSWORD_ENV = "OWNER_PASSWORD"


def _messages(error: ValidationError) -> str:
    if hasattr(error, "error_dict"):
        return "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in error.message_dict.items())
    return " ".join(error.messages)


class Command(BaseCommand):
    help = "Create an organization and its owner (the user is created if missing)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--owner", required=True, help="e-mail address of the owner")
        parser.add_argument("--name", required=True, help="organization name")
        parser.add_argument("--owner-name", default="", help="the owner's display name")
        parser.add_argument("--timezone", default="Asia/Shanghai", help="IANA timezone")
        parser.add_argument("--currency", default=Currency.CNY, help="CNY or USD")
        parser.add_argument(
            "--password-file",
            type=Path,
            help=f"file whose first line is the new owner's password (or set ${PASSWORD_ENV})",
        )

    def _password(self, options: dict[str, Any]) -> str | None:
        path: Path | None = options["password_file"]
        if path is not None:
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except OSError as exc:
                raise CommandError(f"Cannot read --password-file {path}: {exc.strerror}.") from exc
            if not lines or not lines[0]:
                raise CommandError(f"--password-file {path} is empty.")
            return lines[0]
        return os.environ.get(PASSWORD_ENV) or None

    def handle(self, *args: Any, **options: Any) -> None:
        email = options["owner"].strip().lower()
        name = options["name"].strip()
        try:
            validate_email(email)
        except ValidationError as exc:
            raise CommandError(f"--owner {options['owner']!r} is not an e-mail address.") from exc
        if not name:
            raise CommandError("--name must not be blank.")
        try:
            validate_timezone(options["timezone"])
        except ValidationError as exc:
            raise CommandError(f"--timezone: {_messages(exc)}") from exc
        if options["currency"] not in Currency.values:
            raise CommandError(f"--currency must be one of {', '.join(Currency.values)}.")
        password = self._password(options)

        try:
            with transaction.atomic():
                user = User.objects.filter(email=email).first()
                created = user is None
                if user is None:
                    if password is not None:
                        services.password_validate(
                            password=password, email=email, name=options["owner_name"]
                        )
                    user = services.user_create(
                        email=email, password=password, name=options["owner_name"]
                    )
                organization = services.organization_create(
                    name=name,
                    owner=user,
                    timezone_name=options["timezone"],
                    currency=options["currency"],
                )
        except ValidationError as exc:
            raise CommandError(_messages(exc)) from exc

        self.stdout.write(
            self.style.SUCCESS(
                f"Created organization {organization.name!r} (slug {organization.slug}, "
                f"{organization.timezone}, {organization.currency}), owned by {user.email}."
            )
        )
        if not created:
            self.stdout.write(f"{user.email} existed already and keeps their password.")
            if password is not None:
                self.stderr.write("The given password was not used (the user exists).")
        elif password is None:
            valid_hours = settings.PASSWORD_RESET_TIMEOUT // 3600
            self.stdout.write(
                f"Set the owner's password with this one-time link (valid {valid_hours} hours):\n"
                f"  {set_password_link(user)}"
            )
        else:
            self.stdout.write(f"{user.email} can sign in with the given password.")
