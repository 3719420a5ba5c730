"""What a language walk reads on a page, and what it counts as a defect (tests/e2e/test_language_walk.py).

Two checks, on the text a reader sees (``document.body.innerText``, the page's title and the
``title``, ``aria-label``, ``placeholder`` and ``alt`` attributes):

- ``english_phrases``: in the Chinese dashboard, a run of three or more English words is a
  sentence nobody translated. A word is ASCII letters (an inner apostrophe or hyphen allowed);
  only words of two letters or more count towards the three, and a digit, a Chinese character,
  a tab (between table cells) or a line break ends the run. What is English in every language
  (names, units, commands) is taken out first, see ``ALLOWED``.
- ``raw_markers``: in either language, a catalog key shown instead of its words
  (``recommendations.detail.figures``, a plural's ``_other`` form, a ``{{placeholder}}``), a
  code name shown raw (``idle_gpu_util_p95_max_pct``), and ``undefined``/``NaN``/``null``/
  ``[object Object]``/``Invalid Date`` shown as text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

LOCALES = Path(__file__).resolve().parents[2] / "frontend" / "src" / "locales"

# --- the allow-list: English in every language --------------------------------------------
# Phrases taken out of the text before it is read for sentences. Each is English in the
# Chinese dashboard too, on purpose.
ALLOWED_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # The product's name.
    ("product name", re.compile(r"GPU Ledger")),
    # A Tencent Cloud CLI command (a recommendation's steps, in a code block) with its flags
    # and arguments, to the end of its line: the reader pastes it into a shell.
    ("tccli command", re.compile(r"\btccli\b[^\n]*")),
    # E-mail addresses (the signed-in person, members, recipients).
    ("e-mail address", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
    # Cloud instance ids and instance type names (``ins-3kx9…``, ``GN7.2XLARGE32``): the
    # cloud's own names, never translated.
    ("cloud id", re.compile(r"\bins-[0-9a-z]+\b")),
    ("instance type", re.compile(r"\b[A-Z]{1,4}\d[A-Z0-9]*\.[A-Z0-9]+\b")),
    # Addresses: a webhook's, the placeholder's example one.
    ("URL", re.compile(r"\bhttps?://[^\s\t]+")),
    # A browser's own name of itself (the audit log shows where a sign-in came from).
    ("user agent", re.compile(r"Mozilla/5\.0[^\n\t]*")),
    # A module or function a step names (``torch.utils.bottleneck``, ``tf.data``): code, with
    # dots and no spaces between its parts.
    ("code name", re.compile(r"(?<![\w.])[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+(?![\w.])")),
    # The language picker names each language in itself: "English" beside "简体中文".
    ("language name", re.compile(r"\bEnglish\b")),
]
# Words that are the same in both languages (units, currencies, acronyms a Chinese team
# writes in Latin letters): they never count towards a sentence.
ALLOWED_WORDS = frozenset(
    {
        "GPU",
        "GPUs",
        "CPU",
        "CNY",
        "USD",
        "GB",
        "GiB",
        "MB",
        "MiB",
        "API",
        "ID",
        "CSV",
        "FOCUS",
        "SMTP",
        "URL",
        "CVM",
        "UTC",
    }
)

_WORD = r"[A-Za-z]+(?:['’-][A-Za-z]+)*"
# What may stand between two words of one sentence: spaces and punctuation (the dot that joins
# a label's parts, "price · runtime components", too), never a tab (a table's cells), a line
# break (another block) or a digit.
_GAP = r"[ \u00a0,.;:!?'\"“”‘’()\[\]/&+·×–—-]+"
_RUN = re.compile(rf"{_WORD}(?:{_GAP}{_WORD})*")
_WORDS = re.compile(_WORD)


def without_allowed(text: str, extra_phrases: Iterable[str] = ()) -> str:
    """``text`` with the allow-listed phrases (and ``extra_phrases``: names from the data)
    replaced by a line break, so that they end a run rather than join two."""
    # Longest first: a project named "llm pretrain" before one named "llm".
    for phrase in sorted({p for p in extra_phrases if p.strip()}, key=len, reverse=True):
        text = text.replace(phrase, "\n")
    for _, pattern in ALLOWED_PATTERNS:
        text = pattern.sub("\n", text)
    return text


def english_phrases(text: str, extra_phrases: Iterable[str] = ()) -> list[str]:
    """The English sentences (runs of 3+ words of 2+ letters) in ``text``, in order, once each."""
    found: dict[str, None] = {}
    for match in _RUN.finditer(without_allowed(text, extra_phrases)):
        words = [w for w in _WORDS.findall(match.group()) if len(w) >= 2 and w not in ALLOWED_WORDS]
        if len(words) >= 3:
            found[" ".join(match.group().split())] = None
    return list(found)


# --- raw keys and placeholders ---------------------------------------------------------------


def _flatten(catalog: dict[str, Any], prefix: str = "") -> Iterator[str]:
    for key, value in catalog.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _flatten(value, f"{path}.")
        else:
            yield path


def catalog_namespaces() -> set[str]:
    """The catalog's top-level names (``recommendations``, ``shell``, …), in either language."""
    names: set[str] = set()
    for catalog in ("en.json", "zh-CN.json"):
        names |= set(json.loads((LOCALES / catalog).read_text()))
    return names


_KEYISH = re.compile(r"(?<![\w.@/-])([a-z][A-Za-z0-9]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?![\w@/-])")
_PLACEHOLDER = re.compile(r"\{\{[^{}]*\}\}|\$t\(")
# snake_case with 3+ parts: a field or threshold name (``idle_gpu_util_p95_max_pct``).
_CODE_NAME = re.compile(r"(?<![\w./-])[a-z][a-z0-9]*(?:_[a-z0-9]+){2,}(?![\w./-])")
# Tencent Cloud's bill component codes (``v_cvm_rootdisk``), printed beside the bill's own name of
# the part so that the reader finds it in their bill: the cloud's names, like ``ins-…``.
_BILL_COMPONENT = re.compile(r"s?v_[a-z0-9]+(?:_[a-z0-9]+)+")
_NOTHING = re.compile(r"(?<![\w.])(?:undefined|NaN|null)(?![\w.])|\[object Object\]|Invalid Date")


def raw_markers(text: str, namespaces: set[str], code: Iterable[str] = ()) -> list[str]:
    """Keys, placeholders, code names and "undefined"/"NaN"/"null" shown as text.

    A code name set as code (the text of a ``<code>`` element, ``code``) is shown on purpose:
    the settings print each threshold's API name beside its label and help."""
    found: dict[str, None] = {}
    as_code = {" ".join(item.split()) for item in code}
    for match in _KEYISH.finditer(text):
        key = match.group(1).rstrip(".")
        if key.split(".", 1)[0] in namespaces:
            found[f"key {key}"] = None
    for match in _CODE_NAME.finditer(text):
        name = match.group()
        if name not in as_code and not _BILL_COMPONENT.fullmatch(name):
            found[f"code name {name}"] = None
    for pattern, label in ((_PLACEHOLDER, "placeholder"), (_NOTHING, "value")):
        for match in pattern.finditer(text):
            found[f"{label} {match.group()}"] = None
    return list(found)


def strings_in(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string of a JSON document with its path (``action.steps[2]``)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings_in(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings_in(item, f"{path}[{index}]")
