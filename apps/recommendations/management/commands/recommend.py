"""Evaluate the recommendation rules for an organization now (what runs after each analysis)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from apps.accounts.models import Organization
from apps.recommendations import services


class Command(BaseCommand):
    help = "Turn an organization's analysis, bills and prices into stored recommendations."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--organization", required=True, help="organization slug")

    def handle(self, *args: Any, **options: Any) -> None:
        organization = Organization.objects.filter(slug=options["organization"]).first()
        if organization is None:
            raise CommandError(f"No organization with slug {options['organization']!r}.")
        result = services.recommendations_run(organization=organization, as_of=timezone.now())
        self.stdout.write(
            f"{result.findings} findings: {result.created} new, {result.updated} updated, "
            f"{result.unchanged} unchanged, {result.resolved} resolved, "
            f"{result.reopened} reopened."
        )
