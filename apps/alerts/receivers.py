"""Reactions to other apps' signals: a finished analysis queues an alerts evaluation."""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

from django.db import transaction


def enqueue_after_analysis(
    sender: object, *, organization_ids: list[int], as_of: dt.datetime, **kwargs: Any
) -> None:
    """Evaluate every alert of each analysed organization once the analysis commits.

    Evaluated as of now, not the analysis' ``as_of``: thresholds read the latest minutes.
    """
    for organization_id in organization_ids:
        transaction.on_commit(functools.partial(_enqueue, organization_id=organization_id))


def _enqueue(*, organization_id: int) -> None:
    from apps.alerts.tasks import evaluate

    evaluate.delay(organization_id)
