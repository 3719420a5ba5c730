"""Signals the analysis sends, so later apps can react without the analysis importing them.

``analysis_completed`` is sent by ``services.analysis_run`` once its results are stored, with
``organization_ids`` (the organizations whose instances it analysed) and ``as_of``. A receiver
that enqueues work must do it with ``transaction.on_commit``: the run may be inside a caller's
transaction, and a task must not read results before they are committed.
"""

from django.dispatch import Signal

analysis_completed = Signal()
