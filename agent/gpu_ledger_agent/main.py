"""The agent's loop: sample every ``interval`` seconds, batch, spool, send.

Configuration is read from the environment (what a systemd ``EnvironmentFile`` sets), each
overridable by a command-line flag; see the README for the list.
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import os
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, Sequence

from gpu_ledger_agent import __version__
from gpu_ledger_agent.counters import (
    DEFAULT_SPOOL_DIR,
    CounterState,
    counter_points,
    scrape_vllm,
)
from gpu_ledger_agent.nvsmi import NvidiaSmi
from gpu_ledger_agent.outbox import Outbox, Sender

logger = logging.getLogger("gpu_ledger_agent")

MIN_INTERVAL_S, MAX_INTERVAL_S = 10, 60
# Tencent Cloud's instance metadata service (reachable from every CVM, nowhere else).
METADATA_INSTANCE_ID = "http://metadata.tencentyun.com/latest/meta-data/instance-id"
# The server's limit is higher; a backlog is sent one batch at a time anyway.
MAX_SAMPLES_PER_BATCH = 1000


def utc_timestamp(moment: float) -> str:
    """Whole seconds, UTC, ISO 8601: the key of a point, identical when a batch is resent."""
    return dt.datetime.fromtimestamp(int(moment), dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Agent:
    def __init__(
        self,
        *,
        url: str,
        api_key: str,
        instance_id: str,
        spool: Path,
        interval_s: int = 30,
        push_every_s: int = 60,
        nvidia_smi: str = "nvidia-smi",
        vllm_url: str | None = None,
    ) -> None:
        if not MIN_INTERVAL_S <= interval_s <= MAX_INTERVAL_S:
            raise ValueError(
                f"interval must be {MIN_INTERVAL_S}-{MAX_INTERVAL_S} s, not {interval_s}"
            )
        self.instance_id = instance_id
        self.interval_s = interval_s
        self.push_every_s = push_every_s
        self.vllm_url = vllm_url
        self.smi = NvidiaSmi(nvidia_smi)
        self.work_dir = spool / "work"
        self.work_dir.mkdir(parents=True, exist_ok=True)
        # Training scripts run as other users: anyone may add a file, only its owner remove it.
        os.chmod(self.work_dir, 0o1777)
        self.state = CounterState(spool / "state.json")
        self.outbox = Outbox(spool / "outbox")
        self.sender = Sender(self.outbox, url, api_key)
        self.samples: list[dict[str, Any]] = []
        self.counters: list[dict[str, Any]] = []
        self.readings = 0

    def sample(self, now: float) -> None:
        """One reading of every GPU and counter, added to the batch being built."""
        sampled_at = utc_timestamp(now)
        for gpu in self.smi.read():
            self.samples.append({"sampled_at": sampled_at, **gpu})
        self.state.collect_reports(self.work_dir)
        self.counters += counter_points(sampled_at, "report", self.state.report_counters())
        if self.vllm_url:
            raw = scrape_vllm(self.vllm_url)
            if raw is not None:
                self.counters += counter_points(sampled_at, "vllm", self.state.vllm_counters(raw))
        self.readings += 1

    def close_batch(self) -> None:
        """Write the batch being built to the outbox, then save the counter state.

        In this order a crash between the two sends the last counts twice (harmless: the same
        points again) rather than never.
        """
        if self.samples or self.counters:
            self.outbox.put(
                {
                    "instance_id": self.instance_id,
                    "agent_version": __version__,
                    "samples": self.samples,
                    "counters": self.counters,
                }
            )
        self.state.save()
        self.samples, self.counters, self.readings = [], [], 0

    def tick(self, now: float) -> None:
        self.sample(now)
        due = self.readings >= max(1, round(self.push_every_s / self.interval_s))
        if due or len(self.samples) >= MAX_SAMPLES_PER_BATCH:
            self.close_batch()
            self.sender.flush(now)

    def run_forever(self) -> None:
        next_at = time.time()
        while True:
            try:
                self.tick(time.time())
            except Exception:  # keep sampling whatever one tick hit; the log says what
                logger.exception("sampling failed")
            next_at += self.interval_s
            # After a stall (a suspended VM, a clock step) start again from now rather than
            # catching up with a burst of readings.
            if next_at < time.time() - self.interval_s:
                next_at = time.time()
            time.sleep(max(0.0, next_at - time.time()))

    def run_once(self) -> int:
        """Sample once, spool and send everything waiting; 0 when the outbox is empty after."""
        self.sample(time.time())
        self.close_batch()
        self.sender.flush()
        return 0 if not self.outbox.pending() else 1


def instance_id_from_metadata(timeout_s: float = 3) -> str:
    with urllib.request.urlopen(METADATA_INSTANCE_ID, timeout=timeout_s) as response:
        return response.read().decode().strip()


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    env = os.environ.get
    parser = argparse.ArgumentParser(prog="gpu-ledger-agent", description=__doc__)
    parser.add_argument(
        "--url", default=env("GPU_LEDGER_URL"), help="e.g. https://ledger.example.com"
    )
    parser.add_argument(
        "--key-file",
        default=env("GPU_LEDGER_KEY_FILE"),
        help="file holding the ingest API key (else GPU_LEDGER_KEY)",
    )
    parser.add_argument(
        "--instance-id",
        default=env("GPU_LEDGER_INSTANCE_ID"),
        help="ins-...; default: asked of the instance metadata service",
    )
    parser.add_argument("--interval", type=int, default=int(env("GPU_LEDGER_INTERVAL_S") or 30))
    parser.add_argument("--push-every", type=int, default=int(env("GPU_LEDGER_PUSH_EVERY_S") or 60))
    parser.add_argument("--spool-dir", default=env("GPU_LEDGER_SPOOL_DIR") or DEFAULT_SPOOL_DIR)
    parser.add_argument("--nvidia-smi", default=env("GPU_LEDGER_NVIDIA_SMI") or "nvidia-smi")
    parser.add_argument(
        "--vllm-url",
        default=env("GPU_LEDGER_VLLM_URL"),
        help="a vLLM /metrics URL to read token and request counters from",
    )
    parser.add_argument("--once", action="store_true", help="sample once, send, exit")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    args = parse_args(argv)
    api_key = os.environ.get("GPU_LEDGER_KEY", "")
    if args.key_file:
        api_key = Path(args.key_file).read_text().strip()
    if not args.url or not api_key:
        print(
            "gpu-ledger-agent: set GPU_LEDGER_URL and GPU_LEDGER_KEY (or --key-file)",
            file=sys.stderr,
        )
        return 2
    instance_id = args.instance_id
    if not instance_id:
        try:
            instance_id = instance_id_from_metadata()
        except OSError as error:
            print(
                f"gpu-ledger-agent: no instance id from the metadata service ({error}); "
                "set GPU_LEDGER_INSTANCE_ID=ins-...",
                file=sys.stderr,
            )
            return 2
    agent = Agent(
        url=args.url,
        api_key=api_key,
        instance_id=instance_id,
        spool=Path(args.spool_dir),
        interval_s=args.interval,
        push_every_s=args.push_every,
        nvidia_smi=args.nvidia_smi,
        vllm_url=args.vllm_url,
    )
    if args.once:
        return agent.run_once()
    logger.info(
        "gpu-ledger-agent %s for %s: every %d s to %s",
        __version__,
        instance_id,
        args.interval,
        args.url,
    )
    agent.run_forever()
    return 0
