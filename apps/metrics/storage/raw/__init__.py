"""SQL for raw metric days, with a fast path for PostgreSQL and a portable one for SQLite.

``read`` holds the reads (the state a merge starts from, the fleet read), ``write`` the writes;
``keys`` what both share. Callers use the names below (``raw.fetch_state``, ``raw.read_into``...).
"""

from apps.metrics.storage.raw.keys import RECENT, SLOT_DTYPE, TABLE, is_postgresql
from apps.metrics.storage.raw.read import DayState, fetch_state, read_into, recent_keys
from apps.metrics.storage.raw.write import (
    delete_days_before,
    delete_recent,
    insert_days,
    lock_instances,
    update_days,
    upsert_recent,
)

__all__ = [
    "RECENT",
    "SLOT_DTYPE",
    "TABLE",
    "DayState",
    "delete_days_before",
    "delete_recent",
    "fetch_state",
    "insert_days",
    "is_postgresql",
    "lock_instances",
    "read_into",
    "recent_keys",
    "update_days",
    "upsert_recent",
]
