"""Background recommendation runs: one organization, as of a moment (idempotent).

Queued after every analysis run (``receivers``) on the ``analysis`` queue: the rules read what
the analysis just wrote, and both are CPU work for the same workers. A run on the same data
changes nothing, so a redelivered message is harmless. A lost database connection is retried.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from celery import shared_task
from django.db import OperationalError
from django.utils import timezone

from apps.accounts.models import Organization
from apps.recommendations import services
from workers import queues
from workers.defaults import task_options


@shared_task(
    **task_options(
        name="recommendations.recommend", queue=queues.ANALYSIS, retry_on=(OperationalError,)
    )
)
def recommend(organization_id: int, as_of: str | None = None) -> dict:
    """Evaluate the rules for one organization and store the findings."""
    moment = timezone.now() if as_of is None else dt.datetime.fromisoformat(as_of)
    if moment.tzinfo is None:
        raise ValueError(f"as_of must carry a UTC offset, got {as_of!r}")
    organization = Organization.objects.filter(pk=organization_id).first()
    if organization is None:
        return {"skipped": "organization gone"}
    return dataclasses.asdict(services.recommendations_run(organization=organization, as_of=moment))
