"""nvidia-smi's CSV, read from the fake tool's recorded output of real cards."""

from __future__ import annotations

import pytest
from gpu_ledger_agent.nvsmi import NvidiaSmi, parse_apps, parse_gpus

from tests.agent.conftest import FAKE_NVIDIA_SMI, FIXTURES


def read(cards: pytest.MonkeyPatch, name: str) -> list[dict]:
    cards.setenv("FAKE_NVIDIA_SMI_CARDS", name)
    return NvidiaSmi(str(FAKE_NVIDIA_SMI)).read()


def test_it_reads_every_card_of_an_8_gpu_instance_with_its_processes(
    cards: pytest.MonkeyPatch,
) -> None:
    gpus = read(cards, "h800x8")
    assert [gpu["index"] for gpu in gpus] == list(range(8))
    assert gpus[0] == {
        "index": 0,
        "uuid": "GPU-6f1c2c4e-1a7d-3b9e-8e52-0c9d6a1b7f01",
        "name": "NVIDIA H800",
        "util_pct": 98.0,
        "mem_used_mb": 71234.0,
        "mem_total_mb": 81559.0,
        "power_w": 612.37,
        "power_limit_w": 700.0,
        "sm_clock_mhz": 1980.0,
        "throttle_reasons": 0,
        "temp_c": 63.0,
        "processes": [{"pid": 23817, "used_mem_mb": 70112}, {"pid": 24410, "used_mem_mb": 1102}],
    }
    # The idle card: a real 0 % and no process, which is not the same as "unknown".
    assert (gpus[7]["util_pct"], gpus[7]["throttle_reasons"], gpus[7]["processes"]) == (0, 1, [])


def test_it_reads_power_cap_and_thermal_throttle_reasons(cards: pytest.MonkeyPatch) -> None:
    gpus = read(cards, "a100_throttled")
    # 0x4: software power cap; 0x24: power cap and software thermal slowdown.
    assert [gpu["throttle_reasons"] for gpu in gpus] == [0x4, 0x24]
    assert [gpu["power_limit_w"] for gpu in gpus] == [400.0, 400.0]


def test_it_reads_na_and_not_supported_as_missing_never_as_zero(
    cards: pytest.MonkeyPatch,
) -> None:
    first, second = read(cards, "a10_vgpu_na")
    assert (first["power_w"], first["power_limit_w"], first["throttle_reasons"]) == (
        None,
        None,
        None,
    )
    assert (first["util_pct"], first["temp_c"]) == (45.0, None)
    assert first["processes"] == [{"pid": 901, "used_mem_mb": None}]
    assert [second[k] for k in ("util_pct", "mem_used_mb", "sm_clock_mhz")] == [None] * 3
    assert second["mem_total_mb"] == 12288.0


def test_it_falls_back_to_the_throttle_field_name_of_newer_drivers(
    cards: pytest.MonkeyPatch,
) -> None:
    cards.setenv("FAKE_NVIDIA_SMI_DRIVER", "550")
    smi = NvidiaSmi(str(FAKE_NVIDIA_SMI))
    cards.setenv("FAKE_NVIDIA_SMI_CARDS", "a100_throttled")
    assert [gpu["throttle_reasons"] for gpu in smi.read()] == [0x4, 0x24]
    assert smi.throttle_field == "clocks_event_reasons.active"


def test_it_returns_no_samples_when_the_driver_does_not_answer(
    cards: pytest.MonkeyPatch,
) -> None:
    cards.setenv("FAKE_NVIDIA_SMI_FAIL", "1")
    assert read(cards, "h800x8") == []
    assert NvidiaSmi(str(FIXTURES / "no-such-tool")).read() == []


def test_it_drops_a_line_with_a_missing_field_rather_than_shift_the_columns() -> None:
    text = (FIXTURES / "cards" / "h800x8" / "query-gpu.csv").read_text().splitlines()
    broken = [text[0], text[1].rsplit(",", 1)[0], "", "garbage"]
    assert [gpu["index"] for gpu in parse_gpus("\n".join(broken))] == [0]


def test_it_skips_the_no_process_message_of_compute_apps() -> None:
    assert parse_apps("No running processes found\n") == {}
