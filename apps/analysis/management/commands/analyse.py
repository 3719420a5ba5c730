"""Analyse the last 14 days of an organization's instances now (what the nightly task does)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from apps.accounts.models import Organization
from apps.analysis import services


class Command(BaseCommand):
    help = "Classify phases, build profiles and price waste for an organization's last 14 days."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--organization", required=True, help="organization slug")

    def handle(self, *args: Any, **options: Any) -> None:
        organization = Organization.objects.filter(slug=options["organization"]).first()
        if organization is None:
            raise CommandError(f"No organization with slug {options['organization']!r}.")
        result = services.analysis_full_run(as_of=timezone.now(), organization_id=organization.pk)
        self.stdout.write(
            f"Analysed {result.instances} instances: {result.segments_inserted} phase segments, "
            f"{result.profiles_written} profiles, {result.off_windows} off windows."
        )
