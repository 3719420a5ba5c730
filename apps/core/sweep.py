"""Taking back deliveries no task will send: what the digests' and the alerts' sweeps share.

Both keep a delivery row per message with a status; a beat sweep finds the rows no task will
send (``unsent``), records the ones too old to matter as failed and takes the others back to
pending, one conditional UPDATE each, so two sweeps at once take a row once.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import Model, Q


def deliveries_take_back(
    model: type[Model],
    *,
    unsent: Q,
    recent: Q,
    now: dt.datetime,
    failed: Any,
    pending: Any,
    gave_up: str,
    reset: dict[str, Any] | None = None,
) -> list[int]:
    """Record the ``unsent`` rows outside ``recent`` as ``failed`` (with ``gave_up`` as their
    error when they have none), take the recent ones back to ``pending`` (with ``reset``);
    returns the ids taken back, for the caller to queue once its transaction commits."""
    rows = model._default_manager.all()
    expired = rows.filter(unsent & ~recent)
    expired.filter(error="").update(error=gave_up)
    expired.update(status=failed, retryable=False, updated_at=now)
    taken = []
    for pk in rows.filter(unsent & recent).values_list("pk", flat=True):
        if rows.filter(unsent & recent, pk=pk).update(
            status=pending, retryable=False, updated_at=now, **(reset or {})
        ):
            taken.append(pk)
    return taken
