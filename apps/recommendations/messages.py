"""The words of a recommendation, rendered in the active language from what the rules say.

The rules are pure and write no prose: a title is a ``rules.Text`` (a message code and its
parameters: names, ids, types). Here each code has its English template, translated by the
Simplified Chinese catalog (``locale/zh_Hans``); a row stores its texts as JSON (``words``)
beside the English rendering (searching, webhooks), and every reader (the API, the digests)
renders them again in their own language. The kinds' labels are here too.

Explanations, steps, risks and formulas are still written by the rules in English; they move
here the same way (a code per sentence), kind by kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.recommendations.rules import Text

#: Message code -> its template (``%(name)s`` placeholders, the parameters' names).
TEMPLATES = {
    "stop_idle.title": _("Stop idle %(name)s"),
    "idle_held.title": _("Idle but holding GPU memory: %(name)s"),
    "schedule.title": _("Stop %(name)s outside working hours"),
    "schedule.automate.title": _("Automate the night/weekend stop of %(name)s"),
    "night_downshift.title": _("Run %(name)s as %(target)s at night"),
    "fewer_instances.title": _("Stop %(stop)s of %(count)s %(type)s in %(region)s at night"),
    "subscription.title": _("Switch %(name)s to a monthly subscription"),
    "reserved_instance.title": _("Cover %(name)s with a reserved-instance voucher"),
    "spot.title": _("Run %(name)s's interruption-tolerant work on spot"),
    "downsize.title": _("Downsize %(name)s to %(target)s"),
    "upsize.title": _("Upsize %(name)s to %(target)s (GPU memory pressure)"),
    "upsize.no_larger_type.title": _(
        "%(name)s is short of GPU memory, and no larger %(family)s type exists"
    ),
    "data_pipeline.title": _("Fix the data pipeline feeding %(name)s"),
    "data_pipeline.check.title": _("Check whether the data pipeline holds back %(name)s"),
    "thermal.title": _("%(name)s runs hot"),
}

#: Kind -> its label (``rules.KINDS`` names them in English for the model's choices).
KIND_LABELS = {
    "stop_idle": _("Stop idle"),
    "idle_held": _("Idle, GPU memory held"),
    "schedule": _("Day/night schedule"),
    "night_downshift": _("Night downshift"),
    "subscription": _("Switch to monthly subscription"),
    "reserved_instance": _("Reserved-instance voucher"),
    "spot": _("Move to spot"),
    "downsize": _("Downsize"),
    "upsize": _("Upsize (memory pressure)"),
    "data_pipeline": _("Fix the data pipeline"),
    "thermal": _("Thermal alert"),
}


def render(text: Text) -> str:
    """``text`` in the active language."""
    return str(TEMPLATES[text.code]) % dict(text.params)


def text_json(text: Text) -> dict[str, Any]:
    return {"code": text.code, "params": dict(text.params)}


def render_json(stored: Mapping[str, Any] | None, fallback: str) -> str:
    """A stored text in the active language; ``fallback`` (the stored English) when the row
    has none or its code is unknown (written by an older rule)."""
    if not isinstance(stored, Mapping) or stored.get("code") not in TEMPLATES:
        return fallback
    try:
        return render(Text(stored["code"], stored.get("params") or {}))
    except (KeyError, TypeError, ValueError):
        return fallback


def kind_label(kind: str) -> str:
    label = KIND_LABELS.get(kind)
    return str(label) if label is not None else kind
