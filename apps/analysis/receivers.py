"""The analysis's answers to other apps' events (connected in ``AnalysisConfig.ready()``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction

from apps.cloud.models import Instance


def analyse_backfilled_organization(
    sender: Any, *, organization_id: int, as_of: datetime, **kwargs: Any
) -> None:
    """A cloud account's first metrics and bills are in: analyse the organization now.

    Without this a new customer would see no costs until the hourly tick. The incremental run
    analyses only instances with data newer than their last analysis (a new instance: all its
    retained days, so the whole history the backfill read gets its phases), in batches that
    each fit a task's time limit; it is cheap for the organization's other accounts and
    harmless if the signal comes twice.
    """
    from apps.analysis.tasks import analyse_recent

    instance_ids = list(
        Instance.objects.filter(organization_id=organization_id)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    if instance_ids:
        transaction.on_commit(
            lambda: analyse_recent.delay(instance_ids=instance_ids, as_of=as_of.isoformat())
        )
