"""Signals the sync runner sends, so later apps can react without cloud importing them.

``sync_completed`` is sent by ``runner.sync_run`` after a sync succeeded and its state was
saved, with ``account_id``, ``organization_id`` and ``kind`` (a ``SyncKind`` value). A
receiver that enqueues work must do it with ``transaction.on_commit``.
"""

from django.dispatch import Signal

sync_completed = Signal()
