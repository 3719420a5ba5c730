"""Reactions to other apps' signals: fresh bills, metrics or analysis queue an evaluation.

Bills feed the budgets and the spend anomalies, metrics the thresholds; an analysis (idle
minutes) feeds everything. Evaluations are idempotent, so one per sync is harmless.
"""

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


def _enqueue(*, organization_id: int, parts: list[str] | None = None) -> None:
    from apps.alerts.tasks import evaluate

    evaluate.delay(organization_id, parts)


#: What a successful sync of each kind makes worth evaluating again.
PARTS_AFTER_SYNC: dict[str, list[str]] = {
    "bills": ["budgets", "anomalies"],
    "metrics": ["thresholds"],
}


def enqueue_after_sync(sender: object, *, organization_id: int, kind: str, **kwargs: Any) -> None:
    parts = PARTS_AFTER_SYNC.get(kind)
    if parts:
        transaction.on_commit(
            functools.partial(_enqueue, organization_id=organization_id, parts=parts)
        )
