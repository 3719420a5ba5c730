"""The rules' words as a reader sees them: rendered in a language (English by default)."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import translation

from apps.recommendations.messages import render
from apps.recommendations.rules import Text


def english(text: Text) -> str:
    with translation.override("en"):
        return render(text)


def english_list(texts: Sequence[Text]) -> list[str]:
    return [english(text) for text in texts]
