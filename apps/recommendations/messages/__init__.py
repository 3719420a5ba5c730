"""The words of a recommendation, rendered in the active language from what the rules say.

The rules are pure and write no prose: a title, an explanation, each step, a risk and a formula
is a ``rules.Text`` (a message code and its parameters: names, ids, numbers as the rule formatted
them, nested texts and lists of them). Here each code has its English template, translated by
the Simplified Chinese catalog (``locale/zh_Hans``). A row stores its texts as JSON (``words``)
beside their English rendering (searching, webhooks), and every reader (the API, the digests)
renders them again in their own language.

One module of templates per rules module (``idle``, ``windows``, ``commitment``, ``sizing``,
``operations``), the shared ones (prices, hours, lists, weekdays, plans) in ``shared`` and the
titles, risks and kind labels in ``titles``: the catalog of a kind is read beside its rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.functional import Promise

from apps.recommendations.rules import Text

from . import commitment, idle, operations, shared, sizing, titles, windows
from .titles import KIND_LABELS

#: Message code -> its template (``%(name)s`` placeholders, the parameters' names). A plain
#: ``str`` is data only (names and numbers), the same in every language; the rest are
#: translated.
TEMPLATES: dict[str, str | Promise] = {
    **titles.TEMPLATES,
    **shared.TEMPLATES,
    **shared.WEEKDAYS,
    **{f"kind.{kind}": label for kind, label in KIND_LABELS.items()},
    **idle.TEMPLATES,
    **windows.TEMPLATES,
    **commitment.TEMPLATES,
    **sizing.TEMPLATES,
    **operations.TEMPLATES,
}

__all__ = [
    "KIND_LABELS",
    "TEMPLATES",
    "kind_label",
    "render",
    "render_json",
    "render_list_json",
    "text_from_json",
    "text_json",
]


def render(text: Text) -> str:
    """``text`` in the active language; KeyError for an unknown code or a missing parameter."""
    separator = shared.SEPARATORS.get(text.code)
    if separator is not None:
        return str(separator).join(str(_param(item)) for item in _items(text.params.get("items")))
    return str(TEMPLATES[text.code]) % {name: _param(value) for name, value in text.params.items()}


def _items(value: object) -> Sequence[object]:
    if not isinstance(value, list | tuple):
        raise TypeError(f"a list's items: {value!r}")
    return value


def _param(value: object) -> object:
    """A parameter as the template shows it: a nested text rendered, a list joined the way the
    language writes a list, a number or a name as the rule gave it."""
    if isinstance(value, Text):
        return render(value)
    if isinstance(value, list | tuple):
        return render(Text(shared.LIST_COMMA, {"items": value}))
    return value


def text_json(text: Text) -> dict[str, Any]:
    """``text`` as JSON (nested texts as objects, decimals as their digits)."""
    return {"code": text.code, "params": {name: _json(v) for name, v in text.params.items()}}


def _json(value: object) -> object:
    if isinstance(value, Text):
        return text_json(value)
    if isinstance(value, list | tuple):
        return [_json(item) for item in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)  # a Decimal: its digits, as the rule formatted it


def text_from_json(stored: Mapping[str, Any]) -> Text:
    """The ``Text`` a stored JSON text says (TypeError or KeyError where it is not one)."""
    return Text(str(stored["code"]), {n: _from_json(v) for n, v in dict(stored["params"]).items()})


def _from_json(value: object) -> object:
    if isinstance(value, Mapping):
        return text_from_json(value)
    if isinstance(value, list):
        return [_from_json(item) for item in value]
    return value


def render_json(stored: object, fallback: str) -> str:
    """A stored text in the active language; ``fallback`` (the stored English) when the row
    has none, or a code or a parameter is unknown (written by an older rule)."""
    if not isinstance(stored, Mapping) or stored.get("code") not in TEMPLATES:
        return fallback
    try:
        return render(text_from_json({"params": {}, **stored}))
    except (KeyError, TypeError, ValueError):
        return fallback


def render_list_json(stored: object, fallback: Sequence[str]) -> list[str]:
    """Stored texts (steps) in the active language; ``fallback`` where the row has none, item
    by item where one of them cannot be rendered."""
    if not isinstance(stored, list) or len(stored) != len(fallback):
        return list(fallback)
    return [render_json(text, english) for text, english in zip(stored, fallback, strict=True)]


def kind_label(kind: str) -> str:
    label = KIND_LABELS.get(kind)
    return str(label) if label is not None else kind
