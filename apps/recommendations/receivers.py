"""Reactions to other apps' signals: a finished analysis queues the recommendation run."""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

from django.db import transaction


def enqueue_after_analysis(
    sender: object, *, organization_ids: list[int], as_of: dt.datetime, **kwargs: Any
) -> None:
    """Queue one recommendations run per analysed organization once the analysis commits."""
    for organization_id in organization_ids:
        transaction.on_commit(
            functools.partial(_enqueue, organization_id=organization_id, as_of=as_of.isoformat())
        )


def _enqueue(*, organization_id: int, as_of: str) -> None:
    from apps.recommendations.tasks import recommend

    recommend.delay(organization_id=organization_id, as_of=as_of)
