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

# Automation (apps.automation) carrying out an accepted recommendation: its plan's changes, and
# each stop, start, skip and failure on one instance (its cloud id; ``at``: an ISO moment).
AUTOMATION_ON = gettext_noop("Automation turned on.")
AUTOMATION_PAUSED = gettext_noop("Automation paused.")
AUTOMATION_RESUMED = gettext_noop("Automation resumed.")
AUTOMATION_ENDED = gettext_noop("Automation ended.")
AUTOMATION_CHANGED = gettext_noop("Automation's holidays changed.")
AUTOMATION_STOPPED = gettext_noop("Automation stopped %(instance)s.")
AUTOMATION_STARTED = gettext_noop("Automation started %(instance)s.")
AUTOMATION_ALREADY = gettext_noop("%(instance)s was already in the state automation wanted.")
AUTOMATION_BUSY = gettext_noop("Automation did not stop %(instance)s: it was busy.")
AUTOMATION_OPTED_OUT = gettext_noop(
    "Automation did not touch %(instance)s: it is tagged gpu-ledger:automation=off."
)
AUTOMATION_NO_METRICS = gettext_noop("Automation did not stop %(instance)s: no recent GPU metrics.")
AUTOMATION_SKIPPED = gettext_noop("Automation skipped an action on %(instance)s.")
AUTOMATION_START_RETRY = gettext_noop("Automation could not start %(instance)s and retries.")
AUTOMATION_FAILED = gettext_noop("Automation gave up on %(instance)s.")
AUTOMATION_TOLD = gettext_noop("The owners were told that automation stops %(instance)s at %(at)s.")
_AUTOMATION_PLAIN = frozenset(
    {AUTOMATION_ON, AUTOMATION_PAUSED, AUTOMATION_RESUMED, AUTOMATION_ENDED, AUTOMATION_CHANGED}
)
_AUTOMATION_TEMPLATES = (
    AUTOMATION_STOPPED,
    AUTOMATION_STARTED,
    AUTOMATION_ALREADY,
    AUTOMATION_BUSY,
    AUTOMATION_OPTED_OUT,
    AUTOMATION_NO_METRICS,
    AUTOMATION_SKIPPED,
    AUTOMATION_START_RETRY,
    AUTOMATION_FAILED,
    AUTOMATION_TOLD,
)


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"%\((\w+)\)s", template)
    out = "".join(
        re.escape(part) if i % 2 == 0 else f"(?P<{part}>\\S+?)" for i, part in enumerate(parts)
    )
    return re.compile(f"^{out}$")


_AUTOMATION_STORED = tuple((template, _pattern(template)) for template in _AUTOMATION_TEMPLATES)


def automation_reason(template: str, **values: str) -> str:
    """The stored (English) reason of an automation event: one of the templates above."""
    if template not in _AUTOMATION_TEMPLATES:
        raise ValueError(f"not an automation reason: {template!r}")
    return template % values


def snoozed_until(until: dt.datetime) -> str:
    """The stored reason of a snooze given without one."""
    return _SNOOZED % {"until": until.isoformat()}


def event_reason(stored: str) -> str:
    """A history entry's reason in the active language: GPU Ledger's own in the catalog's
    words, a person's as written."""
    if stored in _SYSTEM or stored in _DEFAULTS or stored in _AUTOMATION_PLAIN:
        return _(stored)
    for template, pattern in _AUTOMATION_STORED:
        matched = pattern.match(stored)
        if matched is not None:
            return _(template) % matched.groupdict()
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
