"""The agent's loop: readings gathered into one batch per push interval, spooled in order."""

from __future__ import annotations

import datetime as dt
import json
import socket
from pathlib import Path

import pytest
from gpu_ledger_agent.main import Agent

from tests.agent.conftest import FAKE_NVIDIA_SMI

START = 1_796_000_000.0  # 2026-11-30T00:53:20Z


def unreachable() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def test_it_sends_one_batch_per_push_interval_with_every_reading(
    tmp_path: Path, cards: pytest.MonkeyPatch
) -> None:
    agent = Agent(
        url=unreachable(), api_key="glk_x", instance_id="ins-h800a001", spool=tmp_path,
        interval_s=10, push_every_s=60, nvidia_smi=str(FAKE_NVIDIA_SMI),
    )  # fmt: skip
    for tick in range(12):
        agent.tick(START + 10 * tick)
    batches = [json.loads(path.read_text()) for path in agent.outbox.pending()]
    assert len(batches) == 2
    moments = [sorted({s["sampled_at"] for s in batch["samples"]}) for batch in batches]
    first_six = [START + 10 * i for i in range(6)]
    assert moments[0] == [
        dt.datetime.fromtimestamp(moment, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        for moment in first_six
    ]
    assert moments[0][0] == "2026-11-30T00:53:20Z"
    assert [len(batch["samples"]) for batch in batches] == [48, 48]
    assert {batch["instance_id"] for batch in batches} == {"ins-h800a001"}


def test_it_refuses_an_interval_outside_10_to_60_seconds(tmp_path: Path) -> None:
    for interval in (5, 61):
        with pytest.raises(ValueError, match="10-60"):
            Agent(
                url="http://x",
                api_key="k",
                instance_id="ins-1",
                spool=tmp_path,
                interval_s=interval,
            )
