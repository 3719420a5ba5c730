"""SQL of the analysis results: a fast path for PostgreSQL, a portable one for SQLite.

Every write is a diff: rows that would not change are not touched, so re-running an analysis on
the same data writes nothing (same ids, same bytes) and never bumps anyone's ``updated_at``.
Everything runs inside the caller's transaction. One module per result: ``segments``,
``phase_days``, ``profiles`` (profiles and watermarks).
"""

from apps.analysis.storage.phase_days import phase_days_replace
from apps.analysis.storage.profiles import profiles_store, watermarks_advance
from apps.analysis.storage.segments import segments_replace

__all__ = ["phase_days_replace", "profiles_store", "segments_replace", "watermarks_advance"]
