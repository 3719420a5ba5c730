"""Every word a finding says, of every kind and variant, rendered in Simplified Chinese and in
English: no missing code or parameter, no English sentence in Chinese, the stored English equal
to the words rendered again, and each saving recomputed from its formula's own numbers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.utils import translation
from django.utils.functional import Promise

from apps.recommendations import messages, services
from apps.recommendations.messages import TEMPLATES, render, render_json, render_list_json
from apps.recommendations.rules import Finding, Text
from tests.recommendations.gallery import gallery

GALLERY = gallery()
CJK = re.compile(r"[\u4e00-\u9fff]")
CJK_OR_FULL_WIDTH = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
# A word of English: letters, with the joins of identifiers (STOP_CHARGING, nvidia-smi,
# torch.utils.bottleneck, bf16/fp16).
WORD = r"[A-Za-z][A-Za-z0-9_./'-]*"
# Three or more such words in a row: a sentence, or a piece of one.
ENGLISH_RUN = re.compile(rf"\b{WORD}(?:[ ]+{WORD}){{2,}}")
# Words of English prose that no unit, id, command or product name is.
PROSE = re.compile(r"\b(?:the|of|and|is|it|in|to|for|or|at|on|by|with|per|from|after|not)\b")
# What Chinese keeps as it is: units, products, API names, flags, tools.
KEPT = (
    "CNY/h",
    "GPU",
    "P95",
    "STOP_CHARGING",
    "SPOTPAID",
    "DeepSpeed ZeRO",
    "CFS Turbo",
)


def texts(finding: Finding) -> Iterator[tuple[str, Text]]:
    """(where, text) for every text a finding shows."""
    yield "title", finding.title
    yield "explanation", finding.explanation
    yield "risk", finding.risk.reason
    money = finding.saving or finding.paid_while_waiting or finding.upsize
    if money is not None:
        yield "formula", money.formula
    for key in ("steps", "still_billed_when_stopped"):
        for index, text in enumerate(finding.action.get(key, ())):
            yield f"{key}.{index}", text
    if "when_stopped" in finding.evidence:
        yield "when_stopped", finding.evidence["when_stopped"]


def codes(value: object) -> Iterator[str]:
    if isinstance(value, Text):
        yield value.code
        for param in value.params.values():
            yield from codes(param)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from codes(item)


def data(value: object) -> Iterator[str]:
    """The parameters' names, ids and numbers: data, not words."""
    if isinstance(value, Text):
        for param in value.params.values():
            yield from data(param)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from data(item)
    else:
        yield str(value)


def in_language(language: str, text: Text) -> str:
    with translation.override(language):
        return render(text)


CASES = [
    pytest.param(name, where, text, id=f"{name}-{where}")
    for name, finding in GALLERY.items()
    for where, text in texts(finding)
]


@pytest.mark.parametrize(("name", "where", "text"), CASES)
def test_every_text_of_every_kind_renders_in_chinese_without_an_english_sentence(
    name: str, where: str, text: Text
) -> None:
    chinese = in_language("zh-hans", text)  # a missing code or parameter raises
    english = in_language("en", text)
    if any(isinstance(TEMPLATES.get(code), Promise) for code in codes(text)):
        assert CJK.search(chinese), chinese
        assert chinese != english
    else:  # data only (a billed component: its name, code and price)
        assert chinese == english
    words = chinese
    # Names, ids and types are data (numbers are no words: they stay).
    names = {value for value in data(text) if re.search("[A-Za-z]", value)}
    for value in sorted(names, key=len, reverse=True):
        words = words.replace(value, " ")
    for kept in KEPT:
        words = words.replace(kept, " ")
    assert not ENGLISH_RUN.search(words), (ENGLISH_RUN.search(words), chinese)
    assert not PROSE.search(words), (PROSE.search(words), chinese)


