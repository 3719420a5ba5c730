"""Work counters: report() lines into totals, vLLM's Prometheus text, restarts."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpu_ledger_agent import report
from gpu_ledger_agent.counters import CounterState, parse_prometheus

from tests.agent.conftest import FIXTURES


@pytest.fixture
def spool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPU_LEDGER_SPOOL_DIR", str(tmp_path))
    (tmp_path / "work").mkdir()
    return tmp_path


def test_it_adds_reported_work_once_across_reads_and_restarts(spool: Path) -> None:
    assert report(samples=256, tokens=1000)
    assert report(samples=256)
    state = CounterState(spool / "state.json")
    state.collect_reports(spool / "work")
    state.collect_reports(spool / "work")  # nothing new: nothing added
    assert state.report_counters() == {"samples": 512, "tokens": 1000}
    state.save()
    report(samples=128)
    restarted = CounterState(spool / "state.json")
    restarted.collect_reports(spool / "work")
    assert restarted.report_counters() == {"samples": 640, "tokens": 1000}


def test_it_waits_for_a_line_still_being_written(spool: Path) -> None:
    report(samples=1)
    path = next((spool / "work").glob("*.jsonl"))
    with path.open("a") as handle:
        handle.write('{"at": 1, "counts": {"samp')
    state = CounterState(spool / "state.json")
    state.collect_reports(spool / "work")
    assert state.report_counters() == {"samples": 1}
    with path.open("a") as handle:
        handle.write('les": 2}}\n')
    state.collect_reports(spool / "work")
    assert state.report_counters() == {"samples": 3}


def test_it_refuses_bad_counts_and_says_false_without_a_spool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ValueError, match="must be a finite number"):
        report(samples=-1)
    with pytest.raises(ValueError, match="not a number"):
        report(tokens="12")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="counter name"):
        report(**{"Bad-Name": 1})
    monkeypatch.setenv("GPU_LEDGER_SPOOL_DIR", str(tmp_path / "absent"))
    assert report(samples=1) is False


def test_it_sums_vllm_counters_over_their_label_sets() -> None:
    assert parse_prometheus((FIXTURES / "vllm-metrics.txt").read_text()) == {
        "prompt_tokens": 1234567.0,
        "generation_tokens": 987654.0,
        "requests": 4038.0,
    }


def test_it_carries_vllm_counters_over_a_server_restart(tmp_path: Path) -> None:
    state = CounterState(tmp_path / "state.json")
    assert state.vllm_counters({"generation_tokens": 900.0}) == {"generation_tokens": 900.0}
    # vLLM restarted: its counter began again at 0 and is at 50 now.
    assert state.vllm_counters({"generation_tokens": 50.0}) == {"generation_tokens": 950.0}
    assert state.vllm_counters({"generation_tokens": 70.0}) == {"generation_tokens": 970.0}
