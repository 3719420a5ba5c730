"""Analyse every retained day of an organization's instances now, in this process."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from apps.accounts.models import Organization
from apps.analysis import batches, services


class Command(BaseCommand):
    help = (
        "Classify phases, build profiles and price waste for an organization's instances over "
        "every day whose metrics are retained (or the last --days)."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--organization", required=True, help="organization slug")
        parser.add_argument(
            "--days",
            type=int,
            default=None,
            help="days back from now (default: the raw metrics' retention)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        organization = Organization.objects.filter(slug=options["organization"]).first()
        if organization is None:
            raise CommandError(f"No organization with slug {options['organization']!r}.")
        days = batches.analysed_days() if options["days"] is None else options["days"]
        if days < 1:
            raise CommandError("--days must be at least 1.")
        result = services.analysis_full_run(
            as_of=timezone.now(), organization_id=organization.pk, days=days
        )
        self.stdout.write(
            f"Analysed {result.instances} instances over {days} days: "
            f"{result.segments_inserted} phase segments, "
            f"{result.profiles_written} profiles, {result.off_windows} off windows."
        )
