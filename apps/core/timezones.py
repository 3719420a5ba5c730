"""The IANA time zones GPU Ledger accepts: those of the pinned ``tzdata`` package.

``zoneinfo.available_timezones()`` also walks the machine's own zoneinfo directory, so it
differs from host to host (``localtime``, an older or newer release); the API's schema states
this list as an enum, and the schema must depend on the code only. ``ZoneInfo`` loads every
name here on any machine, falling back to the package when the system lacks it.
"""

from __future__ import annotations

from importlib import resources

TIMEZONES: tuple[str, ...] = tuple(
    sorted(resources.files("tzdata").joinpath("zones").read_text(encoding="utf-8").split())
)
