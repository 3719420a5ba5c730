"""``manage.py metrics_rebuild_rollups``: recompute hourly/daily rollups from the raw days."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.metrics.services import metrics_rollups_rebuild


def _day(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError as exc:
        raise CommandError(f"{value!r} is not a date (YYYY-MM-DD)") from exc


class Command(BaseCommand):
    help = "Recompute instance and project rollups from the raw metric days still stored."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--instance", type=int, action="append", dest="instance_ids",
                            help="instance id (repeatable); default: every instance")  # fmt: skip
        parser.add_argument("--since", help="first UTC day, YYYY-MM-DD")
        parser.add_argument("--until", help="last UTC day, YYYY-MM-DD")

    def handle(self, *args: Any, **options: Any) -> None:
        start = _day(options["since"]) if options["since"] else None
        end = _day(options["until"]) if options["until"] else None
        if start and end and end < start:
            raise CommandError("--until is before --since")
        hours = metrics_rollups_rebuild(
            instance_ids=options["instance_ids"], start_day=start, end_day=end
        )
        self.stdout.write(self.style.SUCCESS(f"Recomputed {hours} instance-hours."))
