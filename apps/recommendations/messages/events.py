"""The reasons GPU Ledger itself writes into a recommendation's history (a run found it, saw it
again, lost it; an action without a reason of its own). They are stored in English, like every
reason a person types; the API shows these in the reader's language (``event_reason``), a
person's own words as they were written."""

from __future__ import annotations

import datetime as dt
import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

FOUND = gettext_noop("Found.")
CAME_BACK = gettext_noop("The finding came back.")
SEEN_AGAIN = gettext_noop("The finding is seen again.")
SNOOZE_ENDED = gettext_noop("Snooze ended.")
NO_LONGER_SEEN = gettext_noop("The finding is no longer seen.")
GONE = gettext_noop("The finding is gone.")
ACCEPTED = gettext_noop("Accepted.")
REOPENED = gettext_noop("Reopened.")
_SYSTEM = frozenset({FOUND, CAME_BACK, SEEN_AGAIN, SNOOZE_ENDED, NO_LONGER_SEEN, GONE})
_DEFAULTS = frozenset({ACCEPTED, REOPENED})
_SNOOZED = "Snoozed until %(until)s."
_SNOOZED_STORED = re.compile(r"^Snoozed until (?P<until>\S+)\.$")


def snoozed_until(until: dt.datetime) -> str:
    """The stored reason of a snooze given without one."""
    return _SNOOZED % {"until": until.isoformat()}


def event_reason(stored: str) -> str:
    """A history entry's reason in the active language: GPU Ledger's own in the catalog's
    words, a person's as written."""
    if stored in _SYSTEM or stored in _DEFAULTS:
        return _(stored)
    snoozed = _SNOOZED_STORED.match(stored)
    if snoozed is not None and _is_moment(snoozed["until"]):
        return _(_SNOOZED) % {"until": snoozed["until"]}
    return stored


def _is_moment(text: str) -> bool:
    try:
        dt.datetime.fromisoformat(text)
    except ValueError:
        return False
    return True