def test_the_gallery_says_every_sentence_the_catalog_has() -> None:
    """Every template is used by some finding of the gallery: no variant goes untested."""
    used = {
        code for finding in GALLERY.values() for _w, text in texts(finding) for code in codes(text)
    }
    # Each weekday a window can name, and each kind a plan can name before a step, is a
    # template; the gallery names a few (the others: test_every_translation_has_...).
    unused = {code for code in TEMPLATES if not code.startswith(("weekday.", "kind."))} - used
    assert not unused, sorted(unused)
    kinds = {finding.kind for finding in GALLERY.values()}
    assert kinds == set(messages.KIND_LABELS)


@pytest.mark.parametrize("code", sorted(TEMPLATES))
def test_every_translation_has_the_placeholders_of_its_english(code: str) -> None:
    template = TEMPLATES[code]
    with translation.override("en"):
        english = str(template)
    with translation.override("zh-hans"):
        chinese = str(template)
    placeholder = re.compile(r"%\((\w+)\)s")
    assert set(placeholder.findall(chinese)) == set(placeholder.findall(english)), code
    if isinstance(template, Promise):  # translated, not data only
        assert CJK_OR_FULL_WIDTH.search(chinese), (code, chinese)
        assert chinese != english, code


def test_every_weekday_has_its_chinese_name() -> None:
    with translation.override("zh-hans"):
        names = [render(Text(f"weekday.{day}")) for day in range(7)]
    assert names == ["周一", "周二", "周三", "周四", "周五", "周六", "周日"]


@pytest.mark.parametrize("name", sorted(GALLERY))
def test_the_stored_english_is_the_words_rendered_again(name: str) -> None:
    """What a row stores (English columns, words) for a finding: the words, rendered from the
    stored JSON in English, say exactly the stored English; in Chinese, what the rule said."""
    finding = GALLERY[name]
    stored = services._figures(finding, "CNY")
    words = stored["words"]
    columns = {
        "title": stored["title"],
        "explanation": stored["explanation"],
        "risk": stored["risk_reason"],
        "formula": stored["saving_formula"],
        "when_stopped": stored["evidence"].get("when_stopped"),
    }
    with translation.override("en"):
        for key, english in columns.items():
            if not english:  # no money (thermal), no stop figures
                assert key not in words
                continue
            assert render_json(words[key], "(fallback)") == english, key
        for key in ("steps", "still_billed_when_stopped"):
            english_list = stored["action"].get(key, [])
            assert render_list_json(words.get(key), ["(fallback)"] * len(english_list)) == (
                english_list
            ), key
            assert all(isinstance(line, str) for line in english_list)
    with translation.override("zh-hans"):
        for where, text in texts(finding):
            key, _dot, index = where.partition(".")
            said = words[key][int(index)] if index else words[key]
            assert render_json(said, "(fallback)") == render(text), where


def test_a_row_an_older_rule_wrote_falls_back_to_its_stored_english() -> None:
    with translation.override("zh-hans"):
        assert render_json("Idle for days.", "Idle for days.") == "Idle for days."
        nested_unknown = {"code": "stop_idle.formula", "params": {"price": {"code": "gone"}}}
        assert render_json(nested_unknown, "5 CNY/h x 720 h") == "5 CNY/h x 720 h"
        assert render_list_json(None, ["Stop it."]) == ["Stop it."]
        # A list stored for other steps than the column's: the column.
        assert render_list_json([{"code": "upsize.step.checkpoint"}], ["a", "b"]) == ["a", "b"]
        # One step unknown, the other rendered.
        known = {"code": "upsize.step.checkpoint", "params": {}}
        assert render_list_json([{"code": "gone"}, known], ["a", "b"]) == [
            "a",
            "为任务保存检查点。",
        ]


CENT = Decimal("0.01")


def _d(value: object) -> Decimal:
    return Decimal(str(value))


def _cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def _text(value: object) -> Text:
    assert isinstance(value, Text), value
    return value


def _monthly_hours(hours_text: object) -> Decimal:
    """The hours a month, from the numbers the hours' text states."""
    p = _text(hours_text).params
    days = _d(p["days"])
    return min((_d(p["basis"]) * _d(p["days_per_month"]) / days).quantize(Decimal("0.1")), _d(720))


