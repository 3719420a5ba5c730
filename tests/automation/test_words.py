"""Automation's codes have words in both languages; its history reasons render per language."""

from __future__ import annotations

from django.utils import translation

from apps.automation import reasons
from apps.automation.wording import REASON_WORDS, reason_text
from apps.recommendations.messages import events


def test_every_code_has_words_in_english_and_chinese() -> None:
    codes = (
        set(reasons.UNAVAILABLE)
        | set(reasons.ACTION_REASONS)
        | {
            reasons.MEMORY_HELD_NOT_CONFIRMED,
            reasons.PLAN_EXISTS,
            reasons.NO_PLAN,
            reasons.PLAN_ENDED,
        }
    )
    assert codes <= set(REASON_WORDS)
    for code in codes:
        with translation.override("en"):
            english = reason_text(code)
        with translation.override("zh-hans"):
            chinese = reason_text(code)
        assert english != code, code
        assert chinese != english, code


def test_history_reasons_are_stored_in_english_and_shown_in_chinese() -> None:
    stored = events.automation_reason(events.AUTOMATION_STOPPED, instance="ins-abc123")
    assert stored == "Automation stopped ins-abc123."
    with translation.override("zh-hans"):
        assert events.event_reason(stored) == "自动化已停止 ins-abc123。"
        assert events.event_reason(events.AUTOMATION_ON) == "已开启自动执行。"
        told = events.automation_reason(
            events.AUTOMATION_TOLD, instance="ins-abc123", at="2026-11-17T08:00:00+00:00"
        )
        assert events.event_reason(told) == (
            "已通知负责人：自动化将于 2026-11-17T08:00:00+00:00 停止 ins-abc123。"
        )
    # A person's own words stay as they were written.
    with translation.override("zh-hans"):
        assert events.event_reason("Automation stopped it myself") == "Automation stopped it myself"
