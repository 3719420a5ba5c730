"""Signals the cloud sends, so apps above it can react without the cloud importing them.

``sync_completed`` is sent by ``runner.sync_run`` after a sync succeeded and its state was
saved, with ``account_id``, ``organization_id`` and ``kind`` (a ``SyncKind`` value). A
receiver that enqueues work must do it with ``transaction.on_commit``.

``backfill_completed`` is sent once per cloud account, when the first sync of both its metrics
and its bills has succeeded (in whichever order, by the workers or ``manage.py backfill``), with
``account_id``, ``organization_id`` and ``as_of`` (the moment the data was synced up to). It is sent after the success is committed
(``transaction.on_commit``), so a receiver may enqueue work that reads the synced data: the
analysis does, so a new account's first costs need not wait for the hourly analysis tick.
Two workers finishing the two kinds at the same moment may both send it; receivers must be
idempotent (enqueueing an idempotent task is).

``instance_tags_changed`` is sent by the inventory sync, once its transaction has committed,
with ``organization``, when it created an instance or changed an instance's tags: what depends
on the tags and not on any bill line (why unallocated money has no project) is derived again.
"""

from django.dispatch import Signal

backfill_completed = Signal()
sync_completed = Signal()
instance_tags_changed = Signal()
