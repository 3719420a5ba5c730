"""``manage.py metrics_prune_raw``: delete raw metric days past retention now."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from apps.metrics.services import metrics_raw_prune, raw_retention_days


class Command(BaseCommand):
    help = "Delete raw metric days older than METRICS_RAW_RETENTION_DAYS; rollups are kept."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=int, help="override the retention in days")

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["days"] or raw_retention_days()
        deleted = metrics_raw_prune(as_of=timezone.now(), retention_days=days)
        self.stdout.write(self.style.SUCCESS(f"Deleted {deleted} raw days older than {days} days."))