def _recomputed(formula: Text) -> Decimal:
    """A saving from its formula's parameters alone, as the formula says it is computed."""
    p = formula.params
    if formula.code == "stop_idle.formula":
        assert _d(p["hours"]) == _monthly_hours(p["hours_text"])
        return _cents(_d(p["hourly"]) * _d(p["hours"]))
    if formula.code == "schedule.formula":
        hours = (_d(p["running"]) * _d(p["days_per_month"]) / 7).quantize(Decimal("0.1"))
        assert hours == _d(p["hours"])
        return _cents(_d(p["hourly"]) * hours)
    if formula.code in {"night_downshift.formula", "downsize.formula"}:
        return _cents((_d(p["hourly"]) - _d(p["target_hourly"])) * _d(p["hours"]))
    if formula.code == "commitment.formula":
        assert _d(p["hours"]) == _monthly_hours(p["hours_text"])
        return _cents(_d(p["hourly"]) * _d(p["hours"])) - _d(p["commitment"])
    if formula.code == "spot.formula":
        return _cents(_d(p["monthly"]) * (1 - _d(p["spot"]) / _d(p["postpaid"])))
    if formula.code == "fewer_instances.formula":
        items = _text(p["lines"]).params["items"]
        assert isinstance(items, list)
        parts = [_text(line).params for line in items]
        for part in parts:
            assert _d(part["part"]) == _cents(_d(part["hourly"]) * _d(part["hours"]))
        return sum((_d(part["part"]) for part in parts), Decimal(0))
    if formula.code == "upsize.formula.saving":
        return _d(p["monthly"]) - _d(p["same_work"])
    if formula.code in {"plan.after", "plan.after_nothing"}:
        return _cents(_d(p["cost"]) * _d(p["left"]) * _d(p["share"]))
    if formula.code == "plan.capped":
        return _d(p["cost"])
    raise AssertionError(f"no recomputation for {formula.code}")


@pytest.mark.parametrize(
    "name",
    sorted(
        name
        for name, finding in GALLERY.items()
        if finding.saving is not None and finding.saving.monthly_amount > 0
    ),
)
def test_each_saving_is_recomputed_from_its_formulas_numbers(name: str) -> None:
    saving = GALLERY[name].saving
    assert saving is not None
    if saving.formula.code == "stop_idle.formula.amortized":
        p = saving.formula.params
        assert saving.monthly_amount == _cents(_d(p["hourly"]) * _d(p["hours"]))
        return
    if saving.formula.code == "stop_idle.formula.subscription":
        assert saving.monthly_amount == _d(saving.formula.params["monthly"])
        return
    assert _recomputed(saving.formula) == saving.monthly_amount


def _front_end_names(constant: str) -> set[str]:
    """The names a list of the recommendations pages' labels (frontend/.../labels.ts) holds."""
    from pathlib import Path

    source = (
        Path(__file__).resolve().parents[2] / "frontend/src/pages/recommendations/labels.ts"
    ).read_text(encoding="utf-8")
    body = re.search(rf"export const {constant} = \[(.*?)\] as const;", source, re.S)
    assert body is not None, constant
    return set(re.findall(r"'([a-z0-9_]+)'", body.group(1)))


def test_every_evidence_figure_a_rule_writes_has_a_name_in_both_languages() -> None:
    """The dashboard names a figure from its list (labels.ts, translated in both catalogs);
    one missing shows its code with spaces, in English, on a Chinese page."""
    import json
    from pathlib import Path

    names = _front_end_names("FIGURE_NAMES")
    root = Path(__file__).resolve().parents[2] / "frontend/src/locales"
    for catalog in ("en.json", "zh-CN.json"):
        labels = json.loads((root / catalog).read_text(encoding="utf-8"))
        assert names <= set(labels["recommendations"]["figure"]), catalog
    written = {
        key
        for finding in gallery().values()
        for key in finding.evidence
        if key not in {"chart", "chart_range"}
    }
    assert written - names == set()
