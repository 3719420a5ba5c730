"""What the language walk (tests/e2e/test_language_walk.py) counts as an English sentence or a
raw key: checked here without a browser, on text like the pages'."""

from __future__ import annotations

from tests.e2e.language_text import catalog_namespaces, english_phrases, raw_markers


def test_it_finds_every_english_sentence_in_chinese_text() -> None:
    text = "本月已支出\t¥1,234.00\nStop it in that window 然后 Tell the users the window."
    assert english_phrases(text) == ["Stop it in that window", "Tell the users the window"]


def test_it_reads_names_units_commands_and_addresses_as_no_sentence() -> None:
    text = "\n".join(
        [
            "GPU Ledger · 概览",
            "GPU 利用率 (GPU CPU CNY)",
            "tccli cvm StopInstances --InstanceIds '[\"ins-3kx9a\"]' --StopType SOFT",
            "demo@example.com 的组织",
            "GN7.2XLARGE32 ins-3kx9a",
            "https://hooks.example.com/gpu-ledger",
            "English 简体中文",
            "对输入管道做性能分析（如 torch.utils.bottleneck、tf.data 性能分析器）。",
            "llm pretrain main 项目",
        ]
    )
    assert english_phrases(text, extra_phrases=["llm pretrain main"]) == []
    # Without the name from the data, the project's name reads as words.
    assert english_phrases(text) == ["llm pretrain main"]


def test_a_dotted_name_is_code_but_a_sentence_with_full_stops_is_not() -> None:
    assert english_phrases("如 torch.utils.bottleneck") == []
    assert english_phrases("运行完毕. Then stop it now. 然后") == ["Then stop it now"]


def test_a_tab_digit_or_line_ends_a_run() -> None:
    assert english_phrases("Idle cards\tnow\n12 hours a day\nstop now 3 more") == []


def test_it_finds_raw_keys_placeholders_code_names_and_missing_values() -> None:
    namespaces = catalog_namespaces()
    text = (
        "recommendations.detail.figures · {{count}} 天 · idle_gpu_util_p95_max_pct · "
        "undefined · NaN % · null · [object Object]"
    )
    assert sorted(raw_markers(text, namespaces)) == sorted(
        [
            "key recommendations.detail.figures",
            "placeholder {{count}}",
            "code name idle_gpu_util_p95_max_pct",
            "value undefined",
            "value NaN",
            "value null",
            "value [object Object]",
        ]
    )


def test_it_leaves_addresses_bill_codes_and_names_set_as_code_alone() -> None:
    namespaces = catalog_namespaces()
    text = "example.com · 系统盘 (v_cvm_rootdisk) · idle_gpu_util_p95_max_pct · report.csv"
    assert raw_markers(text, namespaces, code=["idle_gpu_util_p95_max_pct"]) == []


def test_the_dot_between_a_labels_parts_joins_them() -> None:
    # A nested evidence label whose parts were left in English (shown in capitals by the CSS).
    assert english_phrases("每小时价格 · RUNTIME COMPONENTS · V CVM GPU · COST\t运行") == [
        "RUNTIME COMPONENTS · V CVM GPU · COST"
    ]
