"""Reads that scan many rows without PostgreSQL's JIT compiler.

PostgreSQL compiles a query to machine code when its estimated cost passes ``jit_above_cost``.
A dashboard's scan of a fleet's month of hour rows passes it, and the compilation costs more
than it saves (EXPLAIN ANALYZE, 1,000 instances, 600,000 hour rows: the hour-of-week sums
303 ms with JIT, of which 78 ms compiling, 162 ms without; the p95 of the utilization 372 ms,
299 ms without). ``jit_off`` turns it off for the queries run inside it only (``SET LOCAL``,
in a transaction), leaving the server's setting to the workers' long aggregations.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from django.db import connection, transaction


@contextlib.contextmanager
def jit_off() -> Iterator[None]:
    """Run the block's queries without JIT (PostgreSQL; elsewhere a no-op). ``SET LOCAL`` is
    not a write: the block stays a read. Inside a transaction no savepoint is taken (the
    setting then lasts to that transaction's end: only reads cost less without it)."""
    if connection.vendor != "postgresql":
        yield
        return
    with transaction.atomic(savepoint=False):
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL jit = off")
        yield
