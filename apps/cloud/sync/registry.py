"""Which function runs each kind of sync.

The app that owns a kind's data registers its function in its ``AppConfig.ready()``: cloud its
inventory and prices, metrics the Cloud Monitor ingest, billing the bills and the balance. The
runner looks the kind up here, so ``cloud`` needs to import none of the apps that depend on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from apps.cloud.models import CloudAccount
from apps.cloud.providers.tencent.client import TencentClient

Progress = Callable[[int, int], None]  # (requests done, requests planned)


@dataclass(frozen=True)
class SyncJob:
    """What the runner hands a sync function: one account, its client, the moment synced up to.

    ``progress`` also extends the lease, so a long sync calls it between units of work to stay
    owned; ``backfill_days`` bounds how far back a first sync reads.
    """

    account: CloudAccount
    client: TencentClient
    now: datetime
    backfill_days: int
    progress: Progress


SyncFunction = Callable[[SyncJob], Any]

_functions: dict[str, SyncFunction] = {}


def register(kind: str, function: SyncFunction) -> None:
    """Make ``function`` the sync of ``kind``. Registering the same function again is a no-op
    (``ready()`` may run twice); a second, different function for a kind is a wiring mistake."""
    current = _functions.get(kind)
    if current is not None and current is not function:
        raise ValueError(f"sync kind {kind!r} is already registered to {current.__qualname__}")
    _functions[kind] = function


def sync_function(kind: str) -> SyncFunction:
    try:
        return _functions[kind]
    except KeyError:
        raise ValueError(f"unknown sync kind {kind!r}") from None


def registered_kinds() -> set[str]:
    return set(_functions)
