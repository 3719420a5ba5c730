"""Evaluate the recommendation rules for an organization now (what runs after each analysis)."""

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from apps.accounts.models import Organization
from apps.recommendations import services


class Command(BaseCommand):
    help = "Turn an organization's analysis, bills and prices into stored recommendations."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--organization", required=True, help="organization slug")
        parser.add_argument(
            "--as-of", help="ISO 8601 date-time with offset to replay a moment (default: now)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        organization = Organization.objects.filter(slug=options["organization"]).first()
        if organization is None:
            raise CommandError(f"No organization with slug {options['organization']!r}.")
        as_of = timezone.now()
        if options.get("as_of"):
            try:
                as_of = dt.datetime.fromisoformat(options["as_of"])
            except ValueError:
                raise CommandError(
                    f"--as-of: not an ISO 8601 date-time: {options['as_of']!r}"
                ) from None
            if as_of.tzinfo is None:
                raise CommandError("--as-of: give a UTC offset, e.g. 2026-11-16T00:00:00+00:00")
        result = services.recommendations_run(organization=organization, as_of=as_of)
        self.stdout.write(
            f"{result.findings} findings: {result.created} new, {result.updated} updated, "
            f"{result.unchanged} unchanged, {result.resolved} resolved, "
            f"{result.reopened} reopened."
        )
